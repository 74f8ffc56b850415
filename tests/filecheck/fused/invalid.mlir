// RUN: %verify-errors

// One case per verifier error of the fused dialect, reported at the group.

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "g": body has 2 arguments for 1 inputs
func.func @arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fused.group"(%x) <{name = "g", pattern = #fused.pattern<elemwise>}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    "fused.yield"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "g": body argument #0 has type tensor<4xf64>, input has tensor<4xf32>
func.func @arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fused.group"(%x) <{name = "g", pattern = #fused.pattern<elemwise>}> ({
  ^bb0(%a: tensor<4xf64>):
    %e = graph.exp %a : tensor<4xf64>
    "fused.yield"(%e) : (tensor<4xf64>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "sum": yielded types (tensor<f32>) do not match result types (tensor<4xf32>)
func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "sum" pattern(comm_reduce) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %s = graph.reduce_sum %a {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
    fused.yield %s : tensor<f32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "g": yielded types (tensor<4xf32>, tensor<4xf32>) do not match result types (tensor<4xf32>)
func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    fused.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "g": body may contain only graph ops, found arith.constant
func.func @non_graph_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %c = arith.constant 1.0 : f32
    fused.yield %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "g": body must end with fused.yield
func.func @missing_yield_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fused.group"(%x) <{name = "g", pattern = #fused.pattern<elemwise>}> ({
  ^bb0(%a: tensor<4xf32>):
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: fused.group "g": body must end with fused.yield
func.func @missing_yield_other_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fused.group"(%x) <{name = "g", pattern = #fused.pattern<elemwise>}> ({
  ^bb0(%a: tensor<4xf32>):
    "test.termop"() : () -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Without any terminator the body's last op is reported.
// CHECK: {{.*}}invalid.mlir:[[# @LINE + 4]]:5: error: Operation graph.exp terminates block in single-block region but is not a terminator
func.func @missing_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fused.group"(%x) <{name = "g", pattern = #fused.pattern<elemwise>}> ({
  ^bb0(%a: tensor<4xf32>):
    %e = graph.exp %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 3]]:5: error: 'func.return' expects parent op 'func.func'
func.func @wrong_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    func.return %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: Operation using value defined out of its IsolatedFromAbove parent
func.func @not_isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %e = graph.exp %x : tensor<4xf32>
    fused.yield %e : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:3: error: 'fused.yield' expects parent op 'fused.group'
func.func @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  fused.yield %x : tensor<4xf32>
}

// -----

// Graph ops inside a group are verified too.
// CHECK: {{.*}}invalid.mlir:[[# @LINE + 3]]:5: error: graph.add: shapes are not broadcastable (4 vs 3)
func.func @bad_inner_op(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(broadcast) (%a = %x : tensor<4xf32>, %b = %y : tensor<3xf32>) -> (tensor<4xf32>) {
    %s = graph.add %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
    fused.yield %s : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
