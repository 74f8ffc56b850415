// RUN: graph-opt --split-input-file --print-diagnostics %s | filecheck %s

// Errors in the custom syntax of graph ops, reported at the offending token.

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 5]]:29
// CHECK-NEXT: {{^}}  %c = graph.constant splat 1.0 : f32
// CHECK-NEXT: {{^}}                            ^
// CHECK-NEXT: graph.constant: expected a tensor type, got f32
func.func @splat_not_tensor() -> tensor<3xf32> {
  %c = graph.constant splat 1.0 : f32
  func.return %c : tensor<3xf32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:29
// CHECK: graph.constant: splat 1.5 is not an integer for i32
func.func @splat_fraction_int() -> tensor<3xi32> {
  %c = graph.constant splat 1.5 : tensor<3xi32>
  func.return %c : tensor<3xi32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:29
// CHECK: graph.constant: unsupported element type f16
func.func @splat_f16() -> tensor<3xf16> {
  %c = graph.constant splat 1.5 : tensor<3xf16>
  func.return %c : tensor<3xf16>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:29
// CHECK: integer or float literal expected
func.func @splat_no_value() -> tensor<3xf32> {
  %c = graph.constant splat : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:23
// CHECK: graph.constant: expected 'splat <number> : <type>' or a dense tensor attribute such as 'dense<[1.0, 2.0]> : tensor<2xf32>'
func.func @constant_string() -> tensor<3xf32> {
  %c = graph.constant "abc" : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:23
// CHECK: graph.constant: expected 'splat <number> : <type>' or a dense tensor attribute
func.func @constant_vector() -> tensor<3xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0]> : vector<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

// The dense literal must fill its type.
// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 4]]:3
// CHECK: Shape mismatch in dense literal. Expected [3] shape from the type, but got [2] shape.
func.func @dense_count() -> tensor<3xf32> {
  %c = graph.constant dense<[1.0, 2.0]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

// The type after the colon is the result type of the custom form.
// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 4]]:15
// CHECK: operand is used with type tensor<8x4xf32>, but has been previously used or defined with type tensor<4x8xf32>
func.func @uses_declared_type(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:{{[0-9]+}}
// CHECK: Operation graph.frobnicate is not registered
func.func @unknown_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.frobnicate %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
