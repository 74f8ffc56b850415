// Negative tests in the style of mlir-opt: the file is split into chunks at
// the separator lines, and each chunk says which diagnostic it expects:
//   graph-opt --split-input-file --verify-diagnostics examples/errors/invalid.mlir

func.func @inner_dims(%x: tensor<8x16xf32>, %w: tensor<32x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{graph.matmul: inner dimensions differ (8x16 vs 32x4)}}
  %y = graph.matmul %x, %w : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}

// -----

func.func @bad_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{graph.transpose: perm}}
  %y = graph.transpose %x {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}
