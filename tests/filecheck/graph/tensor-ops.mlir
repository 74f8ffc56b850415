// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The tensor ops: concat, split (several results), slice (ONNX), pad,
// broadcast_to, expand_dims, squeeze, flatten, gather, fill, zeros_like,
// ones_like, dropout and copy, in their custom and generic forms.

// concat of one, two and three inputs; the axis may be negative.
// GENERIC-LABEL: "func.func"() <{sym_name = "concat"
// GENERIC:       "graph.concat"(%{{.*}}, %{{.*}}) <{axis = -1 : i64}> : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.concat %[[A]], %[[B]] {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[ONE:.*]] = graph.concat %[[A]] {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[THREE:.*]] = graph.concat %[[A]], %[[A]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[C]], %[[ONE]], %[[THREE]] : tensor<2x8xf32>, tensor<2x3xf32>, tensor<4x3xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x8xf32>, tensor<2x3xf32>, tensor<4x3xf32>) {
  %c = graph.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %one = graph.concat %a {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %three = graph.concat %a, %a {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %c, %one, %three : tensor<2x8xf32>, tensor<2x3xf32>, tensor<4x3xf32>
}

// split has one result per size; a size may be 0 and results may be unused.
// GENERIC-LABEL: "func.func"() <{sym_name = "split"
// GENERIC:       %{{.*}}, %{{.*}}, %{{.*}} = "graph.split"(%{{.*}}) <{axis = 1 : i64, sizes = array<i64: 1, 0, 7>}> : (tensor<4x8xi32>) -> (tensor<4x1xi32>, tensor<4x0xi32>, tensor<4x7xi32>)
// CHECK-LABEL: func.func @split
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xi32>)
// CHECK-NEXT:    %[[P:.*]], %[[P1:.*]], %[[P2:.*]] = graph.split %[[X]] {axis = 1 : i64, sizes = array<i64: 1, 0, 7>} : (tensor<4x8xi32>) -> (tensor<4x1xi32>, tensor<4x0xi32>, tensor<4x7xi32>)
// CHECK-NEXT:    func.return %[[P]], %[[P2]] : tensor<4x1xi32>, tensor<4x7xi32>
func.func @split(%x: tensor<4x8xi32>) -> (tensor<4x1xi32>, tensor<4x7xi32>) {
  %p:3 = graph.split %x {axis = 1 : i64, sizes = array<i64: 1, 0, 7>} : (tensor<4x8xi32>) -> (tensor<4x1xi32>, tensor<4x0xi32>, tensor<4x7xi32>)
  func.return %p#0, %p#2 : tensor<4x1xi32>, tensor<4x7xi32>
}

// ONNX slice: a negative step walks backwards; axes and steps are optional.
// CHECK-LABEL: func.func @slice
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf64>)
// CHECK-NEXT:    %[[S:.*]] = graph.slice %[[X]] {starts = array<i64: -1>, ends = array<i64: -100>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<4x8xf64>) -> tensor<4x4xf64>
// CHECK-NEXT:    %[[T:.*]] = graph.slice %[[X]] {starts = array<i64: 1>, ends = array<i64: 3>} : (tensor<4x8xf64>) -> tensor<2x8xf64>
// CHECK-NEXT:    func.return %[[S]], %[[T]] : tensor<4x4xf64>, tensor<2x8xf64>
func.func @slice(%x: tensor<4x8xf64>) -> (tensor<4x4xf64>, tensor<2x8xf64>) {
  %s = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -100>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<4x8xf64>) -> tensor<4x4xf64>
  %t = graph.slice %x {starts = array<i64: 1>, ends = array<i64: 3>} : (tensor<4x8xf64>) -> tensor<2x8xf64>
  func.return %s, %t : tensor<4x4xf64>, tensor<2x8xf64>
}

// pads = [begin0, begin1, end0, end1]; the value is cast to the element type.
// CHECK-LABEL: func.func @pad
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<3xi1>)
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[X]] {pads = array<i64: 1, 0, 0, 3>, value = -1.500000e+00 : f64} : (tensor<4x8xf32>) -> tensor<5x11xf32>
// CHECK-NEXT:    %[[Q:.*]] = graph.pad %[[B]] {pads = array<i64: 0, 2>, value = 1.000000e+00 : f64} : (tensor<3xi1>) -> tensor<5xi1>
// CHECK-NEXT:    func.return %[[P]], %[[Q]] : tensor<5x11xf32>, tensor<5xi1>
func.func @pad(%x: tensor<4x8xf32>, %b: tensor<3xi1>) -> (tensor<5x11xf32>, tensor<5xi1>) {
  %p = graph.pad %x {pads = array<i64: 1, 0, 0, 3>, value = -1.5 : f64} : (tensor<4x8xf32>) -> tensor<5x11xf32>
  %q = graph.pad %b {pads = array<i64: 0, 2>, value = 1.0 : f64} : (tensor<3xi1>) -> tensor<5xi1>
  func.return %p, %q : tensor<5x11xf32>, tensor<5xi1>
}

