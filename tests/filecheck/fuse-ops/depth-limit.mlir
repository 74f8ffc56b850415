// RUN: %python %S/Inputs/chain.py 300 | graph-opt -p fuse-ops | filecheck %s --check-prefix=LONG
// RUN: graph-opt -p 'fuse-ops{max-depth=10}' %s | filecheck %s
// RUN: graph-opt -p 'fuse-ops{max-depth=10 remarks=true}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// A 300-op chain with the default max-depth=256: one group of 256 ops, then
// one of the remaining 44.
// LONG-LABEL: func.func @chain
// LONG:         %[[A:.*]] = fused.group "neg_tanh_relu_sigmoid_neg_and_251_more" pattern(elemwise) (%{{.*}} = %{{.*}} : tensor<4x8xf32>)
// LONG:         %[[B:.*]] = fused.group "neg_tanh_relu_sigmoid_neg_and_39_more" pattern(elemwise) (%{{.*}} = %[[A]] : tensor<4x8xf32>)
// LONG-NOT:     fused.group
// LONG:         func.return %[[B]]

// A 20-op chain with max-depth=10: two groups of 10.
// CHECK-LABEL: func.func @chain20
// CHECK:         %[[A:.*]] = fused.group "neg_tanh_relu_sigmoid_neg_and_5_more" pattern(elemwise) (%{{.*}} = %{{.*}} : tensor<4x8xf32>)
// CHECK-COUNT-10:  graph.
// CHECK-NEXT:      fused.yield
// CHECK:         %[[B:.*]] = fused.group "relu_sigmoid_neg_tanh_relu_and_5_more" pattern(elemwise) (%{{.*}} = %[[A]] : tensor<4x8xf32>)
// CHECK-COUNT-10:  graph.
// CHECK-NEXT:      fused.yield
// CHECK:         func.return %[[B]]
// REMARK: depth-limit.mlir:[[# @LINE + 12]]:3: remark: not fused: graph.tanh -> graph.relu: depth limit: the group would hold 20 ops (max-depth=10)
func.func @chain20(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %v0 = graph.neg %x : tensor<4x8xf32>
  %v1 = graph.tanh %v0 : tensor<4x8xf32>
  %v2 = graph.relu %v1 : tensor<4x8xf32>
  %v3 = graph.sigmoid %v2 : tensor<4x8xf32>
  %v4 = graph.neg %v3 : tensor<4x8xf32>
  %v5 = graph.tanh %v4 : tensor<4x8xf32>
  %v6 = graph.relu %v5 : tensor<4x8xf32>
  %v7 = graph.sigmoid %v6 : tensor<4x8xf32>
  %v8 = graph.neg %v7 : tensor<4x8xf32>
  %v9 = graph.tanh %v8 : tensor<4x8xf32>
  %v10 = graph.relu %v9 : tensor<4x8xf32>
  %v11 = graph.sigmoid %v10 : tensor<4x8xf32>
  %v12 = graph.neg %v11 : tensor<4x8xf32>
  %v13 = graph.tanh %v12 : tensor<4x8xf32>
  %v14 = graph.relu %v13 : tensor<4x8xf32>
  %v15 = graph.sigmoid %v14 : tensor<4x8xf32>
  %v16 = graph.neg %v15 : tensor<4x8xf32>
  %v17 = graph.tanh %v16 : tensor<4x8xf32>
  %v18 = graph.relu %v17 : tensor<4x8xf32>
  %v19 = graph.sigmoid %v18 : tensor<4x8xf32>
  func.return %v19 : tensor<4x8xf32>
}

// Depth is counted exactly through diamonds: 4 ops, max-depth=4, one group
// (counting a group once per node met on the paths would reach 5).
// CHECK-LABEL: func.func @diamond_depth
// CHECK-NEXT:    fused.group "exp_neg_tanh_add" pattern(elemwise)
func.func @diamond_depth(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = graph.exp %x : tensor<8xf32>
  %a = graph.neg %e : tensor<8xf32>
  %b = graph.tanh %e : tensor<8xf32>
  %s = graph.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}
