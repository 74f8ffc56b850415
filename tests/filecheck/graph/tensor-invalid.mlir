// RUN: %verify-errors

// One case per verifier error of the tensor ops (graph_tensor, graph_shape,
// graph_fill). Each error is reported at the failing op's line and column.

// Concat with no operand.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: needs at least one operand
func.func @concat_with_no_operand() -> tensor<2xf32> {
  %r = graph.concat {axis = 0 : i64} : () -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Concat element types.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: element types differ (f32 vs f64)
func.func @concat_element_types(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<4xf32> {
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf64>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Concat ranks.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: ranks differ (2x3 vs 3)
func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  func.return %r : tensor<5x3xf32>
}

// -----

// Concat 0-d.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: cannot concatenate 0-d tensors
func.func @concat_0_d(%a: tensor<f32>) -> tensor<f32> {
  %r = graph.concat %a {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// Concat axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: axis 2 is out of range for rank 2
func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = graph.concat %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Concat shapes.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: shapes differ outside axis -1 (2x3 vs 4x3)
func.func @concat_shapes(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x6xf32> {
  %r = graph.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Concat result.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.concat: result type tensor<2x6xf32> does not match the inferred type tensor<4x3xf32>
func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Split axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.split: axis -3 is out of range for rank 2
func.func @split_axis(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = graph.split %a {axis = -3 : i64, sizes = array<i64: 4>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

// Split no size.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.split: needs at least one size
func.func @split_no_size(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = graph.split %a {axis = 0 : i64, sizes = array<i64>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

// Split negative size.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.split: negative size in [5, -1]
func.func @split_negative_size(%a: tensor<4x6xf32>) -> tensor<5x6xf32> {
  %r:2 = graph.split %a {axis = 0 : i64, sizes = array<i64: 5, -1>} : (tensor<4x6xf32>) -> (tensor<5x6xf32>, tensor<4x6xf32>)
  func.return %r#0 : tensor<5x6xf32>
}

// -----

// Split sum.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.split: sizes [2, 3] add up to 5, but axis 1 of 4x6 has 6
func.func @split_sum(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %r:2 = graph.split %a {axis = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
  func.return %r#0 : tensor<4x2xf32>
}

// -----

// Split results: one result per size.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.split: 2 sizes need 2 results, got 1
func.func @split_results(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %r = graph.split %a {axis = 1 : i64, sizes = array<i64: 2, 4>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// -----

// Slice ends.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: 2 starts but 1 ends
func.func @slice_ends(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  %r = graph.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice axes.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: 1 starts but 2 axes
func.func @slice_axes(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice steps.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: 1 starts but 0 steps
func.func @slice_steps(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice too many starts.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: 2 starts for the 1 axes of 4
func.func @slice_too_many_starts(%a: tensor<4xf32>) -> tensor<2xf32> {
  %r = graph.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Slice zero step.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: steps must not be 0 ([0])
func.func @slice_zero_step(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice repeated axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: repeated axis in [1, -1]
func.func @slice_repeated_axis(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %r = graph.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 2, 3>, axes = array<i64: 1, -1>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// -----

// Slice axis range.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: axis 2 is out of range for rank 2
func.func @slice_axis_range(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

// Slice result: a clamped end.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.slice: result type tensor<99x6xf32> does not match the inferred type tensor<3x6xf32>
func.func @slice_result(%a: tensor<4x6xf32>) -> tensor<99x6xf32> {
  %r = graph.slice %a {starts = array<i64: 1>, ends = array<i64: 100>} : (tensor<4x6xf32>) -> tensor<99x6xf32>
  func.return %r : tensor<99x6xf32>
}

// -----

// Pad count.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.pad: expected 4 pads for 4x6, got 2
func.func @pad_count(%a: tensor<4x6xf32>) -> tensor<6x6xf32> {
  %r = graph.pad %a {pads = array<i64: 1, 1>, value = 0.0 : f64} : (tensor<4x6xf32>) -> tensor<6x6xf32>
  func.return %r : tensor<6x6xf32>
}

// -----

// Pad negative.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.pad: pads must not be negative ([1, -1, 0, 0])
func.func @pad_negative(%a: tensor<4x6xf32>) -> tensor<5x5xf32> {
  %r = graph.pad %a {pads = array<i64: 1, -1, 0, 0>, value = 0.0 : f64} : (tensor<4x6xf32>) -> tensor<5x5xf32>
  func.return %r : tensor<5x5xf32>
}

// -----

// Pad value for an integer type.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.pad: value 0.5 cannot be represented in i32
func.func @pad_value_for_an_integer_type(%a: tensor<4xi32>) -> tensor<5xi32> {
  %r = graph.pad %a {pads = array<i64: 1, 0>, value = 0.5 : f64} : (tensor<4xi32>) -> tensor<5xi32>
  func.return %r : tensor<5xi32>
}

// -----

// Pad value for i1.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.pad: value 2.0 is not 0 or 1, as i1 needs
func.func @pad_value_for_i1(%a: tensor<4xi1>) -> tensor<5xi1> {
  %r = graph.pad %a {pads = array<i64: 1, 0>, value = 2.0 : f64} : (tensor<4xi1>) -> tensor<5xi1>
  func.return %r : tensor<5xi1>
}

// -----

// Pad result.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.pad: result type tensor<5x6xf32> does not match the inferred type tensor<5x8xf32>
func.func @pad_result(%a: tensor<4x6xf32>) -> tensor<5x6xf32> {
  %r = graph.pad %a {pads = array<i64: 1, 0, 0, 2>, value = 0.0 : f64} : (tensor<4x6xf32>) -> tensor<5x6xf32>
  func.return %r : tensor<5x6xf32>
}

// -----

// Broadcast_to.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.broadcast_to: cannot broadcast 3x4 to 2x4
func.func @broadcast_to(%a: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %r = graph.broadcast_to %a : (tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// Broadcast_to a lower rank.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.broadcast_to: cannot broadcast 3x4 to 4
func.func @broadcast_to_a_lower_rank(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  %r = graph.broadcast_to %a : (tensor<3x4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Expand_dims axis: axes index the result.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.expand_dims: axis 2 is out of range for rank 2
func.func @expand_dims_axis(%a: tensor<3xf32>) -> tensor<3x1xf32> {
  %r = graph.expand_dims %a {axes = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x1xf32>
  func.return %r : tensor<3x1xf32>
}

// -----

// Expand_dims repeated axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.expand_dims: repeated axis in [0, -3]
func.func @expand_dims_repeated_axis(%a: tensor<3xf32>) -> tensor<1x1x3xf32> {
  %r = graph.expand_dims %a {axes = array<i64: 0, -3>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  func.return %r : tensor<1x1x3xf32>
}

// -----

// Squeeze a non-unit axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.squeeze: axis -1 of 1x3 has size 3, not 1
func.func @squeeze_a_non_unit_axis(%a: tensor<1x3xf32>) -> tensor<1xf32> {
  %r = graph.squeeze %a {axes = array<i64: -1>} : (tensor<1x3xf32>) -> tensor<1xf32>
  func.return %r : tensor<1xf32>
}

// -----

// Squeeze result: no axes drops every unit axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.squeeze: result type tensor<3x1xf32> does not match the inferred type tensor<3xf32>
func.func @squeeze_result(%a: tensor<1x3x1xf32>) -> tensor<3x1xf32> {
  %r = graph.squeeze %a : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  func.return %r : tensor<3x1xf32>
}

// -----

// Flatten axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.flatten: axis 3 is out of range [-2, 2]
func.func @flatten_axis(%a: tensor<2x3xf32>) -> tensor<6x1xf32> {
  %r = graph.flatten %a {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  func.return %r : tensor<6x1xf32>
}

// -----

// Flatten result.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.flatten: result type tensor<2x12xf32> does not match the inferred type tensor<6x4xf32>
func.func @flatten_result(%a: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %r = graph.flatten %a {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  func.return %r : tensor<2x12xf32>
}

// -----

// Gather index type.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.gather: indices must have element type i64, got i32
func.func @gather_index_type(%a: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  %r = graph.gather %a, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Gather from 0-d.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.gather: cannot gather from a 0-d tensor
func.func @gather_from_0_d(%a: tensor<f32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %r = graph.gather %a, %i {axis = 0 : i64} : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Gather from an empty axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.gather: axis 0 of 0x3 is empty, nothing to gather
func.func @gather_from_an_empty_axis(%a: tensor<0x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %r = graph.gather %a, %i {axis = 0 : i64} : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Gather axis.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.gather: axis -3 is out of range for rank 2
func.func @gather_axis(%a: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %r = graph.gather %a, %i {axis = -3 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Gather result.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.gather: result type tensor<2x2x3xf32> does not match the inferred type tensor<5x2x2xf32>
func.func @gather_result(%a: tensor<5x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2x3xf32> {
  %r = graph.gather %a, %i {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
  func.return %r : tensor<2x2x3xf32>
}

// -----

// Fill negative dim.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.fill: negative dimension in shape [-1, 2]
func.func @fill_negative_dim() -> tensor<1x2xf32> {
  %r = graph.fill {shape = array<i64: -1, 2>, value = 0.0 : f64} : tensor<1x2xf32>
  func.return %r : tensor<1x2xf32>
}

// -----

// Fill value.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.fill: value 3000000000.0 cannot be represented in i32
func.func @fill_value() -> tensor<2xi32> {
  %r = graph.fill {shape = array<i64: 2>, value = 3.0e+09 : f64} : tensor<2xi32>
  func.return %r : tensor<2xi32>
}

// -----

// Fill shape.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.fill: result type tensor<3x2xf32> does not match the inferred type tensor<2x3xf32>
func.func @fill_shape() -> tensor<3x2xf32> {
  %r = graph.fill {shape = array<i64: 2, 3>, value = 1.0 : f64} : tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

// Dropout rate.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.dropout: rate 1.0 is not in [0, 1)
func.func @dropout_rate(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.dropout %a {rate = 1.0 : f64, seed = 0 : i64, training} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Dropout element type.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.dropout: operand #0 has element type i32, expected one of f32, f64
func.func @dropout_element_type(%a: tensor<4xi32>) -> tensor<4xi32> {
  %r = graph.dropout %a {rate = 0.5 : f64, seed = 0 : i64} : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

// Copy device.
// CHECK: {{.*}}tensor-invalid.mlir:[[# @LINE + 2]]:3: error: graph.copy: device must not be empty
func.func @copy_device(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.copy %a {device = ""} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
