// RUN: graph-opt -p fuse-ops %s | filecheck %s
// RUN: graph-opt -p 'fuse-ops{remarks=true}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// TVM vs NNVM: an injective op followed by a reduction.  NNVM's graph_fuse
// fuses injective ops into a following reduction; TVM (and graph-opt) does
// not -- the injective op must have an all-injective path to its
// post-dominator, so the reduction reads a materialised tensor with plain
// loads in its accumulating loop.  The elementwise op before the transpose
// still fuses into it.
// CHECK-LABEL: func.func @transpose_sum
// CHECK:         %[[T:.*]] = fused.group "exp_transpose" pattern(injective)
// CHECK:         %[[S:.*]] = graph.reduce_sum %[[T]] {axes = array<i64: 1>}
// CHECK:         func.return %[[S]]
// REMARK: injective-reduce.mlir:[[# @LINE + 4]]:3: remark: not fused: graph.transpose -> graph.reduce_sum: injective graph.transpose does not fuse into reduction graph.reduce_sum (TVM rule)
func.func @transpose_sum(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<8x4xf32>
  %t = graph.transpose %e {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %s = graph.reduce_sum %t {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// An elementwise op between the injective op and the reduction fuses into
// the reduction first (phase 0); the injective op, visited in phase 1, then
// meets a comm_reduce group on its path and stays apart.
// CHECK-LABEL: func.func @reshape_relu_sum
// CHECK:         %[[R:.*]] = graph.reshape
// CHECK-NEXT:    %[[S:.*]] = fused.group "relu_reduce_sum" pattern(comm_reduce) (%{{.*}} = %[[R]] : tensor<4x8xf32>)
func.func @reshape_relu_sum(%x: tensor<32xf32>) -> tensor<4xf32> {
  %r = graph.reshape %x : (tensor<32xf32>) -> tensor<4x8xf32>
  %a = graph.relu %r : tensor<4x8xf32>
  %s = graph.reduce_sum %a {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
