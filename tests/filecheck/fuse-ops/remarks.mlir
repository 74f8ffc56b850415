// RUN: graph-opt -p 'fuse-ops{remarks=true}' %s -o /dev/null 2>&1 | filecheck %s
// RUN: graph-opt -p fuse-ops %s 2>&1 | filecheck %s --check-prefix=QUIET

// Every edge between two groups gets one remark, at the consumer, naming
// producer, consumer and the reason.  Without remarks=true nothing is said.
// QUIET-NOT: remark

// Opaque op: graph.copy is never fused.
// CHECK: remarks.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.exp -> graph.copy: opaque op: graph.copy is never fused
func.func @opaque(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = graph.exp %x : tensor<8xf32>
  %c = graph.copy %e {device = "cpu"} : tensor<8xf32>
  %n = graph.neg %c : tensor<8xf32>
  func.return %n : tensor<8xf32>
}
// CHECK: remarks.mlir:[[# @LINE - 3]]:3: remark: not fused: graph.copy -> graph.neg: opaque op: graph.copy is never fused

// A path through an injective op into an out_ewise_fusable anchor.
// CHECK: remarks.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.transpose -> graph.matmul: path through injective graph.transpose into out_ewise_fusable graph.matmul
func.func @injective_into_anchor(%x: tensor<8x4xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %m = graph.matmul %t, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  func.return %m : tensor<4x2xf32>
}

// ... and from an anchor through an injective op.
// CHECK: remarks.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.matmul -> graph.transpose: path from out_ewise_fusable graph.matmul goes through injective graph.transpose
func.func @anchor_into_injective(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<2x4xf32> {
  %m = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %t = graph.transpose %m {perm = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %r = graph.relu %t : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// The input side of an anchor: a broadcast into a conv.
// CHECK: remarks.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.add -> graph.conv2d: graph.add feeds an input of out_ewise_fusable graph.conv2d; only elementwise epilogues fuse with an anchor
func.func @input_side(%x: tensor<1x2x4x4xf32>, %s: tensor<2x1x1xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %a = graph.add %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = graph.conv2d %a, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  func.return %c : tensor<1x2x2x2xf32>
}

// Two anchors: conv2d and batch_norm.
// CHECK: remarks.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.conv2d -> graph.batch_norm: a group holds at most one out_ewise_fusable op (graph.conv2d and graph.batch_norm)
func.func @two_anchors(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %p: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = graph.batch_norm %c, %p, %p, %p, %p {eps = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}

// A side use: the intermediate is also returned.
// CHECK: remarks.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.exp -> graph.neg: side use: the result of graph.exp is also used outside the graph (returned)
func.func @side_use(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = graph.exp %x : tensor<8xf32>
  %n = graph.neg %e : tensor<8xf32>
  func.return %n, %e : tensor<8xf32>, tensor<8xf32>
}

// A side use: consumers with no common post-dominator.
// CHECK: remarks.mlir:[[# @LINE + 4]]:3: remark: not fused: graph.exp -> graph.neg: side use: the result of graph.exp is read by 2 ops with no common post-dominator, so it is materialised
// CHECK: remarks.mlir:[[# @LINE + 4]]:3: remark: not fused: graph.exp -> graph.tanh: side use
func.func @no_post_dominator(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = graph.exp %x : tensor<8xf32>
  %n = graph.neg %e : tensor<8xf32>
  %t = graph.tanh %e : tensor<8xf32>
  func.return %n, %t : tensor<8xf32>, tensor<8xf32>
}

// A reduction as producer.
// CHECK: remarks.mlir:[[# @LINE + 4]]:3: remark: not fused: graph.reduce_sum -> graph.sqrt: reduction as producer: graph.reduce_sum can only end a group
func.func @reduction_producer(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4x8xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %q = graph.sqrt %s : tensor<4xf32>
  func.return %q : tensor<4xf32>
}

// A reduction on the path to the post-dominator.
// CHECK: remarks.mlir:[[# @LINE + 4]]:3: remark: not fused: graph.exp -> graph.reduce_sum: path to graph.div goes through comm_reduce graph.reduce_sum
// CHECK: remarks.mlir:[[# @LINE + 4]]:3: remark: not fused: graph.exp -> graph.div: path to graph.div goes through comm_reduce graph.reduce_sum
func.func @reduction_on_path(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = graph.exp %x : tensor<4x8xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = graph.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %d : tensor<4x8xf32>
}
