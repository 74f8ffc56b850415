// RUN: graph-opt -p 'autodiff{func=f wrt=w}' %s | filecheck %s --check-prefix=ONLYW
// RUN: graph-opt -p 'autodiff{func=f}' %s | filecheck %s --check-prefix=ALL
// RUN: graph-opt -p 'autodiff{func=f wrt=1,u seed=ones}' %s | filecheck %s --check-prefix=UNUSED
// RUN: graph-opt -p 'autodiff{func=f wrt=w train=true lr=0.5}' %s | filecheck %s --check-prefix=TRAIN

// Only w's gradient: dW = xᵀ g; no matmul with wᵀ (that would be dx).
// ONLYW-LABEL: func.func @f_grad
// ONLYW-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[U:.*]]: tensor<5xf32>, %[[HEAD:.*]]: tensor<f32>) -> (tensor<f32>, tensor<3x4xf32>)
// ONLYW: %[[XT:.*]] = graph.transpose %[[X]]
// ONLYW-NEXT: %[[DW:.*]] = graph.matmul %[[XT]], %{{.*}} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// ONLYW-NOT: graph.matmul
// ONLYW: func.return %{{.*}}, %[[DW]] : tensor<f32>, tensor<3x4xf32>

// Default: every float argument; the unused one gets explicit zeros.
// ALL-LABEL: func.func @f_grad
// ALL-SAME: -> (tensor<f32>, tensor<2x3xf32>, tensor<3x4xf32>, tensor<5xf32>)
// ALL-DAG: %[[ZERO:.*]] = graph.constant splat 0.000000e+00 : tensor<5xf32>
// ALL-DAG: %[[DX:.*]] = graph.matmul %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// ALL-DAG: %[[DW:.*]] = graph.matmul %{{.*}}, %{{.*}} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// ALL: func.return %{{.*}}, %[[DX]], %[[DW]], %[[ZERO]]

// By index and by name; seed=ones: no head gradient argument.
// UNUSED-LABEL: func.func @f_grad
// UNUSED-SAME: (%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<3x4xf32>, %{{.*}}: tensor<5xf32>) -> (tensor<f32>, tensor<3x4xf32>, tensor<5xf32>)
// UNUSED: %[[ZERO:.*]] = graph.constant splat 0.000000e+00 : tensor<5xf32>
// UNUSED: func.return %{{.*}}, %{{.*}}, %[[ZERO]]

// The training step: loss and w - lr * dw.
// TRAIN-LABEL: func.func @f_train
// TRAIN-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[U:.*]]: tensor<5xf32>) -> (tensor<f32>, tensor<3x4xf32>)
// TRAIN: %[[LOSS:.*]] = graph.reduce_sum
// TRAIN: %[[DW:.*]] = graph.matmul
// TRAIN: %[[LR:.*]] = graph.constant splat 5.000000e-01 : tensor<f32>
// TRAIN: %[[STEP:.*]] = graph.mul %[[DW]], %[[LR]]
// TRAIN: %[[NEW:.*]] = graph.sub %[[W]], %[[STEP]]
// TRAIN: func.return %[[LOSS]], %[[NEW]] : tensor<f32>, tensor<3x4xf32>
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %u: tensor<5xf32>) -> tensor<f32> {
  %y = graph.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %l = graph.reduce_sum %y {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<f32>
  func.return %l : tensor<f32>
}
