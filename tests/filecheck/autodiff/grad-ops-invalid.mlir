// RUN: %verify-errors

// Verifier errors of the gradient ops, reported at the failing op.

// CHECK: {{.*}}grad-ops-invalid.mlir:[[# @LINE + 2]]:3: error: graph.add_n: operands must all have one type (4xf32 vs 3xf32)
func.func @add_n_types(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  %s = graph.add_n %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// CHECK: {{.*}}grad-ops-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice_grad: 3 elements from 1 by 3 do not fit in 4x6
func.func @slice_grad_range(%s: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %b = graph.slice_grad %s {shape = array<i64: 4, 6>, firsts = array<i64: 0, 1>, steps = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
  func.return %b : tensor<4x6xf32>
}

// -----

// CHECK: {{.*}}grad-ops-invalid.mlir:[[# @LINE + 2]]:3: error: graph.conv2d_grad_input: shapes do not match (grad 1x3x3x3, weight 3x2x3x3, input 1x4x6x6, groups 1)
func.func @conv_grad_shapes(%g: tensor<1x3x3x3xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %d = graph.conv2d_grad_input %g, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, shape = array<i64: 1, 4, 6, 6>, groups = 1 : i64} : (tensor<1x3x3x3xf32>, tensor<3x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %d : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{.*}}grad-ops-invalid.mlir:[[# @LINE + 2]]:3: error: graph.max_pool2d_grad: strides must be 2 positive ints
func.func @pool_grad_strides(%x: tensor<1x2x4x4xf32>, %g: tensor<1x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %d = graph.max_pool2d_grad %x, %g {strides = array<i64: 0, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  func.return %d : tensor<1x2x4x4xf32>
}
