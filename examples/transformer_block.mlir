// A pre-norm transformer block on 8 tokens of width 16 (one attention head,
// MLP width 32): layer_norm, Q/K/V projections, softmax attention, output
// projection and residual add; layer_norm, matmul + bias + gelu, matmul +
// bias and the second residual add.  Weights are arguments.
// Run it:   graph-run examples/transformer_block.mlir --random-inputs --check
// Fuse it:  graph-opt -p 'fuse-ops{remarks=true summary=true}' examples/transformer_block.mlir
func.func @transformer_block(%x: tensor<8x16xf32>, %g1: tensor<16xf32>, %be1: tensor<16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>, %wo: tensor<16x16xf32>, %g2: tensor<16xf32>, %be2: tensor<16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x16xf32>, %b2: tensor<16xf32>) -> tensor<8x16xf32> {
  %scale = graph.constant splat 0.25 : tensor<8x8xf32>
  %ln1 = graph.layer_norm %x, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f64} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %q = graph.matmul %ln1, %wq : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %k = graph.matmul %ln1, %wk : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %v = graph.matmul %ln1, %wv : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %kt = graph.transpose %k {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %s = graph.matmul %q, %kt : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %ss = graph.mul %s, %scale : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = graph.softmax %ss {axis = -1 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %att = graph.matmul %p, %v : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = graph.matmul %att, %wo : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %h = graph.add %x, %o : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %ln2 = graph.layer_norm %h, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f64} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %f1 = graph.matmul %ln2, %w1 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %f1b = graph.add %f1, %b1 : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %g = graph.gelu %f1b : tensor<8x32xf32>
  %f2 = graph.matmul %g, %w2 : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %f2b = graph.add %f2, %b2 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %y = graph.add %h, %f2b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %y : tensor<8x16xf32>
}
