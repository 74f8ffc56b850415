// The loss of a tiny MLP: 4 samples of 3 features -> 4 hidden (relu) -> 2
// classes, mean softmax cross-entropy against the one-hot labels %y.
// Its gradient with respect to the weights:
//   graph-opt examples/mlp_loss.mlir -p 'autodiff{func=mlp wrt=w1,b1,w2,b2 seed=ones}'
// Its SGD training step @mlp_train (the loss and the new weights), compiled
// at -O2 and run once on random inputs, checked against the reference:
//   graph-opt examples/mlp_loss.mlir -p 'autodiff{func=mlp wrt=w1,b1,w2,b2 train=true lr=0.1}' -o mlp_train.mlir
//   graph-run mlp_train.mlir -O2 --entry mlp_train --check
func.func @mlp(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>, %w1: tensor<3x4xf32>, %b1: tensor<4xf32>, %w2: tensor<4x2xf32>, %b2: tensor<2xf32>) -> tensor<f32> {
  %0 = graph.matmul %x, %w1 : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  %1 = graph.add %0, %b1 : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %h = graph.relu %1 : tensor<4x4xf32>
  %2 = graph.matmul %h, %w2 : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %logits = graph.add %2, %b2 : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %logp = graph.log_softmax %logits {axis = -1 : i64} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %3 = graph.mul %y, %logp : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %4 = graph.reduce_sum %3 {axes = array<i64: -1>} : (tensor<4x2xf32>) -> tensor<4xf32>
  %nll = graph.neg %4 : tensor<4xf32>
  %loss = graph.reduce_mean %nll {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
