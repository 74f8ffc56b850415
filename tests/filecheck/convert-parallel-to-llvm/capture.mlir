// RUN: graph-opt -p convert-parallel-to-llvm %s | filecheck %s

// What the outlined body can re-create does not travel in the context: the
// variable of a loop that runs once becomes its lower bound, and an index
// computed from a loop variable is recomputed from it. A stack buffer the
// loop fills for the code after it (a padded input copy) is shared; one each
// iteration writes before it reads and nothing reads afterwards is scratch.
// CHECK-LABEL: func.func private @k_par0(
// CHECK-SAME: %[[CTX:.*]]: !llvm.ptr)
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[CTX]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[L0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[X:.*]] = builtin.unrealized_conversion_cast %[[L0]] : !llvm.ptr to memref<4x64xf32>
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[CTX]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %[[L1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[J:.*]] = builtin.unrealized_conversion_cast %[[L1]] : i64 to index
// CHECK-NEXT: %[[P2:.*]] = llvm.getelementptr %[[CTX]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[L2:.*]] = llvm.load %[[P2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[Q:.*]] = builtin.unrealized_conversion_cast %[[L2]] : !llvm.ptr to memref<4x64xf32>
// CHECK-NOT: llvm.getelementptr %[[CTX]]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[TMP:.*]] = memref.alloca() : memref<64xf32>
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[J]], %[[C16]] : index
// CHECK: scf.for
// CHECK: memref.load %[[X]][%[[ZERO]], %{{.*}}] : memref<4x64xf32>
// CHECK: memref.store %{{.*}}, %[[TMP]][%{{.*}}] : memref<64xf32>
// CHECK: arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: memref.store %{{.*}}, %[[Q]][%{{.*}}, %{{.*}}] : memref<4x64xf32>

// The kernel keeps the shared buffer and stores its address in the context;
// the index only the body used is gone from it.
// CHECK-LABEL: func.func private @k(
// CHECK: %[[XQ:.*]] = memref.alloca() : memref<4x64xf32>
// CHECK-NOT: arith.muli
// CHECK: %[[XQP:.*]] = builtin.unrealized_conversion_cast %[[XQ]] : memref<4x64xf32> to !llvm.ptr
// CHECK: llvm.store %[[XQP]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.call @GOMP_parallel
// CHECK: memref.load %[[XQ]]
func.func private @k(%x: memref<4x64xf32>, %o: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %xq = memref.alloca() : memref<4x64xf32>
  %tmp = memref.alloca() : memref<64xf32>
  scf.for %n = %c0 to %c1 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      // A store of its own keeps this loop out of the region (see hoist.mlir).
      %w = memref.load %x[%c1, %j] : memref<4x64xf32>
      memref.store %w, %o[%c1, %j] : memref<4x64xf32>
      %off = arith.muli %j, %c16 : index
      "scf.parallel"(%c0, %c4, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
      ^bb0(%i: index):
        scf.for %k = %c0 to %c64 step %c1 {
          %v = memref.load %x[%n, %k] : memref<4x64xf32>
          memref.store %v, %tmp[%k] : memref<64xf32>
        }
        scf.for %k = %c0 to %c16 step %c1 {
          %t = memref.load %tmp[%k] : memref<64xf32>
          %at = arith.addi %k, %off : index
          memref.store %t, %xq[%i, %at] : memref<4x64xf32>
        }
        scf.reduce
      }) : (index, index, index) -> ()
    }
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %xq[%c0, %k] : memref<4x64xf32>
      memref.store %v, %o[%c0, %k] : memref<4x64xf32>
    }
  }
  func.return
}
