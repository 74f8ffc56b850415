// RUN: graph-opt -p 'decompose{ops=batch_norm,layer_norm}' %s | filecheck %s
// RUN: graph-opt -p 'decompose{ops=batch_norm},fold-constants' %s | filecheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK:        graph.sqrt
// CHECK:        %[[MR:.*]] = graph.reshape %[[M]] : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK:        %[[C:.*]] = graph.sub %[[X]], %[[MR]]
// CHECK:        graph.mul %[[C]]
// CHECK:        graph.add
// CHECK-NOT:    graph.batch_norm
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %y = graph.batch_norm %x, %s, %b, %m, %v {eps = 1.0e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  func.return %y : tensor<2x3x4x4xf32>
}

// With constant statistics, fold-constants precomputes the per-channel scale:
// three elementwise ops remain.
// FOLD-LABEL: func.func @batch_norm_const
// FOLD-NOT:     graph.sqrt
// FOLD:         graph.sub
// FOLD-NEXT:    graph.mul
// FOLD-NEXT:    graph.add
// FOLD-NEXT:    func.return
func.func @batch_norm_const(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %p = graph.constant splat 0.5 : tensor<3xf32>
  %y = graph.batch_norm %x, %s, %p, %p, %p {eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK:        graph.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keepdims}
// CHECK:        graph.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keepdims}
// CHECK:        graph.sqrt
// CHECK:        graph.div
// CHECK:        graph.mul
// CHECK:        graph.add
// CHECK-NOT:    graph.layer_norm
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %y = graph.layer_norm %x, %s, %b {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}
