// RUN: graph-opt -p 'fuse-ops{remarks=true}' %s 2>&1 >/dev/null | filecheck %s

// A remark names the group an edge would join -- its pattern and its anchor
// (or its reduction) -- not the pattern of the consumer op alone.

// exp is elementwise; it is its group, headed by reduce_sum, that is a reduction.
// CHECK: remarks-groups.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.transpose -> graph.exp: injective graph.transpose does not fuse into graph.exp, in the comm_reduce group of graph.reduce_sum (TVM rule)
func.func @a(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %e = graph.exp %t : tensor<8x4xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}

// CHECK: remarks-groups.mlir:[[# @LINE + 3]]:3: remark: not fused: graph.transpose -> graph.add: injective graph.transpose does not fuse into graph.add, in the comm_reduce group of graph.reduce_sum (TVM rule)
func.func @b(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<8xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %a = graph.add %t, %y : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %s = graph.reduce_sum %a {axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}

// The add is a broadcast op inside the group anchored by the first conv2d.
// CHECK: remarks-groups.mlir:[[# @LINE + 7]]:3: remark: not fused: graph.conv2d -> graph.batch_norm: a group holds at most one out_ewise_fusable op (graph.conv2d and graph.batch_norm)
// CHECK: remarks-groups.mlir:[[# @LINE + 7]]:3: remark: not fused: graph.batch_norm -> graph.add: path from out_ewise_fusable graph.batch_norm goes through graph.add, in the out_ewise_fusable group anchored by graph.conv2d; a group holds at most one out_ewise_fusable op
// CHECK-NOT: goes through out_ewise_fusable graph.add
// CHECK-NOT: into reduction graph.exp
func.func @c(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>, %g: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %c1 = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %c2 = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %n = graph.batch_norm %c2, %g, %g, %g, %g {eps = 1.0e-05 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %a = graph.add %n, %c1 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = graph.relu %a : tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}
