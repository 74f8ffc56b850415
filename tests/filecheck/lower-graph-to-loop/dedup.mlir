// Kernel de-duplication: structurally identical groups (same ops, attributes,
// shapes, dtypes and inlined constants) lower to ONE kernel called from each
// place; a different splat constant (even 0.0 against -0.0), shape or dtype
// makes a different kernel.  Dense weights are kernel arguments, so groups
// that differ only in them share a kernel.  The compiled results match the
// reference interpreter.
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --check | filecheck %s --check-prefix=RESULT
// RUN: graph-run -O0 %s --check | filecheck %s --check-prefix=RESULT

// CHECK-LABEL: func.func private @dedup_k0_add_tanh(
// CHECK-NOT:   func.func private @dedup_k1_
// CHECK-LABEL: func.func private @dedup_k2_add_tanh(
// CHECK-LABEL: func.func private @dedup_k3_add_tanh(
// CHECK-LABEL: func.func private @dedup_k4_add_tanh(
// CHECK-LABEL: func.func private @dedup_k5_add_tanh(
// CHECK-NOT:   func.func private @dedup_k6_
// CHECK-LABEL: func.func private @dedup_k9_mul(
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @dedup(
// CHECK:       func.call @dedup_k0_add_tanh(
// CHECK-NEXT:  func.call @dedup_k0_add_tanh(
// CHECK:       func.call @dedup_k2_add_tanh(
// CHECK:       func.call @dedup_k3_add_tanh(
// CHECK:       func.call @dedup_k4_add_tanh(
// CHECK:       func.call @dedup_k5_add_tanh(
// CHECK:       func.call @dedup_k5_add_tanh(
// CHECK:       func.call @dedup_k9_mul(
// CHECK:       func.call @dedup_k9_mul(
// CHECK-NOT:   func.call
// CHECK:       func.return
// RESULT: check: OK (4 outputs match the reference)
func.func @dedup(%x: tensor<8x16xf32>, %y: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %a = fused.group "add_tanh" pattern(elemwise) (%p = %x : tensor<8x16xf32>) -> (tensor<8x16xf32>) {
    %c = graph.constant splat 0.5 : tensor<8x16xf32>
    %0 = graph.add %p, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = graph.tanh %0 : tensor<8x16xf32>
    fused.yield %1 : tensor<8x16xf32>
  }
  // The same group on another value: shares kernel 0.
  %b = fused.group "add_tanh" pattern(elemwise) (%p = %a : tensor<8x16xf32>) -> (tensor<8x16xf32>) {
    %c = graph.constant splat 0.5 : tensor<8x16xf32>
    %0 = graph.add %p, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = graph.tanh %0 : tensor<8x16xf32>
    fused.yield %1 : tensor<8x16xf32>
  }
  // Another splat constant: a kernel of its own.
  %d = fused.group "add_tanh" pattern(elemwise) (%p = %b : tensor<8x16xf32>) -> (tensor<8x16xf32>) {
    %c = graph.constant splat 0.25 : tensor<8x16xf32>
    %0 = graph.add %p, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = graph.tanh %0 : tensor<8x16xf32>
    fused.yield %1 : tensor<8x16xf32>
  }
  // Another shape: a kernel of its own.
  %e = fused.group "add_tanh" pattern(elemwise) (%p = %y : tensor<16x8xf32>) -> (tensor<16x8xf32>) {
    %c = graph.constant splat 0.5 : tensor<16x8xf32>
    %0 = graph.add %p, %c : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1 = graph.tanh %0 : tensor<16x8xf32>
    fused.yield %1 : tensor<16x8xf32>
  }
  // 0.0 and -0.0 differ in their bits (x + 0.0 is not x + -0.0 for x = -0.0):
  // two kernels, the second one called twice.
  %f = fused.group "add_tanh" pattern(elemwise) (%p = %d : tensor<8x16xf32>) -> (tensor<8x16xf32>) {
    %c = graph.constant splat 0.0 : tensor<8x16xf32>
    %0 = graph.add %p, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = graph.tanh %0 : tensor<8x16xf32>
    fused.yield %1 : tensor<8x16xf32>
  }
  %g = fused.group "add_tanh" pattern(elemwise) (%p = %f : tensor<8x16xf32>) -> (tensor<8x16xf32>) {
    %c = graph.constant splat -0.0 : tensor<8x16xf32>
    %0 = graph.add %p, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = graph.tanh %0 : tensor<8x16xf32>
    fused.yield %1 : tensor<8x16xf32>
  }
  %h = fused.group "add_tanh" pattern(elemwise) (%p = %g : tensor<8x16xf32>) -> (tensor<8x16xf32>) {
    %c = graph.constant splat -0.0 : tensor<8x16xf32>
    %0 = graph.add %p, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = graph.tanh %0 : tensor<8x16xf32>
    fused.yield %1 : tensor<8x16xf32>
  }
  // Dense weights are arguments: two different weight tensors, one kernel.
  %w1 = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>
  %w2 = graph.constant dense<[-1.0, 2.0, -3.0, 4.0, -5.0, 6.0, -7.0, 8.0, -9.0, 10.0, -11.0, 12.0, -13.0, 14.0, -15.0, 16.0]> : tensor<16xf32>
  %m1 = graph.mul %h, %w1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %m2 = graph.mul %h, %w2 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  func.return %m1, %e, %m2, %b : tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}
