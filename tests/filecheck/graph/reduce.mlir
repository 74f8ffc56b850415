// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Reductions: axes may be negative; without keepdims the reduced axes go away.

// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[A:.*]] = graph.reduce_sum %[[X]] {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reduce_sum %[[X]] {axes = array<i64: -1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.reduce_sum %[[X]] {axes = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<f32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]] : tensor<4xf32>, tensor<4x1xf32>, tensor<f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "reduce_sum"
// GENERIC:       "graph.reduce_sum"(%{{.*}}) <{axes = array<i64: 1>}> : (tensor<4x8xf32>) -> tensor<4xf32>
// GENERIC:       "graph.reduce_sum"(%{{.*}}) <{axes = array<i64: -1>, keepdims}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
func.func @reduce_sum(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x1xf32>, tensor<f32>) {
  %a = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %b = graph.reduce_sum %x {axes = array<i64: -1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %c = graph.reduce_sum %x {axes = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<f32>
  func.return %a, %b, %c : tensor<4xf32>, tensor<4x1xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf64>)
// CHECK-NEXT:    %[[A:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: -3, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>
// CHECK-NEXT:    %[[B:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: 1>, keepdims} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<3xf64>, tensor<2x1x4xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "reduce_mean"
// GENERIC:       "graph.reduce_mean"(%{{.*}}) <{axes = array<i64: -3, 2>}> : (tensor<2x3x4xf64>) -> tensor<3xf64>
func.func @reduce_mean(%x: tensor<2x3x4xf64>) -> (tensor<3xf64>, tensor<2x1x4xf64>) {
  %a = graph.reduce_mean %x {axes = array<i64: -3, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>
  %b = graph.reduce_mean %x {axes = array<i64: 1>, keepdims} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>
  func.return %a, %b : tensor<3xf64>, tensor<2x1x4xf64>
}

// CHECK-LABEL: func.func @reduce_max
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xi32>)
// CHECK-NEXT:    %[[A:.*]] = graph.reduce_max %[[X]] {axes = array<i64: -2>} : (tensor<2x3x4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:    %[[B:.*]] = graph.reduce_max %[[X]] {axes = array<i64: 0, -1>, keepdims} : (tensor<2x3x4xi32>) -> tensor<1x3x1xi32>
// CHECK-NEXT:    %[[C:.*]] = graph.reduce_max %[[X]] {axes = array<i64>} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]] : tensor<2x4xi32>, tensor<1x3x1xi32>, tensor<2x3x4xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "reduce_max"
// GENERIC:       "graph.reduce_max"(%{{.*}}) <{axes = array<i64: 0, -1>, keepdims}> : (tensor<2x3x4xi32>) -> tensor<1x3x1xi32>
func.func @reduce_max(%x: tensor<2x3x4xi32>) -> (tensor<2x4xi32>, tensor<1x3x1xi32>, tensor<2x3x4xi32>) {
  %a = graph.reduce_max %x {axes = array<i64: -2>} : (tensor<2x3x4xi32>) -> tensor<2x4xi32>
  %b = graph.reduce_max %x {axes = array<i64: 0, -1>, keepdims} : (tensor<2x3x4xi32>) -> tensor<1x3x1xi32>
  %c = graph.reduce_max %x {axes = array<i64>} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  func.return %a, %b, %c : tensor<2x4xi32>, tensor<1x3x1xi32>, tensor<2x3x4xi32>
}
