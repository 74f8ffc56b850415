// RUN: graph-opt --split-input-file --verify-diagnostics %s -o /dev/null

// One case per verifier error of the graph dialect. Each error is reported at
// the failing op's line and column.

func.func @matmul_inner(%a: tensor<8x16xf32>, %b: tensor<32x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{graph.matmul: inner dimensions differ (8x16 vs 32x4)}}
  %r = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.matmul: operands must have rank >= 2 (8 vs 8x4)}}
  %r = graph.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @matmul_types(%a: tensor<8x8xf32>, %b: tensor<8x4xf64>) -> tensor<8x4xf32> {
  // expected-error @+1 {{graph.matmul: element types differ (f32 vs f64)}}
  %r = graph.matmul %a, %b : (tensor<8x8xf32>, tensor<8x4xf64>) -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x8x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<3x8x4xf32> {
  // expected-error @+1 {{graph.matmul: shapes are not broadcastable (2 vs 3)}}
  %r = graph.matmul %a, %b : (tensor<2x8x8xf32>, tensor<3x8x4xf32>) -> tensor<3x8x4xf32>
  func.return %r : tensor<3x8x4xf32>
}

// -----

func.func @matmul_result(%a: tensor<8x8xf32>, %b: tensor<8x4xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{graph.matmul: result type tensor<8x8xf32> does not match the inferred type tensor<8x4xf32>}}
  %r = graph.matmul %a, %b : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// -----

func.func @add_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{graph.add: shapes are not broadcastable (4x3 vs 4)}}
  %r = graph.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @mul_types(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.mul: element types differ (f32 vs f64)}}
  %r = graph.mul %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// The result of a broadcast must be the broadcast shape, not an operand's.
func.func @sub_result(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.sub: result type tensor<3xf32> does not match the inferred type tensor<4x3xf32>}}
  %r = graph.sub %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @exp_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.exp: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.exp %a : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

