// RUN: graph-opt -p 'autodiff{func=cnn}' %s | filecheck %s
// RUN: graph-opt -p 'autodiff{func=cnn}' %s | graph-opt | filecheck %s
// RUN: graph-opt -p 'autodiff{func=cnn}' %s -o %t.mlir
// RUN: graph-run %t.mlir --entry cnn_grad --check | filecheck %s --check-prefix=EXEC
// EXEC: check: OK (3 outputs match the reference)

// The backward ops of convolution and pooling carry the forward op's window.

func.func @cnn(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x1x1xf32> {
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %m = graph.max_pool2d %y {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x3x3x3xf32>) -> tensor<1x3x2x2xf32>
  %g = graph.global_avg_pool %m : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32>
  func.return %g : tensor<1x3x1x1xf32>
}

// CHECK-LABEL: func.func @cnn_grad
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x6xf32>, %[[W:.*]]: tensor<3x2x3x3xf32>, %[[HEAD:.*]]: tensor<1x3x1x1xf32>)
// CHECK: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]]
// The global pool's gradient: g / 4, broadcast over the window.
// CHECK: %[[Q:.*]] = graph.constant splat 2.500000e-01 : tensor<f32>
// CHECK: %[[S:.*]] = graph.mul %[[HEAD]], %[[Q]]
// CHECK: %[[B:.*]] = graph.broadcast_to %[[S]] : (tensor<1x3x1x1xf32>) -> tensor<1x3x2x2xf32>
// CHECK: %[[DY:.*]] = graph.max_pool2d_grad %[[Y]], %[[B]] {{{.*}}kernel = array<i64: 2, 2>{{.*}}} : (tensor<1x3x3x3xf32>, tensor<1x3x2x2xf32>) -> tensor<1x3x3x3xf32>
// CHECK: %[[DX:.*]] = graph.conv2d_grad_input %[[DY]], %[[W]] {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, shape = array<i64: 1, 2, 6, 6>, groups = 1 : i64}
// CHECK: %[[DW:.*]] = graph.conv2d_grad_filter %[[X]], %[[DY]] {{{.*}}kernel = array<i64: 3, 3>{{.*}}} : (tensor<1x2x6x6xf32>, tensor<1x3x3x3xf32>) -> tensor<3x2x3x3xf32>
// CHECK: func.return %{{.*}}, %[[DX]], %[[DW]]
