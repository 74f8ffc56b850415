// RUN: graph-opt --split-input-file --verify-diagnostics %s -o /dev/null

// One case per verifier error of the NCHWc ops (graph.blocked).

func.func @reorder_channels(%x: tensor<1x24x4x4xf32>) -> tensor<1x1x4x4x16xf32> {
  // expected-error @+1 {{graph.reorder_nchwc: input channels 24 are not a multiple of block 16}}
  %b = graph.reorder_nchwc %x {block = 16 : i64} : (tensor<1x24x4x4xf32>) -> tensor<1x1x4x4x16xf32>
  func.return %b : tensor<1x1x4x4x16xf32>
}

// -----

func.func @reorder_rank(%x: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  // expected-error @+1 {{graph.reorder_nchw: input must have rank 5 (NCHWc), got 1x32x4x4xf32}}
  %b = graph.reorder_nchw %x : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  func.return %b : tensor<1x32x4x4xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x2x4x4x16xf32>, %w: tensor<16x16x1x1xf32>) -> tensor<1x1x4x4x16xf32> {
  // expected-error @+1 {{graph.conv2d_nchwc: weight 16x16x1x1 reads 16 input channels, the input has 32}}
  %y = graph.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<1x2x4x4x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x1x4x4x16xf32>
  func.return %y : tensor<1x1x4x4x16xf32>
}

// -----

func.func @conv_out_block(%x: tensor<1x2x4x4x16xf32>, %w: tensor<24x32x1x1xf32>) -> tensor<1x1x4x4x16xf32> {
  // expected-error @+1 {{graph.conv2d_nchwc: output channels 24 are not a multiple of block 16}}
  %y = graph.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<1x2x4x4x16xf32>, tensor<24x32x1x1xf32>) -> tensor<1x1x4x4x16xf32>
  func.return %y : tensor<1x1x4x4x16xf32>
}

// -----

func.func @conv_input_rank(%x: tensor<4x4x16xf32>, %w: tensor<16x16x1x1xf32>) -> tensor<1x1x4x4x16xf32> {
  // expected-error @+1 {{graph.conv2d_nchwc: input must have rank 4 (NCHW) or 5 (NCHWc), got 4x4x16xf32}}
  %y = graph.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<4x4x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x1x4x4x16xf32>
  func.return %y : tensor<1x1x4x4x16xf32>
}

// -----

func.func @pool_input_rank(%x: tensor<1x64x8x8xf32>) -> tensor<1x4x4x4x16xf32> {
  // expected-error @+1 {{graph.max_pool2d_nchwc: input must have rank 5 (NCHWc), got 1x64x8x8xf32}}
  %p = graph.max_pool2d_nchwc %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x8x8xf32>) -> tensor<1x4x4x4x16xf32>
  func.return %p : tensor<1x4x4x4x16xf32>
}

// -----

func.func @pool_padding(%x: tensor<1x4x8x8x16xf32>) -> tensor<1x4x5x5x16xf32> {
  // expected-error @+1 {{graph.max_pool2d_nchwc: padding [2, 2, 2, 2] must be smaller than the kernel [2, 2]}}
  %p = graph.max_pool2d_nchwc %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x4x8x8x16xf32>) -> tensor<1x4x5x5x16xf32>
  func.return %p : tensor<1x4x5x5x16xf32>
}

// -----

func.func @depthwise_weight(%x: tensor<1x2x8x8x16xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x2x8x8x16xf32> {
  // expected-error @+1 {{graph.depthwise_conv2d_nchwc: weight must be [2, KH, KW, 16] (the input's blocks), got 32x1x3x3xf32}}
  %y = graph.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<32x1x3x3xf32>) -> tensor<1x2x8x8x16xf32>
  func.return %y : tensor<1x2x8x8x16xf32>
}

// -----

func.func @depthwise_rank(%x: tensor<1x32x8x8xf32>, %w: tensor<2x3x3x16xf32>) -> tensor<1x2x8x8x16xf32> {
  // expected-error @+1 {{graph.depthwise_conv2d_nchwc: input must have rank 5 (NCHWc), got 1x32x8x8xf32}}
  %y = graph.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<2x3x3x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return %y : tensor<1x2x8x8x16xf32>
}
