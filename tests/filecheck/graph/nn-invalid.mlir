// RUN: graph-opt --split-input-file --verify-diagnostics %s -o /dev/null

// One case per verifier error of the CNN and normalization ops (graph.window,
// graph.normalization). Each error is reported at the failing op's line and column.

// Conv2d input of rank 3.
func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: input must have rank 4 (NCHW), got 3x8x8xf32}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d weight of rank 2.
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: weight must have rank 4 (NCHW), got 4x3xf32}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d zero stride.
func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: strides must be 2 positive ints, got [1, 0]}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 0>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d with two pads instead of four.
func.func @conv_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{graph.conv2d: padding must be 4 non-negative ints (top, left, bottom, right), got [1, 1]}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// Conv2d negative pad.
func.func @conv_negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: padding must be 4 non-negative ints (top, left, bottom, right), got [0, -1, 0, 0]}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d zero dilation.
func.func @conv_dilations(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: dilations must be 2 positive ints, got [0, 1]}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 0, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d element types.
func.func @conv_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf64>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: element types differ (f32 vs f64)}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf64>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d integer element type.
func.func @conv_integer(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32> {
  // expected-error @+1 {{graph.conv2d: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  func.return %r : tensor<1x4x6x6xi32>
}

// -----

// Conv2d zero groups.
func.func @conv_zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: groups must be positive, got 0}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// Conv2d channels not divisible by groups.
func.func @conv_group_divisibility(%x: tensor<1x6x8x8xf32>, %w: tensor<3x3x3x3xf32>) -> tensor<1x3x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: input channels 6 and output channels 3 must both be divisible by groups 2 (input 1x6x8x8, weight 3x3x3x3)}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x6x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x6x6xf32>
  func.return %r : tensor<1x3x6x6xf32>
}

// -----

// Conv2d weight channels per group.
func.func @conv_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{graph.conv2d: weight has 4 input channels per group, expected 2 = 4 / groups 2 (input 1x4x8x8, weight 6x4x3x3)}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  func.return %r : tensor<1x6x6x6xf32>
}

// -----

// Conv2d empty kernel.
func.func @conv_empty_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x0x3xf32>) -> tensor<1x4x8x6xf32> {
  // expected-error @+1 {{graph.conv2d: empty kernel (input 1x3x8x8, weight 4x3x0x3)}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x0x3xf32>) -> tensor<1x4x8x6xf32>
  func.return %r : tensor<1x4x8x6xf32>
}

// -----

// Conv2d dilated kernel larger than the padded input.
func.func @conv_kernel_fits(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{graph.conv2d: kernel 3x3 (dilated extent 5) does not fit in the padded input 4x4 (padded size 4 on axis 2)}}
  %r = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  func.return %r : tensor<1x4x1x1xf32>
}

// -----

// Conv2d wrong result type.
func.func @conv_result_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{graph.conv2d: result type tensor<1x4x8x8xf32> does not match the inferred type tensor<1x4x4x4xf32>}}
  %r = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// Max pool kernel of three ints.
func.func @pool_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{graph.max_pool2d: kernel must be 2 positive ints, got [2, 2, 2]}}
  %r = graph.max_pool2d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  func.return %r : tensor<1x3x4x4xf32>
}

// -----

// Max pool input of rank 2.
func.func @pool_rank(%x: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{graph.max_pool2d: input must have rank 4 (NCHW), got 8x8xf32}}
  %r = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}

// -----

// Max pool pad as large as the kernel (a window could be all padding).
func.func @pool_pad(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x5xf32> {
  // expected-error @+1 {{graph.max_pool2d: padding [0, 2, 0, 0] must be smaller than the kernel 2x2 on each axis}}
  %r = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 2, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x5xf32>
  func.return %r : tensor<1x3x4x5xf32>
}

// -----

// Avg pool zero stride.
func.func @avg_pool_strides(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{graph.avg_pool2d: strides must be 2 positive ints, got [0, 0]}}
  %r = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 0>, padding = array<i64: 0, 0, 0, 0>, count_include_pad} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  func.return %r : tensor<1x3x4x4xf32>
}

// -----

