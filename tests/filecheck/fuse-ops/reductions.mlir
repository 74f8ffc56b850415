// RUN: graph-opt -p fuse-ops %s | filecheck %s

// Elementwise ops fuse into a reduction: the reduction is the sink.
// CHECK-LABEL: func.func @into_reduce
// CHECK:         %[[S:.*]] = fused.group "mul_exp_reduce_sum" pattern(comm_reduce)
// CHECK:           graph.reduce_sum
// CHECK-NEXT:      fused.yield
// CHECK:         func.return %[[S]]
func.func @into_reduce(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4xf32> {
  %m = graph.mul %x, %y : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = graph.exp %m : tensor<4x16xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// A reduction never starts a fusion: it ends its group, and what follows is
// a new group (exp -> sum -> sqrt gives {exp, sum}, {sqrt, ...}).
// CHECK-LABEL: func.func @after_reduce
// CHECK:         %[[S:.*]] = fused.group "exp_reduce_sum" pattern(comm_reduce)
// CHECK:         %[[R:.*]] = fused.group "sqrt_neg" pattern(elemwise) (%[[A:.*]] = %[[S]] : tensor<4xf32>)
// CHECK:         func.return %[[R]]
func.func @after_reduce(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4x16xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %q = graph.sqrt %s : tensor<4xf32>
  %n = graph.neg %q : tensor<4xf32>
  func.return %n : tensor<4xf32>
}

// Two reductions in a row stay apart, and a broadcast back over the reduced
// axis (x - mean) fuses into the next reduction as its producer.
// CHECK-LABEL: func.func @variance
// CHECK:         %[[M:.*]] = graph.reduce_mean %{{.*}} {axes = array<i64: 1>, keepdims}
// CHECK-NEXT:    %[[V:.*]] = fused.group "sub_mul_reduce_mean" pattern(comm_reduce) (%{{.*}} = %{{.*}} : tensor<4x16xf32>, %{{.*}} = %[[M]] : tensor<4x1xf32>)
// CHECK:         func.return %[[V]]
func.func @variance(%x: tensor<4x16xf32>) -> tensor<4x1xf32> {
  %m = graph.reduce_mean %x {axes = array<i64: 1>, keepdims} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %d2 = graph.mul %d, %d : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %v = graph.reduce_mean %d2 {axes = array<i64: 1>, keepdims} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  func.return %v : tensor<4x1xf32>
}
