// An unknown pass name, alone or inside a pipeline.
// RUN: not graph-opt %s -p no-such-pass 2>&1 | filecheck %s
// RUN: not graph-opt %s -p cse,no-such-pass,dce 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: graph-opt: error: unknown pass: ['no-such-pass']; run graph-opt --help for the list
// CHECK-NOT: Traceback
// CHECK-NOT: builtin.module

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
