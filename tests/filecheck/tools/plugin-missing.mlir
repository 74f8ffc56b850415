// A plugin file that does not exist.
// RUN: not graph-opt --load-plugin=%S/Inputs/no_such_plugin.py %s 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: graph-opt: error: plugin file '{{.*}}no_such_plugin.py' does not exist
// CHECK-NOT: Traceback

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
