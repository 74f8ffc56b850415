// RUN: graph-opt --split-input-file --verify-diagnostics %s -o /dev/null

// One case per verifier error of the tensor ops (graph.indexing, graph.layout,
// graph.fill). Each error is reported at the failing op's line and column.

// Concat with no operand.
func.func @concat_with_no_operand() -> tensor<2xf32> {
  // expected-error @+1 {{graph.concat: needs at least one operand}}
  %r = graph.concat {axis = 0 : i64} : () -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Concat element types.
func.func @concat_element_types(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.concat: element types differ (f32 vs f64)}}
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf64>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Concat ranks.
func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{graph.concat: ranks differ (2x3 vs 3)}}
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  func.return %r : tensor<5x3xf32>
}

// -----

// Concat 0-d.
func.func @concat_0_d(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{graph.concat: cannot concatenate 0-d tensors}}
  %r = graph.concat %a {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// Concat axis.
func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{graph.concat: axis 2 is out of range for rank 2}}
  %r = graph.concat %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Concat shapes.
func.func @concat_shapes(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{graph.concat: shapes differ outside axis -1 (2x3 vs 4x3)}}
  %r = graph.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Concat result.
func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{graph.concat: result type tensor<2x6xf32> does not match the inferred type tensor<4x3xf32>}}
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Split axis.
func.func @split_axis(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{graph.split: axis -3 is out of range for rank 2}}
  %r = graph.split %a {axis = -3 : i64, sizes = array<i64: 4>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

// Split no size.
func.func @split_no_size(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{graph.split: needs at least one size}}
  %r = graph.split %a {axis = 0 : i64, sizes = array<i64>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

// Split negative size.
func.func @split_negative_size(%a: tensor<4x6xf32>) -> tensor<5x6xf32> {
  // expected-error @+1 {{graph.split: negative size in [5, -1]}}
  %r:2 = graph.split %a {axis = 0 : i64, sizes = array<i64: 5, -1>} : (tensor<4x6xf32>) -> (tensor<5x6xf32>, tensor<4x6xf32>)
  func.return %r#0 : tensor<5x6xf32>
}

// -----

// Split sum.
func.func @split_sum(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{graph.split: sizes [2, 3] add up to 5, but axis 1 of 4x6 has 6}}
  %r:2 = graph.split %a {axis = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
  func.return %r#0 : tensor<4x2xf32>
}

// -----

// Split results: one result per size.
func.func @split_results(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{graph.split: 2 sizes need 2 results, got 1}}
  %r = graph.split %a {axis = 1 : i64, sizes = array<i64: 2, 4>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// -----

// Slice ends.
func.func @slice_ends(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{graph.slice: 2 starts but 1 ends}}
  %r = graph.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice axes.
func.func @slice_axes(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{graph.slice: 1 starts but 2 axes}}
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice steps.
func.func @slice_steps(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{graph.slice: 1 starts but 0 steps}}
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice too many starts.
func.func @slice_too_many_starts(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{graph.slice: 2 starts for the 1 axes of 4}}
  %r = graph.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Slice zero step.
func.func @slice_zero_step(%a: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{graph.slice: steps must not be 0 ([0])}}
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// -----

// Slice repeated axis.
func.func @slice_repeated_axis(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{graph.slice: repeated axis in [1, -1]}}
  %r = graph.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 2, 3>, axes = array<i64: 1, -1>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// -----

// Slice axis range.
func.func @slice_axis_range(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{graph.slice: axis 2 is out of range for rank 2}}
  %r = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

// Slice result: a clamped end.
func.func @slice_result(%a: tensor<4x6xf32>) -> tensor<99x6xf32> {
  // expected-error @+1 {{graph.slice: result type tensor<99x6xf32> does not match the inferred type tensor<3x6xf32>}}
  %r = graph.slice %a {starts = array<i64: 1>, ends = array<i64: 100>} : (tensor<4x6xf32>) -> tensor<99x6xf32>
  func.return %r : tensor<99x6xf32>
}

// -----

// Pad count.
func.func @pad_count(%a: tensor<4x6xf32>) -> tensor<6x6xf32> {
  // expected-error @+1 {{graph.pad: expected 4 pads for 4x6, got 2}}
  %r = graph.pad %a {pads = array<i64: 1, 1>, value = 0.0 : f64} : (tensor<4x6xf32>) -> tensor<6x6xf32>
  func.return %r : tensor<6x6xf32>
}

// -----

// Pad negative.
func.func @pad_negative(%a: tensor<4x6xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{graph.pad: pads must not be negative ([1, -1, 0, 0])}}
  %r = graph.pad %a {pads = array<i64: 1, -1, 0, 0>, value = 0.0 : f64} : (tensor<4x6xf32>) -> tensor<5x5xf32>
  func.return %r : tensor<5x5xf32>
}

// -----

// Pad value for an integer type.
func.func @pad_value_for_an_integer_type(%a: tensor<4xi32>) -> tensor<5xi32> {
  // expected-error @+1 {{graph.pad: value 0.5 cannot be represented in i32}}
  %r = graph.pad %a {pads = array<i64: 1, 0>, value = 0.5 : f64} : (tensor<4xi32>) -> tensor<5xi32>
  func.return %r : tensor<5xi32>
}

// -----

// Pad value for i1.
func.func @pad_value_for_i1(%a: tensor<4xi1>) -> tensor<5xi1> {
  // expected-error @+1 {{graph.pad: value 2.0 is not 0 or 1, as i1 needs}}
  %r = graph.pad %a {pads = array<i64: 1, 0>, value = 2.0 : f64} : (tensor<4xi1>) -> tensor<5xi1>
  func.return %r : tensor<5xi1>
}

// -----

// Pad result.
func.func @pad_result(%a: tensor<4x6xf32>) -> tensor<5x6xf32> {
  // expected-error @+1 {{graph.pad: result type tensor<5x6xf32> does not match the inferred type tensor<5x8xf32>}}
  %r = graph.pad %a {pads = array<i64: 1, 0, 0, 2>, value = 0.0 : f64} : (tensor<4x6xf32>) -> tensor<5x6xf32>
  func.return %r : tensor<5x6xf32>
}

// -----

// Broadcast_to.
func.func @broadcast_to(%a: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{graph.broadcast_to: cannot broadcast 3x4 to 2x4}}
  %r = graph.broadcast_to %a : (tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// Broadcast_to a lower rank.
func.func @broadcast_to_a_lower_rank(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.broadcast_to: cannot broadcast 3x4 to 4}}
  %r = graph.broadcast_to %a : (tensor<3x4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Expand_dims axis: axes index the result.
func.func @expand_dims_axis(%a: tensor<3xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{graph.expand_dims: axis 2 is out of range for rank 2}}
  %r = graph.expand_dims %a {axes = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x1xf32>
  func.return %r : tensor<3x1xf32>
}

// -----

// Expand_dims repeated axis.
func.func @expand_dims_repeated_axis(%a: tensor<3xf32>) -> tensor<1x1x3xf32> {
  // expected-error @+1 {{graph.expand_dims: repeated axis in [0, -3]}}
  %r = graph.expand_dims %a {axes = array<i64: 0, -3>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  func.return %r : tensor<1x1x3xf32>
}

// -----

// Squeeze a non-unit axis.
func.func @squeeze_a_non_unit_axis(%a: tensor<1x3xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{graph.squeeze: axis -1 of 1x3 has size 3, not 1}}
  %r = graph.squeeze %a {axes = array<i64: -1>} : (tensor<1x3xf32>) -> tensor<1xf32>
  func.return %r : tensor<1xf32>
}

// -----

// Squeeze result: no axes drops every unit axis.
func.func @squeeze_result(%a: tensor<1x3x1xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{graph.squeeze: result type tensor<3x1xf32> does not match the inferred type tensor<3xf32>}}
  %r = graph.squeeze %a : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  func.return %r : tensor<3x1xf32>
}

// -----

// Flatten axis.
func.func @flatten_axis(%a: tensor<2x3xf32>) -> tensor<6x1xf32> {
  // expected-error @+1 {{graph.flatten: axis 3 is out of range [-2, 2]}}
  %r = graph.flatten %a {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  func.return %r : tensor<6x1xf32>
}

// -----

// Flatten result.
func.func @flatten_result(%a: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // expected-error @+1 {{graph.flatten: result type tensor<2x12xf32> does not match the inferred type tensor<6x4xf32>}}
  %r = graph.flatten %a {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  func.return %r : tensor<2x12xf32>
}

// -----

// Gather index type.
func.func @gather_index_type(%a: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{graph.gather: indices must have element type i64, got i32}}
  %r = graph.gather %a, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Gather from 0-d.
func.func @gather_from_0_d(%a: tensor<f32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{graph.gather: cannot gather from a 0-d tensor}}
  %r = graph.gather %a, %i {axis = 0 : i64} : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Gather from an empty axis.
func.func @gather_from_an_empty_axis(%a: tensor<0x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{graph.gather: axis 0 of 0x3 is empty, nothing to gather}}
  %r = graph.gather %a, %i {axis = 0 : i64} : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Gather axis.
func.func @gather_axis(%a: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{graph.gather: axis -3 is out of range for rank 2}}
  %r = graph.gather %a, %i {axis = -3 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// Gather result.
func.func @gather_result(%a: tensor<5x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{graph.gather: result type tensor<2x2x3xf32> does not match the inferred type tensor<5x2x2xf32>}}
  %r = graph.gather %a, %i {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
  func.return %r : tensor<2x2x3xf32>
}

// -----

// Fill negative dim.
func.func @fill_negative_dim() -> tensor<1x2xf32> {
  // expected-error @+1 {{graph.fill: negative dimension in shape [-1, 2]}}
  %r = graph.fill {shape = array<i64: -1, 2>, value = 0.0 : f64} : tensor<1x2xf32>
  func.return %r : tensor<1x2xf32>
}

// -----

// Fill value.
func.func @fill_value() -> tensor<2xi32> {
  // expected-error @+1 {{graph.fill: value 3000000000.0 cannot be represented in i32}}
  %r = graph.fill {shape = array<i64: 2>, value = 3.0e+09 : f64} : tensor<2xi32>
  func.return %r : tensor<2xi32>
}

// -----

// Fill shape.
func.func @fill_shape() -> tensor<3x2xf32> {
  // expected-error @+1 {{graph.fill: result type tensor<3x2xf32> does not match the inferred type tensor<2x3xf32>}}
  %r = graph.fill {shape = array<i64: 2, 3>, value = 1.0 : f64} : tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

// Dropout rate.
func.func @dropout_rate(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.dropout: rate 1.0 is not in [0, 1)}}
  %r = graph.dropout %a {rate = 1.0 : f64, seed = 0 : i64, training} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Dropout element type.
func.func @dropout_element_type(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.dropout: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.dropout %a {rate = 0.5 : f64, seed = 0 : i64} : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

// Copy device.
func.func @copy_device(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.copy: device must not be empty}}
  %r = graph.copy %a {device = ""} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
