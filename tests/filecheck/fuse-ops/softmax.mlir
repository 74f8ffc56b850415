// RUN: graph-opt -p fuse-ops %s | filecheck %s

// softmax is out_ewise_fusable: its producer's elementwise ops do not fuse
// into it (input side of an anchor), its elementwise epilogue does.
// CHECK-LABEL: func.func @softmax_epilogue
// CHECK-NEXT:    %[[S:.*]] = fused.group "mul_tanh" pattern(elemwise)
// CHECK:         %[[P:.*]] = fused.group "softmax_log" pattern(out_ewise_fusable) (%{{.*}} = %[[S]] : tensor<4x10xf32>)
// CHECK:         func.return %[[P]]
func.func @softmax_epilogue(%x: tensor<4x10xf32>, %y: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %m = graph.mul %x, %y : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  %t = graph.tanh %m : tensor<4x10xf32>
  %p = graph.softmax %t {axis = -1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %l = graph.log %p : tensor<4x10xf32>
  func.return %l : tensor<4x10xf32>
}

// A matmul followed by softmax: two anchors, two groups (the bias add
// joins the matmul).
// CHECK-LABEL: func.func @matmul_softmax
// CHECK-NEXT:    %[[L:.*]] = fused.group "matmul_add" pattern(out_ewise_fusable)
// CHECK:         %[[P:.*]] = graph.softmax %[[L]]
func.func @matmul_softmax(%x: tensor<4x8xf32>, %w: tensor<8x10xf32>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %m = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x10xf32>) -> tensor<4x10xf32>
  %a = graph.add %m, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %p = graph.softmax %a {axis = -1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  func.return %p : tensor<4x10xf32>
}

// softmax written out in primitives (what decompose produces): the exp is
// read by the sum and by the division; its post-dominator is the division,
// but the path goes through the sum, and a reduction may only end a group.
// So exp is materialised: {max}, {sub, exp}, {sum}, {div} -- four kernels
// where the single softmax op is one.
// CHECK-LABEL: func.func @softmax_primitives
// CHECK-NEXT:    %[[M:.*]] = graph.reduce_max
// CHECK-NEXT:    %[[E:.*]] = fused.group "sub_exp" pattern(broadcast) (%{{.*}} = %{{.*}} : tensor<4x10xf32>, %{{.*}} = %[[M]] : tensor<4x1xf32>)
// CHECK:         %[[S:.*]] = graph.reduce_sum %[[E]]
// CHECK-NEXT:    %[[P:.*]] = graph.div %[[E]], %[[S]]
// CHECK-NEXT:    func.return %[[P]]
func.func @softmax_primitives(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
  %e = graph.exp %d : tensor<4x10xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  %p = graph.div %e, %s : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
  func.return %p : tensor<4x10xf32>
}
