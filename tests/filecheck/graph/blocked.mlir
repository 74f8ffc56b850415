// RUN: graph-opt %s | graph-opt | filecheck %s

// The NCHWc ops print and parse back.
// CHECK-LABEL: func.func @blocked
// CHECK-SAME:  (%[[X:.*]]: tensor<1x32x8x8xf32>, %[[W:.*]]: tensor<64x32x3x3xf32>, %[[S:.*]]: tensor<1x3x9x9xf32>, %[[V:.*]]: tensor<16x3x3x3xf32>)
// CHECK:       %[[B:.*]] = graph.reorder_nchwc %[[X]] {block = 16 : i64} : (tensor<1x32x8x8xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK:       %[[Y:.*]] = graph.conv2d_nchwc %[[B]], %[[W]] {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<1x2x8x8x16xf32>, tensor<64x32x3x3xf32>) -> tensor<1x4x8x8x16xf32>
// CHECK:       %[[Z:.*]] = graph.conv2d_nchwc %[[S]], %[[V]] {{.*}} : (tensor<1x3x9x9xf32>, tensor<16x3x3x3xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK:       %[[R:.*]] = graph.reorder_nchw %[[Y]] : (tensor<1x4x8x8x16xf32>) -> tensor<1x64x8x8xf32>
// CHECK:       func.return %[[R]], %[[Z]]
func.func @blocked(%x: tensor<1x32x8x8xf32>, %w: tensor<64x32x3x3xf32>, %s: tensor<1x3x9x9xf32>, %v: tensor<16x3x3x3xf32>) -> (tensor<1x64x8x8xf32>, tensor<1x1x4x4x16xf32>) {
  %b = graph.reorder_nchwc %x {block = 16 : i64} : (tensor<1x32x8x8xf32>) -> tensor<1x2x8x8x16xf32>
  %y = graph.conv2d_nchwc %b, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<1x2x8x8x16xf32>, tensor<64x32x3x3xf32>) -> tensor<1x4x8x8x16xf32>
  %z = graph.conv2d_nchwc %s, %v {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<1x3x9x9xf32>, tensor<16x3x3x3xf32>) -> tensor<1x1x4x4x16xf32>
  %r = graph.reorder_nchw %y : (tensor<1x4x8x8x16xf32>) -> tensor<1x64x8x8xf32>
  func.return %r, %z : tensor<1x64x8x8xf32>, tensor<1x1x4x4x16xf32>
}

// CHECK-LABEL: func.func @blocked_pool
// CHECK-SAME:  (%[[X:.*]]: tensor<1x4x8x8x16xf32>)
// CHECK:       graph.max_pool2d_nchwc %[[X]] {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8x16xf32>) -> tensor<1x4x4x4x16xf32>
func.func @blocked_pool(%x: tensor<1x4x8x8x16xf32>) -> tensor<1x4x4x4x16xf32> {
  %p = graph.max_pool2d_nchwc %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8x16xf32>) -> tensor<1x4x4x4x16xf32>
  func.return %p : tensor<1x4x4x4x16xf32>
}

// CHECK-LABEL: func.func @blocked_depthwise
// CHECK-SAME:  (%[[X:.*]]: tensor<1x2x8x8x16xf32>, %[[W:.*]]: tensor<2x3x3x16xf32>)
// CHECK:       graph.depthwise_conv2d_nchwc %[[X]], %[[W]] {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x3x3x16xf32>) -> tensor<1x2x4x4x16xf32>
func.func @blocked_depthwise(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x3x3x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %y = graph.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x3x3x16xf32>) -> tensor<1x2x4x4x16xf32>
  func.return %y : tensor<1x2x4x4x16xf32>
}
