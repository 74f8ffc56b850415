// Structural patterns; each fires, and a negative case where it must not.
// RUN: graph-opt -p canonicalize %s | filecheck %s

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:   %[[N:.*]] = graph.neg %[[X]]
// CHECK-NEXT:   func.return %[[X]], %[[N]]
func.func @neg_neg(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.neg %x : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  %c = graph.neg %b : tensor<4xf32>
  %d = graph.neg %c : tensor<4xf32>
  %e = graph.neg %d : tensor<4xf32>
  func.return %d, %e : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @relu_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:   %[[R:.*]] = graph.relu %[[X]]
// CHECK-NEXT:   %[[N:.*]] = graph.neg %[[R]]
// CHECK-NEXT:   %[[S:.*]] = graph.relu %[[N]]
// CHECK-NEXT:   func.return %[[R]], %[[S]]
func.func @relu_relu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.relu %x : tensor<4xf32>
  %b = graph.relu %a : tensor<4xf32>
  %n = graph.neg %b : tensor<4xf32>
  %c = graph.relu %n : tensor<4xf32>
  func.return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// Inverse permutations cancel; others compose into one transpose.
// CHECK-LABEL: func.func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:   %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 2, 1, 0>}
// CHECK-NEXT:   func.return %[[X]], %[[T]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %a = graph.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %b = graph.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %c = graph.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  func.return %b, %c : tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:   func.return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = graph.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}

// A square transpose keeps the type but is not the identity.
// CHECK-LABEL: func.func @transpose_square
// CHECK:        graph.transpose
func.func @transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %a = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %a : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-NEXT:   %[[R:.*]] = graph.reshape %[[X]] : (tensor<4x6xf32>) -> tensor<3x8xf32>
// CHECK-NEXT:   func.return %[[R]], %[[X]]
func.func @reshape_reshape(%x: tensor<4x6xf32>) -> (tensor<3x8xf32>, tensor<4x6xf32>) {
  %a = graph.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>
  %b = graph.reshape %a : (tensor<24xf32>) -> tensor<3x8xf32>
  %c = graph.reshape %b : (tensor<3x8xf32>) -> tensor<4x6xf32>
  func.return %b, %c : tensor<3x8xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @same_shape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:   func.return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @same_shape(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = graph.reshape %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = graph.broadcast_to %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = graph.concat %x {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = graph.pad %x {pads = array<i64: 0, 0, 0, 0>, value = 1.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r, %b, %s, %c, %p : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Negatives: a real broadcast, a reversing slice of the same shape, a partial
// slice, a concat of two inputs.
// CHECK-LABEL: func.func @not_identity
// CHECK:        graph.broadcast_to
// CHECK:        graph.slice
// CHECK:        graph.slice
// CHECK:        graph.concat
func.func @not_identity(%x: tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<2x8xf32>, tensor<8x8xf32>) {
  %b = graph.broadcast_to %x : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %r = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -5>, steps = array<i64: -1>, axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = graph.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 3, 8>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  %c = graph.concat %x, %x {axis = 0 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  func.return %b, %r, %s, %c : tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<2x8xf32>, tensor<8x8xf32>
}

// zeros_like / ones_like never read their operand: they become splats.
// CHECK-LABEL: func.func @likes
// CHECK-DAG:    %[[Z:.*]] = graph.constant splat 0 : tensor<3xi32>
// CHECK-DAG:    %[[O:.*]] = graph.constant splat 1.000000e+00 : tensor<3xf32>
// CHECK:        func.return %[[Z]], %[[O]]
func.func @likes(%i: tensor<3xi32>, %x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xf32>) {
  %z = graph.zeros_like %i : tensor<3xi32>
  %o = graph.ones_like %x : tensor<3xf32>
  func.return %z, %o : tensor<3xi32>, tensor<3xf32>
}

// A cast to the operand's own type is the identity; a real cast stays.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:   %[[I:.*]] = graph.cast %[[X]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:   func.return %[[X]], %[[I]]
func.func @cast(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %s = graph.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  %i = graph.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  func.return %s, %i : tensor<4xf32>, tensor<4xi32>
}
