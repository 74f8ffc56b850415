// RUN: graph-opt -p 'decompose{ops=gelu,log_softmax}' %s | filecheck %s

// CHECK-LABEL: func.func @gelu
// CHECK:        graph.erf
// CHECK-NOT:    graph.gelu
// CHECK:        graph.tanh
// CHECK-NOT:    graph.gelu
func.func @gelu(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %g = graph.gelu %x : tensor<4x8xf32>
  %t = graph.gelu %x {approximate} : tensor<4x8xf32>
  func.return %g, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK:        %[[M:.*]] = graph.reduce_max %{{.*}} {axes = array<i64: 1>, keepdims}
// CHECK:        %[[S:.*]] = graph.sub %{{.*}}, %[[M]]
// CHECK:        graph.exp %[[S]]
// CHECK:        %[[L:.*]] = graph.log
// CHECK:        graph.sub %[[S]], %[[L]]
// CHECK-NOT:    graph.log_softmax
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %l = graph.log_softmax %x {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %l : tensor<4x8xf32>
}
