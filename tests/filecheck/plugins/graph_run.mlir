// A plugin's op compiles and runs through graph-run, as in graph-opt.
// RUN: graph-run --load-plugin %plugins/square_op.py %s --random-inputs --check | filecheck %s
// RUN: graph-run --load-plugin %plugins/square_op.py %s -p 'autodiff{func=f wrt=x seed=ones}' --entry f_grad -O2 --check | filecheck %s --check-prefix=GRAD
// Without the plugin the op is unknown: one located error.
// RUN: not graph-run %s 2>&1 | filecheck %s --check-prefix=NOPLUGIN

// CHECK: output 0: () float32
// CHECK: check: OK (1 outputs match the reference)
// GRAD: output 1: (3,) float32
// GRAD: check: OK (2 outputs match the reference)
// NOPLUGIN: graph_run.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: Operation toy.square is not registered
// NOPLUGIN-NOT: internal error
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %s = toy.square %x : tensor<3xf32>
  %p = graph.mul %s, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = graph.reduce_sum %p {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  func.return %l : tensor<f32>
}
