// Input for the relu-cleanup plugin (examples/plugins/relu_cleanup.py):
//   graph-opt --load-plugin examples/plugins/relu_cleanup.py -p relu-cleanup,dce examples/plugins/relu_chain.mlir
func.func @relu_chain(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %one = graph.constant splat 1.0 : tensor<8x16xf32>
  %a = graph.relu %x : tensor<8x16xf32>
  %b = graph.relu %a : tensor<8x16xf32>
  %c = graph.mul %b, %one : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}
