// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// graph.matmul: a[..., M, K] @ b[..., K, N]; batch dims broadcast as in numpy.

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME:    (%[[A:.*]]: tensor<8x784xf32>, %[[W:.*]]: tensor<784x128xf32>)
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[A]], %[[W]] : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<8x128xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul_2d"
// GENERIC:       "graph.matmul"(%{{.*}}, %{{.*}}) : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
func.func @matmul_2d(%a: tensor<8x784xf32>, %w: tensor<784x128xf32>) -> tensor<8x128xf32> {
  %m = graph.matmul %a, %w : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
  func.return %m : tensor<8x128xf32>
}

// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME:    (%[[A:.*]]: tensor<5x4x8xf32>, %[[B:.*]]: tensor<5x8x3xf32>)
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<5x4x8xf32>, tensor<5x8x3xf32>) -> tensor<5x4x3xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<5x4x3xf32>
func.func @matmul_batched(%a: tensor<5x4x8xf32>, %b: tensor<5x8x3xf32>) -> tensor<5x4x3xf32> {
  %m = graph.matmul %a, %b : (tensor<5x4x8xf32>, tensor<5x8x3xf32>) -> tensor<5x4x3xf32>
  func.return %m : tensor<5x4x3xf32>
}

// Batch dims broadcast: size 1 against 3, and a missing leading batch dim.
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK-SAME:    (%[[A:.*]]: tensor<2x1x4x8xf32>, %[[B:.*]]: tensor<3x8x5xf32>, %[[W:.*]]: tensor<8x5xf32>)
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.matmul %[[A]], %[[W]] : (tensor<2x1x4x8xf32>, tensor<8x5xf32>) -> tensor<2x1x4x5xf32>
// CHECK-NEXT:    func.return %[[M]], %[[N]] : tensor<2x3x4x5xf32>, tensor<2x1x4x5xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul_broadcast_batch"
// GENERIC:       "graph.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
func.func @matmul_broadcast_batch(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>, %w: tensor<8x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x1x4x5xf32>) {
  %m = graph.matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  %n = graph.matmul %a, %w : (tensor<2x1x4x8xf32>, tensor<8x5xf32>) -> tensor<2x1x4x5xf32>
  func.return %m, %n : tensor<2x3x4x5xf32>, tensor<2x1x4x5xf32>
}

// CHECK-LABEL: func.func @matmul_types
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<3x2xi32>, %[[C:.*]]: tensor<4x4xf64>)
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[N:.*]] = graph.matmul %[[C]], %[[C]] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
// CHECK-NEXT:    func.return %[[M]], %[[N]]
func.func @matmul_types(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>, %c: tensor<4x4xf64>) -> (tensor<2x2xi32>, tensor<4x4xf64>) {
  %m = graph.matmul %a, %b : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  %n = graph.matmul %c, %c : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  func.return %m, %n : tensor<2x2xi32>, tensor<4x4xf64>
}