// Avg pool kernel larger than the input.
func.func @avg_pool_fits(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x1xf32> {
  // expected-error @+1 {{graph.avg_pool2d: kernel 3x9 (dilated extent 9) does not fit in the padded input 8x8 (padded size 8 on axis 3)}}
  %r = graph.avg_pool2d %x {kernel = array<i64: 3, 9>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x1xf32>
  func.return %r : tensor<1x3x6x1xf32>
}

// -----

// Avg pool wrong result type.
func.func @avg_pool_result(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{graph.avg_pool2d: result type tensor<1x3x4x4xf32> does not match the inferred type tensor<1x3x7x7xf32>}}
  %r = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  func.return %r : tensor<1x3x4x4xf32>
}

// -----

// Global avg pool of rank 2.
func.func @global_pool_rank(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{graph.global_avg_pool: input must have rank >= 3 (N, C, spatial...), got 2x3xf32}}
  %r = graph.global_avg_pool %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Global avg pool of an empty spatial axis.
func.func @global_pool_empty(%x: tensor<2x3x0x4xf32>) -> tensor<2x3x1x1xf32> {
  // expected-error @+1 {{graph.global_avg_pool: empty spatial axis in 2x3x0x4xf32}}
  %r = graph.global_avg_pool %x : (tensor<2x3x0x4xf32>) -> tensor<2x3x1x1xf32>
  func.return %r : tensor<2x3x1x1xf32>
}

// -----

// Batch norm of rank 1.
func.func @bn_rank(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.batch_norm: input must have rank >= 2 (N, C, ...), got 4xf32}}
  %r = graph.batch_norm %x, %p, %p, %p, %p {eps = 1.0e-05 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Batch norm variance of the wrong size.
func.func @bn_param_shape(%x: tensor<2x4x3x3xf32>, %p: tensor<4xf32>, %v: tensor<3xf32>) -> tensor<2x4x3x3xf32> {
  // expected-error @+1 {{graph.batch_norm: var must have shape 4 (the channels of 2x4x3x3), got 3}}
  %r = graph.batch_norm %x, %p, %p, %p, %v {eps = 1.0e-05 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  func.return %r : tensor<2x4x3x3xf32>
}

// -----

// Batch norm element types.
func.func @bn_element_types(%x: tensor<2x4xf32>, %s: tensor<4xf64>, %p: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{graph.batch_norm: element types differ (operand #0 is f32, operand #1 is f64)}}
  %r = graph.batch_norm %x, %s, %p, %p, %p {eps = 1.0e-05 : f64} : (tensor<2x4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// Batch norm negative eps.
func.func @bn_eps(%x: tensor<2x4xf32>, %p: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{graph.batch_norm: eps must be >= 0, got -0.001}}
  %r = graph.batch_norm %x, %p, %p, %p, %p {eps = -1.0e-03 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// Training batch norm momentum out of [0, 1].
func.func @bn_train_momentum(%x: tensor<2x4xf32>, %p: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{graph.batch_norm_train: momentum must be in [0, 1], got 1.5}}
  %r:3 = graph.batch_norm_train %x, %p, %p {eps = 1.0e-05 : f64, momentum = 1.5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  func.return %r#0 : tensor<2x4xf32>
}

// -----

// Training batch norm of an empty batch.
func.func @bn_train_empty(%x: tensor<0x4xf32>, %p: tensor<4xf32>) -> tensor<0x4xf32> {
  // expected-error @+1 {{graph.batch_norm_train: empty batch (0x4)}}
  %r:3 = graph.batch_norm_train %x, %p, %p {eps = 1.0e-05 : f64, momentum = 0.9 : f64} : (tensor<0x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<0x4xf32>, tensor<4xf32>, tensor<4xf32>)
  func.return %r#0 : tensor<0x4xf32>
}

// -----

// Training batch norm statistics of the wrong size.
func.func @bn_train_results(%x: tensor<2x4xf32>, %p: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{graph.batch_norm_train: result type tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32> does not match the inferred type tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>}}
  %r:3 = graph.batch_norm_train %x, %p, %p {eps = 1.0e-05 : f64, momentum = 0.9 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>)
  func.return %r#0 : tensor<2x4xf32>
}

// -----

// Layer norm axis out of range.
func.func @ln_axis(%x: tensor<2x4xf32>, %p: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{graph.layer_norm: axis 2 is out of range for rank 2}}
  %r = graph.layer_norm %x, %p, %p {axis = 2 : i64, eps = 1.0e-05 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// Layer norm of a 0-d tensor.
func.func @ln_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{graph.layer_norm: input must have rank >= 1, got f32}}
  %r = graph.layer_norm %x, %x, %x {axis = -1 : i64, eps = 1.0e-05 : f64} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// Layer norm bias that does not broadcast to the normalized shape.
func.func @ln_bias(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{graph.layer_norm: bias 2x8 does not broadcast to the normalized shape 8 of 2x8}}
  %r = graph.layer_norm %x, %s, %b {axis = -1 : i64, eps = 1.0e-05 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %r : tensor<2x8xf32>
}

// -----

// Layer norm over an empty axis.
func.func @ln_empty(%x: tensor<2x0xf32>, %p: tensor<0xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{graph.layer_norm: empty normalized axes (2x0, axis 1)}}
  %r = graph.layer_norm %x, %p, %p {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x0xf32>, tensor<0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
  func.return %r : tensor<2x0xf32>
}
