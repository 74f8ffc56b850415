// RUN: graph-opt -p fuse-ops %s | filecheck %s

// Injective ops (transpose, reshape) inside an elementwise chain: the chain,
// layout changes included, is one injective group.
// CHECK-LABEL: func.func @transpose_in_chain
// CHECK-NEXT:    %[[R:.*]] = fused.group "exp_transpose_relu_reshape_neg" pattern(injective)
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.neg
// CHECK-NEXT:      fused.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @transpose_in_chain(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %e = graph.exp %x : tensor<4x6xf32>
  %t = graph.transpose %e {perm = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %r = graph.relu %t : tensor<6x4xf32>
  %s = graph.reshape %r : (tensor<6x4xf32>) -> tensor<24xf32>
  %n = graph.neg %s : tensor<24xf32>
  func.return %n : tensor<24xf32>
}

// An anchor's epilogue stops at an injective op: matmul + add fuse, the
// transpose (visited in phase 1) and the relu after it form another group.
// CHECK-LABEL: func.func @anchor_then_transpose
// CHECK-NEXT:    %[[M:.*]] = fused.group "matmul_add" pattern(out_ewise_fusable)
// CHECK:         %[[R:.*]] = fused.group "transpose_relu" pattern(injective) (%{{.*}} = %[[M]] : tensor<4x8xf32>)
// CHECK:         func.return %[[R]]
func.func @anchor_then_transpose(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<8x4xf32> {
  %m = graph.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %a = graph.add %m, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %t = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = graph.relu %t : tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// A transpose into a matmul input does not fuse (phase 1 needs an all-
// injective path, the sink included).
// CHECK-LABEL: func.func @transpose_into_matmul
// CHECK-NEXT:    %[[T:.*]] = graph.transpose
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[T]], %{{.*}}
func.func @transpose_into_matmul(%x: tensor<16x4xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<16x4xf32>) -> tensor<4x16xf32>
  %m = graph.matmul %t, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}
