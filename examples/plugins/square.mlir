// A model using the plugin op toy.square (examples/plugins/square_op.py):
//   graph-run --load-plugin examples/plugins/square_op.py examples/plugins/square.mlir --check
//   graph-opt --load-plugin examples/plugins/square_op.py -p 'autodiff{func=energy}' examples/plugins/square.mlir
func.func @energy(%x: tensor<4x3xf32>, %w: tensor<3xf32>) -> tensor<4xf32> {
  %s = toy.square %x : tensor<4x3xf32>
  %p = graph.mul %s, %w : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %e = graph.reduce_sum %p {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}
