// RUN: graph-opt %avx512 -p 'layout-nchwc{min-macs-per-reordered=0}' %s | filecheck %s
// RUN: graph-opt %avx512 -p layout-nchwc %s | filecheck %s --check-prefix=COST
// RUN: graph-opt %avx2 -p 'layout-nchwc{min-macs-per-reordered=0}' %s | filecheck %s --check-prefix=AVX2
// RUN: graph-opt --target-triple=x86_64-unknown-linux-gnu --target-cpu=x86-64 -p 'layout-nchwc{min-macs-per-reordered=0}' %s | filecheck %s --check-prefix=SSE

// The block is one vector register of f32: 16 channels with AVX-512 (the
// checks below), 8 with AVX2; a target without vector FMA (the x86-64
// baseline) runs no micro-kernel, so nothing is blocked.
// AVX2-LABEL: func.func @chain
// AVX2:       graph.reorder_nchwc %{{.*}} {block = 8 : i64}
// AVX2:       graph.conv2d_nchwc {{.*}} -> tensor<1x4x4x4x8xf32>
// AVX2:       graph.constant {{.*}} : tensor<4x1x1x8xf32>
// SSE-LABEL:  func.func @chain
// SSE-NOT:    graph.conv2d_nchwc
// SSE-NOT:    graph.reorder_nchwc
// SSE:        func.return