// broadcast_to takes its shape from the result type; expand_dims axes index
// the result; squeeze without axes drops every size-1 axis.
// CHECK-LABEL: func.func @reindex
// CHECK-SAME:    (%[[V:.*]]: tensor<8xf32>, %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[B:.*]] = graph.broadcast_to %[[V]] : (tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.expand_dims %[[V]] {axes = array<i64: 0, -1>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
// CHECK-NEXT:    %[[U:.*]] = graph.squeeze %[[E]] {axes = array<i64: 0>} : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.squeeze %[[E]] : (tensor<1x8x1xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.flatten %[[X]] {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:    func.return %[[B]], %[[U]], %[[F]] : tensor<4x8xf32>, tensor<8x1xf32>, tensor<2x12xf32>
func.func @reindex(%v: tensor<8xf32>, %x: tensor<2x3x4xf32>) -> (tensor<4x8xf32>, tensor<8x1xf32>, tensor<2x12xf32>) {
  %b = graph.broadcast_to %v : (tensor<8xf32>) -> tensor<4x8xf32>
  %e = graph.expand_dims %v {axes = array<i64: 0, -1>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  %u = graph.squeeze %e {axes = array<i64: 0>} : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
  %a = graph.squeeze %e : (tensor<1x8x1xf32>) -> tensor<8xf32>
  %f = graph.flatten %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  func.return %b, %u, %f : tensor<4x8xf32>, tensor<8x1xf32>, tensor<2x12xf32>
}

// gather with i64 indices of any rank (here 2-d and 0-d).
// CHECK-LABEL: func.func @gather
// CHECK-SAME:    (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[S:.*]]: tensor<i64>)
// CHECK-NEXT:    %[[G:.*]] = graph.gather %[[X]], %[[I]] {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
// CHECK-NEXT:    %[[H:.*]] = graph.gather %[[X]], %[[S]] {axis = -1 : i64} : (tensor<5x3xf32>, tensor<i64>) -> tensor<5xf32>
// CHECK-NEXT:    func.return %[[G]], %[[H]] : tensor<2x2x3xf32>, tensor<5xf32>
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2x2xi64>, %s: tensor<i64>) -> (tensor<2x2x3xf32>, tensor<5xf32>) {
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
  %h = graph.gather %x, %s {axis = -1 : i64} : (tensor<5x3xf32>, tensor<i64>) -> tensor<5xf32>
  func.return %g, %h : tensor<2x2x3xf32>, tensor<5xf32>
}

// fill has no operand: its type is the result's.
// GENERIC-LABEL: "func.func"() <{sym_name = "fill"
// GENERIC:       "graph.fill"() <{shape = array<i64: 2, 3>, value = 1.500000e+00 : f64}> : () -> tensor<2x3xf32>
// CHECK-LABEL: func.func @fill
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xi32>)
// CHECK-NEXT:    %[[F:.*]] = graph.fill {shape = array<i64: 2, 3>, value = 1.500000e+00 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.fill {shape = array<i64: 4>, value = 1.000000e+00 : f64} : tensor<4xi1>
// CHECK-NEXT:    %[[Z:.*]] = graph.zeros_like %[[X]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[O:.*]] = graph.ones_like %[[X]] : tensor<2x3xi32>
// CHECK-NEXT:    func.return %[[F]], %[[T]], %[[Z]], %[[O]] : tensor<2x3xf32>, tensor<4xi1>, tensor<2x3xi32>, tensor<2x3xi32>
func.func @fill(%x: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<4xi1>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %f = graph.fill {shape = array<i64: 2, 3>, value = 1.5 : f64} : tensor<2x3xf32>
  %t = graph.fill {shape = array<i64: 4>, value = 1.0 : f64} : tensor<4xi1>
  %z = graph.zeros_like %x : tensor<2x3xi32>
  %o = graph.ones_like %x : tensor<2x3xi32>
  func.return %f, %t, %z, %o : tensor<2x3xf32>, tensor<4xi1>, tensor<2x3xi32>, tensor<2x3xi32>
}

// dropout in training mode (the unit flag) and in inference mode; copy to a device.
// GENERIC-LABEL: "func.func"() <{sym_name = "dropout_copy"
// GENERIC:       "graph.dropout"(%{{.*}}) <{rate = 2.500000e-01 : f64, seed = 7 : i64, training}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC:       "graph.copy"(%{{.*}}) <{device = "gpu:0"}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-LABEL: func.func @dropout_copy
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[D:.*]] = graph.dropout %[[X]] {rate = 2.500000e-01 : f64, seed = 7 : i64, training} : tensor<8x16xf32>
// CHECK-NEXT:    %[[I:.*]] = graph.dropout %[[X]] {rate = 5.000000e-01 : f64, seed = 0 : i64} : tensor<8x16xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.copy %[[X]] {device = "gpu:0"} : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[D]], %[[I]], %[[C]] : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
func.func @dropout_copy(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %d = graph.dropout %x {rate = 0.25 : f64, seed = 7 : i64, training} : tensor<8x16xf32>
  %i = graph.dropout %x {rate = 0.5 : f64, seed = 0 : i64} : tensor<8x16xf32>
  %c = graph.copy %x {device = "gpu:0"} : tensor<8x16xf32>
  func.return %d, %i, %c : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}
