// RUN: %verify-errors
// RUN: not graph-opt %s -p lower-graph-to-loop 2>&1 | filecheck %s --check-prefix=LOWER

// SSA dominance in every graph-level region: a use before the definition and
// a cycle are one located error each, before any pass runs (so lowering never
// reads an unwritten workspace slot or loops forever on a cycle).

// LOWER-NOT: Traceback
// LOWER: {{.*}}dominance-invalid.mlir:[[# @LINE + 3]]:3: error: graph.exp: operand #0 (%p) is used before it is defined (by graph.relu further down)
// CHECK: {{.*}}dominance-invalid.mlir:[[# @LINE + 2]]:3: error: graph.exp: operand #0 (%p) is used before it is defined (by graph.relu further down)
func.func @use_before_def(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = graph.exp %p : tensor<4xf32>
  %p = graph.relu %x : tensor<4xf32>
  func.return %q : tensor<4xf32>
}

// -----

// CHECK: {{.*}}dominance-invalid.mlir:[[# @LINE + 2]]:3: error: graph.add: operand #1 (%p) is a result of the op itself: a cycle
func.func @self_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = graph.add %x, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %p : tensor<4xf32>
}

// -----

// CHECK: {{.*}}dominance-invalid.mlir:[[# @LINE + 2]]:3: error: graph.exp: operand #0 (%b) is used before it is defined (by graph.neg further down)
func.func @two_op_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %b : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// CHECK: {{.*}}dominance-invalid.mlir:[[# @LINE + 3]]:5: error: graph.mul: operand #1 (%d) is used before it is defined (by graph.add further down)
func.func @cycle_in_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %c = graph.mul %a, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = graph.add %c, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fused.yield %d : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}dominance-invalid.mlir:[[# @LINE + 2]]:3: error: graph.neg: operand #0 (%r) is used before it is defined (by fused.group further down)
func.func @group_result_before_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = graph.neg %r : tensor<4xf32>
  %r = fused.group "g" pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %e = graph.exp %a : tensor<4xf32>
    fused.yield %e : tensor<4xf32>
  }
  func.return %n : tensor<4xf32>
}