func.func @neg_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{graph.neg: operand #0 has element type i1, expected one of f32, f64, i32, i64}}
  %r = graph.neg %a : tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

func.func @div_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.div: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

func.func @add_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{graph.add: operand #0 has element type i1, expected one of f32, f64, i32, i64}}
  %r = graph.add %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

func.func @reduce_mean_int(%a: tensor<4x3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{graph.reduce_mean: operand #0 has element type i32, expected one of f32, f64}}
  %r = graph.reduce_mean %a {axes = array<i64: 0>} : (tensor<4x3xi32>) -> tensor<3xi32>
  func.return %r : tensor<3xi32>
}

// -----

func.func @softmax_int(%a: tensor<4x3xi64>) -> tensor<4x3xi64> {
  // expected-error @+1 {{graph.softmax: operand #0 has element type i64, expected one of f32, f64}}
  %r = graph.softmax %a {axis = -1 : i64} : (tensor<4x3xi64>) -> tensor<4x3xi64>
  func.return %r : tensor<4x3xi64>
}

// -----

func.func @unsupported_element(%a: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{graph.exp: operand #0 has unsupported element type f16}}
  %r = graph.exp %a : tensor<4xf16>
  func.return %r : tensor<4xf16>
}

// -----

func.func @dynamic_unary(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{graph.exp: operand #0 must have a static shape, got tensor<?xf32>}}
  %r = graph.exp %a : tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

func.func @dynamic_binary(%a: tensor<4x3xf32>, %b: tensor<4x?xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{graph.add: operand #1 must have a static shape, got tensor<4x?xf32>}}
  %r = "graph.add"(%a, %b) : (tensor<4x3xf32>, tensor<4x?xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @dynamic_result(%a: tensor<4x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{graph.reshape: result #0 must have a static shape, got tensor<?xf32>}}
  %r = graph.reshape %a : (tensor<4x3xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

// Operands must be tensors (checked by the op's operand constraint).
func.func @memref_operand(%a: memref<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{memref<4xf32> should be of base attribute tensor}}
  %r = "graph.add"(%a, %b) : (memref<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// A unary op's result has its operand's type.
func.func @unary_result(%a: tensor<4x3xf32>) -> tensor<4x3xf64> {
  // expected-error @+1 {{attribute tensor<4x3xf32> expected from variable 'T', but got tensor<4x3xf64>}}
  %r = "graph.exp"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf64>
  func.return %r : tensor<4x3xf64>
}

// -----

func.func @transpose_repeated(%a: tensor<4x3xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{graph.transpose: perm [0, 0] is not a permutation of the 2 axes of 4x3}}
  %r = graph.transpose %a {perm = array<i64: 0, 0>} : (tensor<4x3xf32>) -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}

// -----

func.func @transpose_length(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{graph.transpose: perm [1, 0, 2] is not a permutation of the 2 axes of 4x3}}
  %r = graph.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

func.func @transpose_result(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{graph.transpose: result type tensor<4x3xf32> does not match the inferred type tensor<3x4xf32>}}
  %r = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @transpose_no_perm(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{property 'perm' expected in operation 'graph.transpose'}}
  %r = "graph.transpose"(%a) : (tensor<4x3xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

func.func @reshape_count(%a: tensor<4x3xf32>) -> tensor<5x2xf32> {
  // expected-error @+1 {{graph.reshape: element counts differ (4x3 has 12, 5x2 has 10)}}
  %r = graph.reshape %a : (tensor<4x3xf32>) -> tensor<5x2xf32>
  func.return %r : tensor<5x2xf32>
}

// -----

func.func @reshape_element(%a: tensor<4x3xf32>) -> tensor<12xi32> {
  // expected-error @+1 {{graph.reshape: result type tensor<12xi32> does not match the inferred type tensor<12xf32>}}
  %r = graph.reshape %a : (tensor<4x3xf32>) -> tensor<12xi32>
  func.return %r : tensor<12xi32>
}

// -----

func.func @reduce_axis_high(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.reduce_sum: axis 2 is out of range for rank 2}}
  %r = graph.reduce_sum %a {axes = array<i64: 2>} : (tensor<4x3xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @reduce_axis_low(%a: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.reduce_sum: axis -3 is out of range for rank 2}}
  %r = graph.reduce_sum %a {axes = array<i64: -3>} : (tensor<4x3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @reduce_repeated(%a: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.reduce_max: repeated axis in [0, -2]}}
  %r = graph.reduce_max %a {axes = array<i64: 0, -2>} : (tensor<4x3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @reduce_max_empty(%a: tensor<0x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.reduce_max: cannot reduce an empty axis}}
  %r = graph.reduce_max %a {axes = array<i64: 0>} : (tensor<0x3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @reduce_keepdims(%a: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.reduce_sum: result type tensor<3xf32> does not match the inferred type tensor<1x3xf32>}}
  %r = graph.reduce_sum %a {axes = array<i64: 0>, keepdims} : (tensor<4x3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @reduce_no_keepdims(%a: tensor<4x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{graph.reduce_mean: result type tensor<1x3xf32> does not match the inferred type tensor<3xf32>}}
  %r = graph.reduce_mean %a {axes = array<i64: -2>} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  func.return %r : tensor<1x3xf32>
}

// -----

func.func @softmax_axis(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{graph.softmax: axis 2 is out of range for rank 2}}
  %r = graph.softmax %a {axis = 2 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @softmax_result(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{graph.softmax: result type tensor<3x4xf32> does not match the inferred type tensor<4x3xf32>}}
  %r = "graph.softmax"(%a) <{axis = 0 : i64}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

func.func @constant_neither() -> tensor<3xf32> {
  // expected-error @+1 {{graph.constant: exactly one of 'value' (dense) and 'splat' must be given}}
  %c = "graph.constant"() : () -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @constant_both() -> tensor<3xf32> {
  // expected-error @+1 {{graph.constant: exactly one of 'value' (dense) and 'splat' must be given}}
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>, splat = 1.0 : f32}> : () -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @constant_splat_type(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{graph.constant: splat value type f64 does not match element type f32}}
  %c = "graph.constant"() <{splat = 1.0 : f64}> : () -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @constant_splat_int_type() -> tensor<3xi1> {
  // expected-error @+1 {{graph.constant: splat value type i32 does not match element type i1}}
  %c = "graph.constant"() <{splat = 1 : i32}> : () -> tensor<3xi1>
  func.return %c : tensor<3xi1>
}

// -----

func.func @constant_dense_type() -> tensor<3xf32> {
  // expected-error @+1 {{graph.constant: result type tensor<3xf32> does not match the inferred type tensor<2xf32>}}
  %c = "graph.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @constant_f16() -> tensor<2xf16> {
  // expected-error @+1 {{graph.constant: result #0 has unsupported element type f16}}
  %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf16>
  func.return %c : tensor<2xf16>
}
