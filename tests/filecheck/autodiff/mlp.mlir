// RUN: graph-opt -p 'autodiff{func=mlp wrt=w1,b1,w2 seed=ones}' %s | filecheck %s
// RUN: graph-opt -p 'autodiff{func=mlp wrt=w1,b1,w2 seed=ones}' %s | graph-opt | filecheck %s
// The gradient function goes through the normal pipeline and is lowered to
// one driver (4 inputs, the loss and 3 gradients).
// RUN: graph-opt -p 'autodiff{func=mlp wrt=w1,b1,w2 seed=ones},default,lower-graph-to-loop' %s | filecheck %s --check-prefix=LOWER
// LOWER: func.func @mlp_grad(%{{.*}}) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<8x4xf32>, "w1" : tensor<4x16xf32>, "b1" : tensor<16xf32>, "w2" : tensor<16x2xf32>], outputs = ["loss" : tensor<f32>, "" : tensor<4x16xf32>, "" : tensor<16xf32>, "" : tensor<16x2xf32>],

// The gradient of a small MLP: the transposed matmuls, the unbroadcast
// reduction of the bias gradient, and ONE n-ary sum where z is used twice.

func.func @mlp(%x: tensor<8x4xf32>, %w1: tensor<4x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x2xf32>) -> tensor<f32> {
  %0 = graph.matmul %x, %w1 : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %1 = graph.add %0, %b1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %h = graph.tanh %1 : tensor<8x16xf32>
  %z = graph.matmul %h, %w2 : (tensor<8x16xf32>, tensor<16x2xf32>) -> tensor<8x2xf32>
  %sq = graph.mul %z, %z : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  %loss = graph.reduce_mean %sq {axes = array<i64: 0, 1>} : (tensor<8x2xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @mlp_grad
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W1:.*]]: tensor<4x16xf32>, %[[B1:.*]]: tensor<16xf32>, %[[W2:.*]]: tensor<16x2xf32>) -> (tensor<f32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16x2xf32>)
// CHECK: %[[H:.*]] = graph.tanh
// CHECK: %[[Z:.*]] = graph.matmul %[[H]], %[[W2]]
// CHECK: %[[LOSS:.*]] = graph.reduce_mean
// The product z*z: one contribution per operand, summed once.
// CHECK: %[[GZ1:.*]] = graph.mul %[[G:.*]], %[[Z]]
// CHECK: %[[GZ2:.*]] = graph.mul %[[G]], %[[Z]]
// CHECK: %[[DZ:.*]] = graph.add_n %[[GZ1]], %[[GZ2]] : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
// dW2 = hᵀ dz and dh = dz W2ᵀ.
// CHECK-DAG: %[[HT:.*]] = graph.transpose %[[H]] {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
// CHECK-DAG: %[[DW2:.*]] = graph.matmul %[[HT]], %[[DZ]] : (tensor<16x8xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
// CHECK-DAG: %[[W2T:.*]] = graph.transpose %[[W2]] {perm = array<i64: 1, 0>} : (tensor<16x2xf32>) -> tensor<2x16xf32>
// CHECK-DAG: %[[DH:.*]] = graph.matmul %[[DZ]], %[[W2T]] : (tensor<8x2xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
// The bias was broadcast over the batch: its gradient is summed over axis 0.
// CHECK: %[[DB1:.*]] = graph.reduce_sum %[[DPRE:.*]] {axes = array<i64: 0>} : (tensor<8x16xf32>) -> tensor<16xf32>
// CHECK: %[[XT:.*]] = graph.transpose %[[X]] {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
// CHECK: %[[DW1:.*]] = graph.matmul %[[XT]], %[[DPRE]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// No gradient for x was asked for: no dx = dpre W1ᵀ.
// CHECK-NOT: graph.transpose %[[W1]]
// CHECK: func.return %[[LOSS]], %[[DW1]], %[[DB1]], %[[DW2]] : tensor<f32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16x2xf32>
