// A wrong, a missing or an unexpected diagnostic fails --verify-diagnostics
// with exit status 1 and says which.
// RUN: not graph-opt --split-input-file --verify-diagnostics %s -o /dev/null 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// A wrong message: the real error is unexpected, the annotation is unmet.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:6: error: expected error "inner dimensions agree" was not produced
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: unexpected error: graph.matmul: inner dimensions differ (8x16 vs 32x4)
func.func @wrong_text(%a: tensor<8x16xf32>, %b: tensor<32x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{inner dimensions agree}}
  %r = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

// The right message on the wrong line.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:6: error: expected error "shapes are not broadcastable" was not produced
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: unexpected error: graph.add: shapes are not broadcastable
func.func @wrong_line(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{shapes are not broadcastable}}
  %r = graph.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

// An annotation on valid IR.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:6: error: expected error "never happens" was not produced
func.func @missing(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.exp %a : tensor<4xf32>
  // expected-error @above {{never happens}}
  func.return %r : tensor<4xf32>
}

// -----

// A warning is not an error.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: unexpected error: graph.mul: element types differ
// CHECK: error: expected warning "element types differ" was not produced
func.func @severity(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  %r = graph.mul %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32> // expected-warning {{element types differ}}
  func.return %r : tensor<4xf32>
}
// CHECK-NOT: error:
