// --verify-diagnostics as in mlir-opt: every diagnostic must be annotated
// with expected-error/warning/note/remark (@+N, @-N, @above, @below) and
// every annotation must be met.  A matching run exits 0.
// RUN: graph-opt --split-input-file --verify-diagnostics %s -o /dev/null
// RUN: graph-opt --split-input-file --verify-diagnostics -p 'fuse-ops{remarks=true}' %S/Inputs/remarks.mlir -o /dev/null
// RUN: graph-opt --verify-diagnostics -p plan-memory %S/Inputs/notes.mlir -o /dev/null

func.func @same_line(%a: tensor<8x16xf32>, %b: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %r = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32> // expected-error {{inner dimensions differ (8x16 vs 32x4)}}
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @plus(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{graph.add: shapes are not broadcastable}}
  %r = graph.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @minus(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  %r = graph.mul %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  // expected-error @-1 {{element types differ (f32 vs f64)}}
  func.return %r : tensor<4xf32>
}

// -----

func.func @above(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  %r = graph.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  // expected-error @above {{operands must have rank >= 2}}
  func.return %r : tensor<4xf32>
}

// -----

func.func @below(%a: tensor<8x8xf32>, %b: tensor<8x4xf64>) -> tensor<8x4xf32> {
  // expected-error @below {{graph.matmul: element types differ}}

  %r = graph.matmul %a, %b : (tensor<8x8xf32>, tensor<8x4xf64>) -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

// A parse error is a diagnostic too.
func.func @parse(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.exp %a : tensor<4xf32
  // expected-error @below {{Expected '>' after builtin parameter list}}
  func.return %r : tensor<4xf32>
}

// -----

// A chunk without diagnostics.
func.func @fine(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.exp %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
