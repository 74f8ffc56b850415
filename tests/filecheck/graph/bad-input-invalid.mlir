// RUN: %verify-errors
// RUN: not graph-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=NOTB
// NOTB-NOT: Traceback
// NOTB-NOT: internal error

// Input that used to be accepted, or to fail later with an internal error,
// is one located diagnostic at verify time, naming the attribute written.

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 2]]:3: error: graph.reduce_sum: attribute 'axes' must be an array of integers (array<i64: ...>), got array<f32: ...>
func.func @float_axes(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = graph.reduce_sum %x {axes = array<f32: 1.0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 2]]:3: error: graph.transpose: attribute 'perm' must be an array of integers (array<i64: ...>), got array<f64: ...>
func.func @float_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = graph.transpose %x {perm = array<f64: 1.0, 0.0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 2]]:3: error: graph.conv2d: attribute 'strides' must be an array of integers (array<i64: ...>), got array<f32: ...>
func.func @float_strides(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %r = graph.conv2d %x, %w {strides = array<f32: 2.0, 2.0>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  func.return %r : tensor<1x1x3x3xf32>
}

// -----

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 2]]:3: error: graph.gather_grad: axis 0 of 0x2 is empty, nothing to scatter 3 indices into
func.func @scatter_into_empty_axis(%i: tensor<3xi64>, %g: tensor<3x2xf32>) -> tensor<0x2xf32> {
  %r = graph.gather_grad %i, %g {shape = array<i64: 0, 2>, axis = 0 : i64} : (tensor<3xi64>, tensor<3x2xf32>) -> tensor<0x2xf32>
  func.return %r : tensor<0x2xf32>
}

// -----

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 2]]:3: error: graph.exp: operand #0: dimension 99999999999999999999 of tensor<99999999999999999999xf32> does not fit in int64
func.func @huge_dim(%x: tensor<99999999999999999999xf32>) -> tensor<99999999999999999999xf32> {
  %r = graph.exp %x : tensor<99999999999999999999xf32>
  func.return %r : tensor<99999999999999999999xf32>
}

// -----

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 1]]:1: error: func.func @huge_dim_signature: argument #0: dimension 99999999999999999999 of tensor<99999999999999999999x2xf32> does not fit in int64
func.func @huge_dim_signature(%x: tensor<99999999999999999999x2xf32>) -> tensor<99999999999999999999x2xf32> {
  func.return %x : tensor<99999999999999999999x2xf32>
}

// -----

// CHECK: {{.*}}bad-input-invalid.mlir:[[# @LINE + 1]]:1: error: func.func @no_body: a function without a body is a declaration and must be private
func.func @no_body(%x: tensor<4xf32>) -> tensor<4xf32>
