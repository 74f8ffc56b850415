// Malformed IR: one located diagnostic with the source line and a caret,
// exit status 1, no traceback.
// RUN: not graph-opt %s 2>&1 | filecheck %s
// RUN: not graph-opt %S/Inputs/unknown_op.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN

// CHECK-NOT: Traceback
// CHECK: {{.*}}parse-error.mlir:[[# @LINE + 10]]:3: error: Expected '>' after builtin parameter list
// CHECK-NEXT: {{^}}  func.return %r : tensor<4xf32>
// CHECK-NEXT: {{^}}  ^^^^^^^^^^^
// The message is printed once, not again under the carets.
// CHECK-NOT: Expected '>'
// CHECK-NOT: Traceback
// CHECK-NOT: error:

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.exp %a : tensor<4xf32
  func.return %r : tensor<4xf32>
}

// UNKNOWN-NOT: Traceback
// UNKNOWN: {{.*}}unknown_op.mlir:2:{{[0-9]+}}: error: Operation graph.frobnicate is not registered
// UNKNOWN-NEXT: {{^}}  %y = graph.frobnicate %x : tensor<4xf32>
// UNKNOWN-NEXT: {{^ +\^+$}}
// UNKNOWN-NOT: is not registered
// UNKNOWN-NOT: Traceback

// A misspelled op gets a suggestion.
// RUN: %python -c "open(r'%t.expp.mlir', 'w').write('func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%y = graph.expp %%x : tensor<4xf32>\n  func.return %%y : tensor<4xf32>\n}\n')"
// RUN: not graph-opt %t.expp.mlir 2>&1 | filecheck %s --check-prefix=MEAN
// MEAN: expp.mlir:2:{{[0-9]+}}: error: Operation graph.expp is not registered; did you mean 'graph.exp'?
