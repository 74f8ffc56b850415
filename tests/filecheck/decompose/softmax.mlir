// RUN: graph-opt -p decompose %s | filecheck %s
// RUN: graph-opt -p 'decompose{ops=gelu}' %s | filecheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:   %[[M:.*]] = graph.reduce_max %[[X]] {axes = array<i64: 1>, keepdims}
// CHECK-NEXT:   %[[S:.*]] = graph.sub %[[X]], %[[M]] : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:   %[[E:.*]] = graph.exp %[[S]]
// CHECK-NEXT:   %[[Z:.*]] = graph.reduce_sum %[[E]] {axes = array<i64: 1>, keepdims}
// CHECK-NEXT:   %[[P:.*]] = graph.div %[[E]], %[[Z]]
// CHECK-NEXT:   func.return %[[P]]
// KEEP-LABEL: func.func @softmax
// KEEP:         graph.softmax
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = graph.softmax %x {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %p : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @softmax_axis0
// CHECK:        graph.reduce_max %{{.*}} {axes = array<i64: 0>, keepdims} : (tensor<3x5xf64>) -> tensor<1x5xf64>
// CHECK-NOT:    graph.softmax
func.func @softmax_axis0(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
  %p = graph.softmax %x {axis = 0 : i64} : (tensor<3x5xf64>) -> tensor<3x5xf64>
  func.return %p : tensor<3x5xf64>
}
