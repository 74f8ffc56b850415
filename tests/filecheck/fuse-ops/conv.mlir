// RUN: graph-opt -p fuse-ops %s | filecheck %s
// RUN: graph-opt -p 'fold-batch-norm,fuse-ops' %s | filecheck %s --check-prefix=FOLDED

// conv2d + bias + relu: the anchor takes its elementwise epilogue.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4x1x1xf32>)
// CHECK-NEXT:    %[[R:.*]] = fused.group "conv2d_add_relu" pattern(out_ewise_fusable) (%{{.*}} = %[[X]] : tensor<1x3x8x8xf32>, %{{.*}} = %[[W]] : tensor<4x3x3x3xf32>, %{{.*}} = %[[B]] : tensor<4x1x1xf32>) -> (tensor<1x4x8x8xf32>) {
// CHECK-NEXT:      graph.conv2d
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      fused.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %a = graph.add %c, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.relu %a : tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// conv2d + batch_norm + relu.  batch_norm is itself out_ewise_fusable, and a
// group holds one anchor: fuse-ops alone gives {conv2d}, {batch_norm, relu}.
// After fold-batch-norm (part of -O3) the batch_norm is a rescaled weight
// plus a bias add, and the whole chain is one group.
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK:         %[[C:.*]] = graph.conv2d
// CHECK-NEXT:    %[[R:.*]] = fused.group "batch_norm_relu" pattern(out_ewise_fusable) (%{{.*}} = %[[C]] : tensor<1x4x8x8xf32>,
// CHECK:         func.return %[[R]]
// FOLDED-LABEL: func.func @conv_bn_relu
// FOLDED:         %[[R:.*]] = fused.group "conv2d_add_relu" pattern(out_ewise_fusable)
// FOLDED-NOT:     graph.batch_norm
// FOLDED:         func.return %[[R]]
func.func @conv_bn_relu(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense<[[[[0.1, -0.2, 0.3], [0.0, 0.5, -0.1], [0.2, 0.2, -0.3]], [[0.4, 0.1, 0.0], [-0.2, 0.3, 0.1], [0.0, -0.1, 0.2]], [[0.1, 0.1, 0.1], [0.2, -0.4, 0.2], [0.0, 0.3, 0.0]]], [[[0.3, 0.0, -0.1], [0.1, 0.1, 0.1], [-0.2, 0.0, 0.4]], [[0.0, 0.2, 0.0], [0.3, -0.3, 0.3], [0.1, 0.0, -0.1]], [[-0.1, 0.2, 0.1], [0.0, 0.1, 0.0], [0.2, -0.2, 0.1]]], [[[0.2, 0.2, 0.2], [0.0, 0.0, 0.0], [-0.2, -0.2, -0.2]], [[0.1, 0.0, -0.1], [0.1, 0.0, -0.1], [0.1, 0.0, -0.1]], [[0.3, -0.1, 0.0], [0.0, 0.2, 0.1], [0.1, 0.0, 0.3]]], [[[0.0, 0.1, 0.0], [0.1, -0.4, 0.1], [0.0, 0.1, 0.0]], [[0.2, 0.0, 0.2], [0.0, 0.1, 0.0], [0.2, 0.0, 0.2]], [[-0.1, -0.1, 0.2], [0.3, 0.0, 0.0], [0.1, 0.2, -0.3]]]]> : tensor<4x3x3x3xf32>
  %scale = graph.constant dense<[1.5, 0.5, 1.0, 2.0]> : tensor<4xf32>
  %bias = graph.constant dense<[0.1, -0.2, 0.0, 0.3]> : tensor<4xf32>
  %mean = graph.constant dense<[0.0, 0.1, -0.1, 0.2]> : tensor<4xf32>
  %var = graph.constant dense<[1.0, 0.5, 2.0, 0.25]> : tensor<4xf32>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %n = graph.batch_norm %c, %scale, %bias, %mean, %var {eps = 1.0e-05 : f64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.relu %n : tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// A broadcast into a conv input must NOT fuse: nothing fuses into the input
// side of an out_ewise_fusable op (a TVM bug once did).  The bias add and
// relu before the conv form their own group.
// CHECK-LABEL: func.func @broadcast_into_conv
// CHECK:         %[[P:.*]] = fused.group "add_relu" pattern(broadcast)
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      fused.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[C:.*]] = graph.conv2d %[[P]], %{{.*}}
// CHECK-NEXT:    func.return %[[C]]
func.func @broadcast_into_conv(%x: tensor<1x3x8x8xf32>, %s: tensor<3x1x1xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %a = graph.add %x, %s : (tensor<1x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<1x3x8x8xf32>
  %r = graph.relu %a : tensor<1x3x8x8xf32>
  %c = graph.conv2d %r, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %c : tensor<1x4x6x6xf32>
}

// A broadcast op alone (broadcast_to) before a conv: still its own kernel.
// CHECK-LABEL: func.func @broadcast_to_into_conv
// CHECK:         %[[B:.*]] = graph.broadcast_to
// CHECK-NEXT:    %[[C:.*]] = graph.conv2d %[[B]], %{{.*}}
func.func @broadcast_to_into_conv(%x: tensor<1x1x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %b = graph.broadcast_to %x {shape = array<i64: 1, 3, 8, 8>} : (tensor<1x1x8x8xf32>) -> tensor<1x3x8x8xf32>
  %c = graph.conv2d %b, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %c : tensor<1x4x6x6xf32>
}
