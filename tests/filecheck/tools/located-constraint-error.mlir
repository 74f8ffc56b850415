// A constraint that fails while the custom format is parsed (graph.exp on
// f32) is reported at the op, with file:line:col.
// RUN: not graph-opt %s 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: {{.*}}located-constraint-error.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: {{.*}}f32 should be of base attribute tensor
// CHECK-NOT: Traceback

func.func @f(%a: f32) -> f32 {
  %r = graph.exp %a : f32
  func.return %r : f32
}
