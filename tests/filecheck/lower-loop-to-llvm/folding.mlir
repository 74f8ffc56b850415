// RUN: graph-opt -p lower-loop-to-llvm -t llvm %s | filecheck %s

// A one-iteration loop is no loop, index arithmetic on constants is folded
// into one constant-offset getelementptr, the accesses of a block share the
// dynamic part of their address, and a division by a positive constant
// needs no sign test of the divisor.

// CHECK-LABEL: define internal void @"k"
// CHECK-SAME:    (ptr %[[A:[a-z0-9]*]], i64 %[[N:[a-z0-9]*]], ptr %[[O:[a-z0-9]*]])
// CHECK-NEXT:  {
// CHECK-NEXT:  b0:
// CHECK-NEXT:    %[[P:.*]] = getelementptr inbounds float, ptr %[[A]], i32 13
// CHECK-NEXT:    %[[X:.*]] = load float, ptr %[[P]]
// CHECK-NEXT:    %[[M:.*]] = mul nsw i64 %[[N]], 8
// CHECK-NEXT:    %[[R:.*]] = getelementptr inbounds float, ptr %[[A]], i64 %[[M]]
// CHECK-NEXT:    %[[R5:.*]] = getelementptr inbounds float, ptr %[[R]], i32 5
// CHECK-NEXT:    store float %[[X]], ptr %[[R5]]
// CHECK-NEXT:    %[[R6:.*]] = getelementptr inbounds float, ptr %[[R]], i32 6
// CHECK-NEXT:    store float %[[X]], ptr %[[R6]]
// CHECK-NEXT:    store float %[[X]], ptr %[[R5]]
// CHECK-NEXT:    %[[Q:.*]] = sdiv i64 %[[N]], 8
// CHECK-NEXT:    %[[REM:.*]] = srem i64 %[[N]], 8
// CHECK-NEXT:    %[[UP:.*]] = icmp sgt i64 %[[REM]], 0
// CHECK-NEXT:    %[[UP1:.*]] = zext i1 %[[UP]] to i64
// CHECK-NEXT:    %[[CEIL:.*]] = add i64 %[[Q]], %[[UP1]]
// CHECK-NEXT:    store i64 %[[CEIL]], ptr %[[O]]
// CHECK-NEXT:    %[[Q2:.*]] = sdiv i64 %[[N]], 8
// CHECK-NEXT:    %[[REM2:.*]] = srem i64 %[[N]], 8
// CHECK-NEXT:    %[[SIGN:.*]] = ashr i64 %[[REM2]], 63
// CHECK-NEXT:    %[[FLOOR:.*]] = add i64 %[[Q2]], %[[SIGN]]
// CHECK-NEXT:    %[[O1:.*]] = getelementptr inbounds i64, ptr %[[O]], i32 1
// CHECK-NEXT:    store i64 %[[FLOOR]], ptr %[[O1]]
// CHECK-NEXT:    ret void
func.func private @k(%a: memref<4x8xf32>, %n: index, %o: memref<2xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c2 to %c3 step %c1 {
    %j = arith.muli %i, %c2 : index
    %k = arith.addi %j, %c1 : index
    %x = memref.load %a[%c1, %k] : memref<4x8xf32>
    memref.store %x, %a[%n, %k] : memref<4x8xf32>
    %k1 = arith.addi %k, %c1 : index
    memref.store %x, %a[%n, %k1] : memref<4x8xf32>
    %again = arith.addi %j, %c1 : index
    memref.store %x, %a[%n, %again] : memref<4x8xf32>
  }
  %q = arith.ceildivsi %n, %c8 : index
  memref.store %q, %o[%c0] : memref<2xindex>
  %f = arith.floordivsi %n, %c8 : index
  memref.store %f, %o[%c1] : memref<2xindex>
  func.return
}
