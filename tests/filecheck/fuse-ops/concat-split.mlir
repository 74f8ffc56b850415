// RUN: graph-opt -p fuse-ops %s | filecheck %s

// Concat of several elementwise branches: graph-opt has no tuple nodes, a
// variadic concat reads its branches directly, so the branches (phase 0) and
// the concat with its epilogue are one injective group.
// CHECK-LABEL: func.func @concat_branches
// CHECK-NEXT:    %[[R:.*]] = fused.group "exp_relu_neg_concat_tanh" pattern(injective)
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.neg
// CHECK-NEXT:      graph.concat
// CHECK-NEXT:      graph.tanh
// CHECK-NEXT:      fused.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @concat_branches(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>, %c: tensor<2x5xf32>) -> tensor<2x12xf32> {
  %ea = graph.exp %a : tensor<2x3xf32>
  %rb = graph.relu %b : tensor<2x4xf32>
  %nc = graph.neg %c : tensor<2x5xf32>
  %cat = graph.concat %ea, %rb, %nc {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>) -> tensor<2x12xf32>
  %t = graph.tanh %cat : tensor<2x12xf32>
  func.return %t : tensor<2x12xf32>
}

// Conv branches into a concat (an inception block): each conv keeps its
// elementwise epilogue, but an anchor group never fuses into the concat.
// CHECK-LABEL: func.func @concat_of_convs
// CHECK:         %[[A:.*]] = fused.group "conv2d_relu" pattern(out_ewise_fusable)
// CHECK:         %[[B:.*]] = fused.group "conv2d_relu" pattern(out_ewise_fusable)
// CHECK:         %[[C:.*]] = graph.concat %[[A]], %[[B]]
func.func @concat_of_convs(%x: tensor<1x2x6x6xf32>, %w1: tensor<2x2x3x3xf32>, %w2: tensor<3x2x3x3xf32>) -> tensor<1x5x4x4xf32> {
  %c1 = graph.conv2d %x, %w1 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r1 = graph.relu %c1 : tensor<1x2x4x4xf32>
  %c2 = graph.conv2d %x, %w2 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  %r2 = graph.relu %c2 : tensor<1x3x4x4xf32>
  %cat = graph.concat %r1, %r2 {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
  func.return %cat : tensor<1x5x4x4xf32>
}

// A multi-output split whose pieces feed different elementwise ops that
// re-join: the split's post-dominator is the final add, the path is
// injective, so split, branches and add are one group with one output.
// CHECK-LABEL: func.func @split_rejoin
// CHECK-NEXT:    %[[R:.*]] = fused.group "exp_split_relu_neg_add" pattern(injective) (%{{.*}} = %{{.*}} : tensor<4x8xf32>) -> (tensor<4x4xf32>)
// CHECK:           %[[P0:[a-z0-9_]+]], %[[P1:[a-z0-9_]+]] = graph.split
// CHECK-NEXT:      graph.relu %[[P0]]
// CHECK-NEXT:      graph.neg %[[P1]]
// CHECK:         func.return %[[R]]
func.func @split_rejoin(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %e = graph.exp %x : tensor<4x8xf32>
  %p:2 = graph.split %e {axis = 1 : i64, sizes = array<i64: 4, 4>} : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %a = graph.relu %p#0 : tensor<4x4xf32>
  %b = graph.neg %p#1 : tensor<4x4xf32>
  %s = graph.add %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}

// Split pieces that go to different outputs: the split has no
// post-dominator; its producer fuses into it and the group has two outputs
// (one per piece); each piece's consumer is a kernel of its own.
// CHECK-LABEL: func.func @split_outputs
// CHECK-NEXT:    %[[P0:[a-z0-9_]+]], %[[P1:[a-z0-9_]+]] = fused.group "exp_split" pattern(injective) (%{{.*}} = %{{.*}} : tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK:           %[[S0:[a-z0-9_]+]], %[[S1:[a-z0-9_]+]] = graph.split
// CHECK-NEXT:      fused.yield %[[S0]], %[[S1]]
// CHECK:         %[[A:.*]] = graph.relu %[[P0]]
// CHECK-NEXT:    %[[B:.*]] = graph.neg %[[P1]]
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @split_outputs(%x: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = graph.exp %x : tensor<4x8xf32>
  %p:2 = graph.split %e {axis = 1 : i64, sizes = array<i64: 4, 4>} : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %a = graph.relu %p#0 : tensor<4x4xf32>
  %b = graph.neg %p#1 : tensor<4x4xf32>
  func.return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}
