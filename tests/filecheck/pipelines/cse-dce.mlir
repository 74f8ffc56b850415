// xDSL's cse and dce on graph ops: Pure ops merge and die, random ops do not merge.
// RUN: graph-opt -p cse,dce %s | filecheck %s

// CHECK-LABEL: func.func @merge
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:   %[[E:.*]] = graph.exp %[[X]]
// CHECK-NEXT:   %[[S:.*]] = graph.add %[[E]], %[[E]]
// CHECK-NEXT:   func.return %[[S]]
func.func @merge(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.exp %x : tensor<4xf32>
  %dead = graph.tanh %x : tensor<4xf32>
  %s = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// Two identical training dropouts are two draws: both stay.
// CHECK-LABEL: func.func @dropouts
// CHECK:        graph.dropout
// CHECK:        graph.dropout
// CHECK:        graph.add
func.func @dropouts(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64, training} : tensor<4xf32>
  %b = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64, training} : tensor<4xf32>
  %s = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// Different properties are different ops.
// CHECK-LABEL: func.func @different
// CHECK:        graph.reduce_sum %{{.*}} {axes = array<i64: 0>}
// CHECK:        graph.reduce_sum %{{.*}} {axes = array<i64: 1>}
func.func @different(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.reduce_sum %x {axes = array<i64: 0>} : (tensor<4x4xf32>) -> tensor<4xf32>
  %b = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}
