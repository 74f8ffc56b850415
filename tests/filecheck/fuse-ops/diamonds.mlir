// RUN: graph-opt -p fuse-ops %s | filecheck %s

// A branch that fans out and re-joins through elementwise ops: the conv's
// immediate post-dominator is the final add, every path is elementwise, so
// the conv and the whole diamond are one group (NNVM needed a special
// post-pass for this; the post-dominator tree gets it directly).
// CHECK-LABEL: func.func @fan_out_rejoin
// CHECK-NEXT:    %[[R:.*]] = fused.group "conv2d_relu_sigmoid_neg_add_add" pattern(out_ewise_fusable)
// CHECK:           graph.conv2d
// CHECK-NOT:       fused.group
// CHECK:           fused.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @fan_out_rejoin(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %a = graph.relu %c : tensor<1x2x4x4xf32>
  %b = graph.sigmoid %c : tensor<1x2x4x4xf32>
  %n = graph.neg %c : tensor<1x2x4x4xf32>
  %s = graph.add %a, %b : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %t = graph.add %s, %n : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %t : tensor<1x2x4x4xf32>
}

// The ResNet residual diamond: the block input %a (a relu) feeds both the
// conv branch and the residual add.  Its post-dominator is the add, but the
// path goes through conv inputs, so %a is materialised; each conv takes its
// elementwise epilogue, and the residual add + relu join the second conv.
// CHECK-LABEL: func.func @residual
// CHECK:         %[[A:.*]] = graph.relu
// CHECK-NEXT:    %[[H:.*]] = fused.group "conv2d_add_relu" pattern(out_ewise_fusable) (%{{.*}} = %[[A]] : tensor<1x4x6x6xf32>,
// CHECK:         %[[Y:.*]] = fused.group "conv2d_add_add_relu" pattern(out_ewise_fusable) (%{{.*}} = %[[H]] : tensor<1x4x6x6xf32>, %{{.*}} = %{{.*}} : tensor<4x4x3x3xf32>, %{{.*}} = %{{.*}} : tensor<4x1x1xf32>, %{{.*}} = %[[A]] : tensor<1x4x6x6xf32>)
// CHECK:         func.return %[[Y]]
func.func @residual(%x: tensor<1x4x6x6xf32>, %w1: tensor<4x4x3x3xf32>, %b1: tensor<4x1x1xf32>, %w2: tensor<4x4x3x3xf32>, %b2: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %a = graph.relu %x : tensor<1x4x6x6xf32>
  %c1 = graph.conv2d %a, %w1 {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %d1 = graph.add %c1, %b1 : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %h = graph.relu %d1 : tensor<1x4x6x6xf32>
  %c2 = graph.conv2d %h, %w2 {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %d2 = graph.add %c2, %b2 : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %s = graph.add %d2, %a : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = graph.relu %s : tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// An elementwise diamond with no anchor: exp feeds two branches that re-join.
// CHECK-LABEL: func.func @elementwise_diamond
// CHECK-NEXT:    %[[R:.*]] = fused.group "exp_sqrt_neg_mul" pattern(elemwise)
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.sqrt
// CHECK-NEXT:      graph.neg
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      fused.yield
func.func @elementwise_diamond(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = graph.exp %x : tensor<8xf32>
  %a = graph.sqrt %e : tensor<8xf32>
  %b = graph.neg %e : tensor<8xf32>
  %m = graph.mul %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %m : tensor<8xf32>
}
