// RUN: not graph-opt -p lower-loop-to-llvm %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: 'math.ctlz' is not supported by lower-loop-to-llvm (in @k)
// CHECK-NOT: Traceback

func.func private @k(%a: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<2xi32>
  %y = math.ctlz %x : i32
  memref.store %y, %a[%c0] : memref<2xi32>
  func.return
}