// A chain of two convs, a per-channel bias, relu and a residual add goes
// blocked: one reorder in, the bias re-laid out as [C/16, 1, 1, 16], one
// reorder back where the chain meets the return.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:  (%[[X:.*]]: tensor<1x32x4x4xf32>)
// CHECK:       %[[XB:.*]] = graph.reorder_nchwc %[[X]] {block = 16 : i64}
// CHECK:       %[[C0:.*]] = graph.conv2d_nchwc %[[XB]], %{{.*}} {{.*}} -> tensor<1x2x4x4x16xf32>
// CHECK:       %[[B:.*]] = graph.constant {{.*}} : tensor<2x1x1x16xf32>
// CHECK:       %[[S:.*]] = graph.add %[[C0]], %[[B]] : (tensor<1x2x4x4x16xf32>, tensor<2x1x1x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK:       %[[A:.*]] = graph.relu %[[S]] : tensor<1x2x4x4x16xf32>
// CHECK:       %[[C1:.*]] = graph.conv2d_nchwc %[[A]], %{{.*}} {{.*}} -> tensor<1x2x4x4x16xf32>
// CHECK:       %[[R:.*]] = graph.add %[[C1]], %[[XB]] : (tensor<1x2x4x4x16xf32>, tensor<1x2x4x4x16xf32>)
// CHECK:       %[[Y:.*]] = graph.reorder_nchw %[[R]] : (tensor<1x2x4x4x16xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NOT:   graph.conv2d {{.*}}
// CHECK:       func.return %[[Y]]
// COST-LABEL:  func.func @chain
// COST-NOT:    graph.conv2d_nchwc
func.func @chain(%x: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %w0 = graph.constant splat 0.5 : tensor<32x32x3x3xf32>
  %c0 = graph.conv2d %x, %w0 {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x4x4xf32>
  %b = graph.constant splat 0.25 : tensor<32x1x1xf32>
  %s = graph.add %c0, %b : (tensor<1x32x4x4xf32>, tensor<32x1x1xf32>) -> tensor<1x32x4x4xf32>
  %a = graph.relu %s : tensor<1x32x4x4xf32>
  %w1 = graph.constant splat 0.125 : tensor<32x32x1x1xf32>
  %c1 = graph.conv2d %a, %w1 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x4x4xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x4x4xf32>
  %r = graph.add %c1, %x : (tensor<1x32x4x4xf32>, tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  func.return %r : tensor<1x32x4x4xf32>
}

// A lone conv, a grouped one and one with 24 output channels stay NCHW.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:   graph.conv2d_nchwc
// CHECK-NOT:   graph.reorder
// CHECK:       func.return
func.func @unchanged(%x: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32>, tensor<1x24x4x4xf32>) {
  %w0 = graph.constant splat 0.5 : tensor<32x16x1x1xf32>
  %g = graph.conv2d %x, %w0 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x32x4x4xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
  %w1 = graph.constant splat 0.5 : tensor<32x32x1x1xf32>
  %c = graph.conv2d %g, %w1 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x4x4xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x4x4xf32>
  %w2 = graph.constant splat 0.5 : tensor<24x32x1x1xf32>
  %d = graph.conv2d %c, %w2 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x4x4xf32>, tensor<24x32x1x1xf32>) -> tensor<1x24x4x4xf32>
  func.return %c, %d : tensor<1x32x4x4xf32>, tensor<1x24x4x4xf32>
}

// A stem: the conv reads the 3-channel image as it is, the max-pool after
// it stays blocked, so no reorder comes in.
// CHECK-LABEL: func.func @stem
// CHECK-SAME:  (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NOT:   graph.reorder_nchwc
// CHECK:       %[[C0:.*]] = graph.conv2d_nchwc %[[X]], %{{.*}} {{.*}} -> tensor<1x1x4x4x16xf32>
// CHECK:       %[[P:.*]] = graph.max_pool2d_nchwc %[[C0]] {{.*}} : (tensor<1x1x4x4x16xf32>) -> tensor<1x1x2x2x16xf32>
// CHECK:       %[[C1:.*]] = graph.conv2d_nchwc %[[P]], %{{.*}} {{.*}} -> tensor<1x1x2x2x16xf32>
// CHECK:       %[[Y:.*]] = graph.reorder_nchw %[[C1]]
// CHECK:       func.return %[[Y]]
func.func @stem(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x2x2xf32> {
  %w0 = graph.constant splat 0.5 : tensor<16x3x3x3xf32>
  %c0 = graph.conv2d %x, %w0 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x4x4xf32>
  %p = graph.max_pool2d %c0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
  %w1 = graph.constant splat 0.5 : tensor<16x16x1x1xf32>
  %c1 = graph.conv2d %p, %w1 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x2x2xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x2x2xf32>
  func.return %c1 : tensor<1x16x2x2xf32>
}

// MobileNet's pattern: a pointwise conv, then a depthwise one (one channel a
// group) with relu6, blocked alike; the depthwise weight [32, 1, 3, 3] is
// re-laid out as the channels, [2, 3, 3, 16].
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME:  (%[[X:.*]]: tensor<1x32x6x6xf32>)
// CHECK:       %[[XB:.*]] = graph.reorder_nchwc %[[X]] {block = 16 : i64}
// CHECK:       %[[P:.*]] = graph.conv2d_nchwc %[[XB]], %{{.*}} {{.*}} -> tensor<1x2x6x6x16xf32>
// CHECK:       %[[W:.*]] = graph.constant splat 2.500000e-01 : tensor<2x3x3x16xf32>
// CHECK:       %[[D:.*]] = graph.depthwise_conv2d_nchwc %[[P]], %[[W]] {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x6x6x16xf32>, tensor<2x3x3x16xf32>) -> tensor<1x2x3x3x16xf32>
// CHECK:       %[[C:.*]] = graph.clip %[[D]] {{.*}} : tensor<1x2x3x3x16xf32>
// CHECK:       %[[Y:.*]] = graph.reorder_nchw %[[C]]
// CHECK:       func.return %[[Y]]
func.func @depthwise(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x3x3xf32> {
  %w0 = graph.constant splat 0.5 : tensor<32x32x1x1xf32>
  %p = graph.conv2d %x, %w0 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x6x6xf32>
  %w1 = graph.constant splat 0.25 : tensor<32x1x3x3xf32>
  %d = graph.conv2d %p, %w1 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 32 : i64} : (tensor<1x32x6x6xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x3x3xf32>
  %c = graph.clip %d {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x32x3x3xf32>
  func.return %c : tensor<1x32x3x3xf32>
}

// DenseNet's pattern: a batch norm whose per-channel scale the graph
// computes (here from a constant by a sqrt), relu, a conv, and a concat of
// the block's input and the conv along the channels: all blocked, the
// concat along the blocks of 16, the scale re-laid out as [2, 1, 1, 16] by
// a reshape and a transpose (fold-constants folds them later).
// CHECK-LABEL: func.func @dense
// CHECK-SAME:  (%[[X:.*]]: tensor<1x32x6x6xf32>)
// CHECK:       %[[XB:.*]] = graph.reorder_nchwc %[[X]] {block = 16 : i64}
// CHECK:       %[[A:.*]] = graph.conv2d_nchwc %[[XB]], %{{.*}} {{.*}} -> tensor<1x2x6x6x16xf32>
// CHECK:       %[[G:.*]] = graph.reshape %{{.*}} : (tensor<32x1x1xf32>) -> tensor<2x16x1x1xf32>
// CHECK-NEXT:  %[[T:.*]] = graph.transpose %[[G]] {{.*}} -> tensor<2x1x1x16xf32>
// CHECK-NEXT:  %[[S:.*]] = graph.mul %[[A]], %[[T]] : (tensor<1x2x6x6x16xf32>, tensor<2x1x1x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK:       %[[C:.*]] = graph.conv2d_nchwc %{{.*}}, %{{.*}} {{.*}} -> tensor<1x1x6x6x16xf32>
// CHECK:       %[[J:.*]] = graph.concat %[[A]], %[[C]] {axis = 1 : i64} : (tensor<1x2x6x6x16xf32>, tensor<1x1x6x6x16xf32>) -> tensor<1x3x6x6x16xf32>
// CHECK:       %[[D:.*]] = graph.conv2d_nchwc %[[J]], %{{.*}} {{.*}} -> tensor<1x2x6x6x16xf32>
// CHECK:       %[[Y:.*]] = graph.reorder_nchw %[[D]]
// CHECK:       func.return %[[Y]]
func.func @dense(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = graph.constant splat 0.125 : tensor<32x32x1x1xf32>
  %a = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x6x6xf32>
  %v = graph.constant splat 4.0 : tensor<32x1x1xf32>
  %s = graph.sqrt %v : tensor<32x1x1xf32>
  %m = graph.mul %a, %s : (tensor<1x32x6x6xf32>, tensor<32x1x1xf32>) -> tensor<1x32x6x6xf32>
  %r = graph.relu %m : tensor<1x32x6x6xf32>
  %w0 = graph.constant splat 0.5 : tensor<16x32x3x3xf32>
  %c = graph.conv2d %r, %w0 {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<16x32x3x3xf32>) -> tensor<1x16x6x6xf32>
  %j = graph.concat %a, %c {axis = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<1x16x6x6xf32>) -> tensor<1x48x6x6xf32>
  %w1 = graph.constant splat 0.25 : tensor<32x48x1x1xf32>
  %d = graph.conv2d %j, %w1 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x48x6x6xf32>, tensor<32x48x1x1xf32>) -> tensor<1x32x6x6xf32>
  func.return %d : tensor<1x32x6x6xf32>
}

// A strided 1x1 conv (ResNet's projection) reads its pixels through a
// slice of the blocked input, steps of the stride, and runs at stride 1.
// CHECK-LABEL: func.func @projection
// CHECK:       %[[A:.*]] = graph.conv2d_nchwc %{{.*}}, %{{.*}} {{.*}} -> tensor<1x2x7x7x16xf32>
// CHECK:       %[[S:.*]] = graph.slice %[[A]] {starts = array<i64: 0, 0>, ends = array<i64: 7, 7>, axes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<1x2x7x7x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK:       graph.conv2d_nchwc %[[S]], %{{.*}} {strides = array<i64: 1, 1>, {{.*}}} : (tensor<1x2x4x4x16xf32>, tensor<64x32x1x1xf32>) -> tensor<1x4x4x4x16xf32>
func.func @projection(%x: tensor<1x32x7x7xf32>) -> tensor<1x64x4x4xf32> {
  %w0 = graph.constant splat 0.5 : tensor<32x32x3x3xf32>
  %a = graph.conv2d %x, %w0 {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x7x7xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x7x7xf32>
  %w1 = graph.constant splat 0.25 : tensor<64x32x1x1xf32>
  %p = graph.conv2d %a, %w1 {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x7x7xf32>, tensor<64x32x1x1xf32>) -> tensor<1x64x4x4xf32>
  func.return %p : tensor<1x64x4x4xf32>
}
