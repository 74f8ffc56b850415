// Ops that are the identity only for some property values: inference dropout,
// a slice that covers its input (however its starts and ends are written), a
// pad by zero.  Each has a case that folds away and one that must stay.
// RUN: graph-opt -p canonicalize %s | filecheck %s

// Without `training`, dropout is the identity.
// CHECK-LABEL: func.func @dropout_inference
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NOT:    graph.dropout
// CHECK:        func.return %[[X]]
func.func @dropout_inference(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = graph.dropout %x {rate = 0.5 : f64, seed = 3 : i64} : tensor<8x16xf32>
  func.return %d : tensor<8x16xf32>
}

// With `training` it draws a mask: it stays.
// CHECK-LABEL: func.func @dropout_training
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK:        %[[D:.*]] = graph.dropout %[[X]] {{.*}}training
// CHECK:        func.return %[[D]]
func.func @dropout_training(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = graph.dropout %x {rate = 0.5 : f64, seed = 3 : i64, training} : tensor<8x16xf32>
  func.return %d : tensor<8x16xf32>
}

// Full slices written with negative starts, ends past the end, a negative
// axis, explicit unit steps, and a reversed axis of size 1.
// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<1x8xf32>)
// CHECK-NOT:    graph.slice
// CHECK:        func.return %[[X]], %[[X]], %[[Y]]
func.func @slice_full(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x8xf32>) {
  %a = graph.slice %x {starts = array<i64: -4, -100>, ends = array<i64: 4, 1000>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = graph.slice %x {starts = array<i64: -8>, ends = array<i64: 9223372036854775807>, axes = array<i64: -1>, steps = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = graph.slice %y {starts = array<i64: -1, 0>, ends = array<i64: -100, 8>, steps = array<i64: -1, 1>} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  func.return %a, %b, %g : tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x8xf32>
}

// Same shape but not the identity: reversals written with negative starts,
// ends and axes (clamped past the front).
// CHECK-LABEL: func.func @slice_not_full
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK:        %[[R:.*]] = graph.slice %[[X]] {{.*}}steps = array<i64: -1>
// CHECK:        %[[S:.*]] = graph.slice %[[X]] {{.*}}steps = array<i64: -1>
// CHECK:        func.return %[[R]], %[[S]]
func.func @slice_not_full(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -1000>, axes = array<i64: 0>, steps = array<i64: -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -9>, axes = array<i64: -1>, steps = array<i64: -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// A pad by zero on every side is the identity whatever its value and type.
// CHECK-LABEL: func.func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<3xi32>)
// CHECK-NOT:    graph.pad
// CHECK:        func.return %[[X]], %[[I]]
func.func @pad_zero(%x: tensor<4x8xf32>, %i: tensor<3xi32>) -> (tensor<4x8xf32>, tensor<3xi32>) {
  %p = graph.pad %x {pads = array<i64: 0, 0, 0, 0>, value = -2.5 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = graph.pad %i {pads = array<i64: 0, 0>, value = 7.0 : f64} : (tensor<3xi32>) -> tensor<3xi32>
  func.return %p, %q : tensor<4x8xf32>, tensor<3xi32>
}

// One non-zero pad: it stays.
// CHECK-LABEL: func.func @pad_nonzero
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK:        %[[P:.*]] = graph.pad %[[X]] {pads = array<i64: 0, 0, 0, 1>
// CHECK:        func.return %[[P]]
func.func @pad_nonzero(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  %p = graph.pad %x {pads = array<i64: 0, 0, 0, 1>, value = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<4x9xf32>
  func.return %p : tensor<4x9xf32>
}
