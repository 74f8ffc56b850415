// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// graph.softmax along one (possibly negative) axis; same type in and out.

// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<8x10xf32>)
// CHECK-NEXT:    %[[P:.*]] = graph.softmax %[[X]] {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
// CHECK-NEXT:    %[[Q:.*]] = graph.softmax %[[P]] {axis = 0 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
// CHECK-NEXT:    func.return %[[Q]] : tensor<8x10xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "softmax"
// GENERIC:       "graph.softmax"(%{{.*}}) <{axis = -1 : i64}> : (tensor<8x10xf32>) -> tensor<8x10xf32>
// GENERIC:       "graph.softmax"(%{{.*}}) <{axis = 0 : i64}> : (tensor<8x10xf32>) -> tensor<8x10xf32>
func.func @softmax(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  %p = graph.softmax %x {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %q = graph.softmax %p {axis = 0 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  func.return %q : tensor<8x10xf32>
}

// CHECK-LABEL: func.func @softmax_f64_3d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf64>)
// CHECK-NEXT:    %[[P:.*]] = graph.softmax %[[X]] {axis = -2 : i64} : (tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    func.return %[[P]] : tensor<2x3x4xf64>
func.func @softmax_f64_3d(%x: tensor<2x3x4xf64>) -> tensor<2x3x4xf64> {
  %p = graph.softmax %x {axis = -2 : i64} : (tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  func.return %p : tensor<2x3x4xf64>
}

// A whole model: the ops compose.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME:    (%[[X:.*]]: tensor<8x784xf32>, %[[W:.*]]: tensor<784x10xf32>, %[[B:.*]]: tensor<10xf32>)
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[M]], %[[B]] : (tensor<8x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[S]] : tensor<8x10xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.softmax %[[R]] {axis = -1 : i64}
// CHECK-NEXT:    func.return %[[P]] : tensor<8x10xf32>
func.func @mlp(%x: tensor<8x784xf32>, %w: tensor<784x10xf32>, %b: tensor<10xf32>) -> tensor<8x10xf32> {
  %m = graph.matmul %x, %w : (tensor<8x784xf32>, tensor<784x10xf32>) -> tensor<8x10xf32>
  %s = graph.add %m, %b : (tensor<8x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %r = graph.relu %s : tensor<8x10xf32>
  %p = graph.softmax %r {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  func.return %p : tensor<8x10xf32>
}
