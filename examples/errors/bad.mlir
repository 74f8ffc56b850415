func.func @bad(%x: tensor<8x16xf32>, %w: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %y = graph.matmul %x, %w : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}
// Invalid on purpose: the README shows the diagnostic graph-opt gives for it.
