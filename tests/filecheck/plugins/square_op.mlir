// RUN: graph-opt --load-plugin %plugins/square_op.py -p 'autodiff{func=f wrt=x seed=ones}' %s | filecheck %s
// RUN: graph-opt --load-plugin %plugins/square_op.py -p 'autodiff{func=f wrt=x seed=ones},lower-graph-to-loop' %s | filecheck %s --check-prefix=LOWER
// RUN: graph-opt --load-plugin %plugins/square_op.py -p 'autodiff{func=f wrt=x seed=ones}' %s | graph-opt --load-plugin %plugins/square_op.py | filecheck %s --check-prefix=ROUND
// RUN: graph-opt --load-plugin %plugins/square_op.py -p 'autodiff{func=f}' %s 2>&1 | filecheck %s --check-prefix=NOTB

// NOTB-NOT: Traceback
// NOTB: func.func @f_grad

// The plugin's op, its gradient rule (2 * g * x) and its compute rule.

// CHECK-LABEL: func.func @f_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
// CHECK: %[[S:.*]] = toy.square %[[X]] : tensor<3xf32>
// CHECK: %[[L:.*]] = graph.reduce_sum
// CHECK: %[[G:.*]] = graph.mul %{{.*}}, %[[W]]
// CHECK: %[[TWO:.*]] = graph.constant splat 2.000000e+00 : tensor<f32>
// CHECK: %[[G2:.*]] = graph.mul %[[G]], %[[TWO]]
// CHECK: %[[DX:.*]] = graph.mul %[[G2]], %[[X]]
// CHECK: func.return %[[L]], %[[DX]] : tensor<f32>, tensor<3xf32>

// LOWER-LABEL: func.func private @f_grad_k
// LOWER: arith.mulf

// ROUND-LABEL: func.func @f_grad
// ROUND: toy.square
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %s = toy.square %x : tensor<3xf32>
  %p = graph.mul %s, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = graph.reduce_sum %p {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  func.return %l : tensor<f32>
}
