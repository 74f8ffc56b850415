// graph-compile reports one diagnostic and exits 1: for IR it cannot
// compile, and for a driver whose name is not a C identifier.
// RUN: not graph-compile %s -o %t.so 2>&1 | filecheck %s
// RUN: not graph-compile %S/Inputs/not-a-c-name.mlir -o %t.so 2>&1 | filecheck %s --check-prefix=NAME
// CHECK-NOT: Traceback
// CHECK: graph-compile-errors.mlir:10:3: error: graph.matmul: inner dimensions differ
// NAME: graph-compile: error: driver @my.model has no valid C name; rename the function

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}
