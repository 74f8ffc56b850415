// RUN: graph-opt --split-input-file --verify-diagnostics %s -o /dev/null

// One case per verifier error of the math ops (graph.elementwise, graph.reduce).
// Each error is reported at the failing op's line and column.

// Clip with a NaN bound.
func.func @clip_nan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.clip: bounds must not be NaN (min nan, max 1.0)}}
  %r = graph.clip %x {min = 0x7FF8000000000000 : f64, max = 1.0 : f64} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Clip with min above max.
func.func @clip_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.clip: min 2.0 is greater than max 1.0}}
  %r = graph.clip %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Clip of an integer tensor with a fractional bound.
func.func @clip_int_bound(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.clip: min 0.5 must be a whole number for an i32 input}}
  %r = graph.clip %x {min = 0.5 : f64, max = 3.0 : f64} : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

// Leaky relu is defined on floats only.
func.func @leaky_relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.leaky_relu: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.leaky_relu %x {alpha = 0.1 : f64} : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

// Gelu on integers.
func.func @gelu_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{graph.gelu: operand #0 has element type i64, expected one of f32, f64}}
  %r = graph.gelu %x : tensor<4xi64>
  func.return %r : tensor<4xi64>
}

// -----

// Pow is defined on floats only.
func.func @pow_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.pow: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

// Minimum of non-broadcastable shapes.
func.func @minimum_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{graph.minimum: shapes are not broadcastable (2x3 vs 4)}}
  %r = graph.minimum %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// A comparison yields i1, not the operand type.
func.func @greater_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.greater: result type tensor<4xf32> does not match the inferred type tensor<4xi1>}}
  %r = graph.greater %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Ordering comparisons do not take i1.
func.func @less_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{graph.less: operand #0 has element type i1, expected one of f32, f64, i32, i64}}
  %r = graph.less %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

// Equal of differing element types.
func.func @equal_types(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @+1 {{graph.equal: element types differ (i32 vs i64)}}
  %r = graph.equal %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

// Where needs an i1 condition.
func.func @where_cond(%c: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.where: condition must have element type i1, got f32}}
  %r = graph.where %c, %a, %b : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Where of differing element types.
func.func @where_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.where: element types differ (f32 vs f64)}}
  %r = graph.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Where of non-broadcastable shapes.
func.func @where_shapes(%c: tensor<3x1xi1>, %a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{graph.where: shapes are not broadcastable (3x1 vs 4 vs 5)}}
  %r = graph.where %c, %a, %b : (tensor<3x1xi1>, tensor<4xf32>, tensor<5xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

// Where with a wrong result shape.
func.func @where_result(%c: tensor<3x1xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.where: result type tensor<4xf32> does not match the inferred type tensor<3x4xf32>}}
  %r = graph.where %c, %a, %b : (tensor<3x1xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Cast keeps the shape.
func.func @cast_shape(%x: tensor<2x3xf32>) -> tensor<3x2xi32> {
  // expected-error @+1 {{graph.cast: result shape differs from the input shape (3x2 vs 2x3)}}
  %r = graph.cast %x : (tensor<2x3xf32>) -> tensor<3x2xi32>
  func.return %r : tensor<3x2xi32>
}

// -----

// Cast to an unsupported element type.
func.func @cast_f16(%x: tensor<2x3xf32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{graph.cast: result #0 has unsupported element type f16}}
  %r = graph.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  func.return %r : tensor<2x3xf16>
}

// -----

// Reduce_min of an empty axis.
func.func @reduce_min_empty(%x: tensor<3x0xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.reduce_min: cannot reduce an empty axis (3x0)}}
  %r = graph.reduce_min %x {axes = array<i64: 1>} : (tensor<3x0xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

// Reduce_prod with an axis out of range.
func.func @reduce_prod_axis(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.reduce_prod: axis 2 is out of range for rank 2}}
  %r = graph.reduce_prod %x {axes = array<i64: 2>} : (tensor<3x4xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

// Argmax of an empty axis.
func.func @argmax_empty(%x: tensor<3x0xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{graph.argmax: cannot take the argmax of an empty axis (axis -1 of 3x0)}}
  %r = graph.argmax %x {axis = -1 : i64} : (tensor<3x0xf32>) -> tensor<3xi64>
  func.return %r : tensor<3xi64>
}

// -----

// Argmax with an axis out of range.
func.func @argmax_axis(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{graph.argmax: axis -3 is out of range for rank 2}}
  %r = graph.argmax %x {axis = -3 : i64} : (tensor<3x4xf32>) -> tensor<3xi64>
  func.return %r : tensor<3xi64>
}

// -----

// Argmax yields i64.
func.func @argmax_result(%x: tensor<3x4xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{graph.argmax: result type tensor<3xi32> does not match the inferred type tensor<3xi64>}}
  %r = graph.argmax %x {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xi32>
  func.return %r : tensor<3xi32>
}

// -----

// Log_softmax over an empty axis.
func.func @log_softmax_empty(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  // expected-error @+1 {{graph.log_softmax: cannot normalize over an empty axis (axis 1 of 3x0)}}
  %r = graph.log_softmax %x {axis = 1 : i64} : (tensor<3x0xf32>) -> tensor<3x0xf32>
  func.return %r : tensor<3x0xf32>
}

// -----

// Log_softmax with an axis out of range.
func.func @log_softmax_axis(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{graph.log_softmax: axis 2 is out of range for rank 2}}
  %r = graph.log_softmax %x {axis = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

// Log_softmax on integers.
func.func @log_softmax_int(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
  // expected-error @+1 {{graph.log_softmax: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.log_softmax %x {axis = 1 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi32>
  func.return %r : tensor<3x4xi32>
}

// -----

// Softmax over an empty axis.
func.func @softmax_empty(%x: tensor<2x0xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{graph.softmax: cannot normalize over an empty axis (axis -1 of 2x0)}}
  %r = graph.softmax %x {axis = -1 : i64} : (tensor<2x0xf32>) -> tensor<2x0xf32>
  func.return %r : tensor<2x0xf32>
}
