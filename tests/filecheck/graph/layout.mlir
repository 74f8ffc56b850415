// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// graph.transpose (perm property) and graph.reshape (shape from the result type).

// CHECK-LABEL: func.func @transpose_2d
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[T]] : tensor<8x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "transpose_2d"
// GENERIC:       "graph.transpose"(%{{.*}}) <{perm = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
func.func @transpose_2d(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  func.return %t : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @transpose_4d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4x5xi32>)
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xi32>) -> tensor<2x4x5x3xi32>
// CHECK-NEXT:    %[[I:.*]] = graph.transpose %[[T]] {perm = array<i64: 0, 1, 2, 3>} : (tensor<2x4x5x3xi32>) -> tensor<2x4x5x3xi32>
// CHECK-NEXT:    func.return %[[I]] : tensor<2x4x5x3xi32>
func.func @transpose_4d(%x: tensor<2x3x4x5xi32>) -> tensor<2x4x5x3xi32> {
  %t = graph.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xi32>) -> tensor<2x4x5x3xi32>
  %i = graph.transpose %t {perm = array<i64: 0, 1, 2, 3>} : (tensor<2x4x5x3xi32>) -> tensor<2x4x5x3xi32>
  func.return %i : tensor<2x4x5x3xi32>
}

// CHECK-LABEL: func.func @reshape
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[A:.*]] = graph.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %[[A]] : (tensor<6x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.reshape %[[B]] : (tensor<24xf32>) -> tensor<1x24x1xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x24x1xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "reshape"
// GENERIC:       "graph.reshape"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<1x24x1xf32> {
  %a = graph.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = graph.reshape %a : (tensor<6x4xf32>) -> tensor<24xf32>
  %c = graph.reshape %b : (tensor<24xf32>) -> tensor<1x24x1xf32>
  func.return %c : tensor<1x24x1xf32>
}

// To and from a 0-d tensor.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1xi1>)
// CHECK-NEXT:    %[[S:.*]] = graph.reshape %[[X]] : (tensor<1x1xi1>) -> tensor<i1>
// CHECK-NEXT:    %[[V:.*]] = graph.reshape %[[S]] : (tensor<i1>) -> tensor<1xi1>
// CHECK-NEXT:    func.return %[[V]] : tensor<1xi1>
func.func @reshape_scalar(%x: tensor<1x1xi1>) -> tensor<1xi1> {
  %s = graph.reshape %x : (tensor<1x1xi1>) -> tensor<i1>
  %v = graph.reshape %s : (tensor<i1>) -> tensor<1xi1>
  func.return %v : tensor<1xi1>
}
