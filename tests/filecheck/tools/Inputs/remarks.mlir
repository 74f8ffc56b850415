// Remarks of fuse-ops, checked with expected-remark.
func.func @transpose_sum(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<8x4xf32>
  %t = graph.transpose %e {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{not fused: graph.transpose -> graph.reduce_sum}}
  %s = graph.reduce_sum %t {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
