// RUN: graph-opt -p fuse-ops %s | filecheck %s

// An elementwise/broadcast chain becomes one group, named after its ops; a
// same-shape add counts as elementwise, a bias add makes it broadcast.
// Constants stay outside the group, as inputs (a splat becomes a scalar in
// the kernel).
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[HALF:.*]] = graph.constant splat 5.000000e-01
// CHECK-NEXT:    %[[R:.*]] = fused.group "add_mul_relu_neg_exp_and_3_more" pattern(broadcast) (%[[GX:.*]] = %[[X]] : tensor<4x8xf32>, %[[GB:.*]] = %[[B]] : tensor<8xf32>, %[[GH:.*]] = %[[HALF]] : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
// CHECK-NEXT:      %[[T0:.*]] = graph.add %[[GX]], %[[GB]]
// CHECK-NEXT:      %[[T1:.*]] = graph.mul %[[T0]], %[[GH]]
// CHECK-NEXT:      %[[T2:.*]] = graph.relu %[[T1]]
// CHECK-NEXT:      %[[T3:.*]] = graph.neg %[[T2]]
// CHECK-NEXT:      %[[T4:.*]] = graph.exp %[[T3]]
// CHECK-NEXT:      %[[T5:.*]] = graph.sub %[[T4]], %[[GX]]
// CHECK-NEXT:      %[[T6:.*]] = graph.tanh %[[T5]]
// CHECK-NEXT:      %[[T7:.*]] = graph.maximum %[[T6]], %[[T1]]
// CHECK-NEXT:      fused.yield %[[T7]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %half = graph.constant splat 0.5 : tensor<4x8xf32>
  %t0 = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %t1 = graph.mul %t0, %half : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t2 = graph.relu %t1 : tensor<4x8xf32>
  %t3 = graph.neg %t2 : tensor<4x8xf32>
  %t4 = graph.exp %t3 : tensor<4x8xf32>
  %t5 = graph.sub %t4, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t6 = graph.tanh %t5 : tensor<4x8xf32>
  %t7 = graph.maximum %t6, %t1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %t7 : tensor<4x8xf32>
}

// Same-shape operands only: the whole group is elemwise.
// CHECK-LABEL: func.func @same_shape
// CHECK:         fused.group "exp_add_sigmoid" pattern(elemwise)
func.func @same_shape(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %a = graph.exp %x : tensor<16xf32>
  %b = graph.add %a, %y : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %c = graph.sigmoid %b : tensor<16xf32>
  func.return %c : tensor<16xf32>
}

// A single op stays bare: no group of one.
// CHECK-LABEL: func.func @single
// CHECK-NOT:     fused.group
// CHECK:         graph.relu
func.func @single(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = graph.relu %x : tensor<16xf32>
  func.return %a : tensor<16xf32>
}
