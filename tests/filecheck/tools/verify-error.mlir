// A verifier error without --verify-diagnostics: one diagnostic at the op's
// file:line:col, exit status 1, no IR printed, no traceback.
// RUN: not graph-opt %s 2>&1 | filecheck %s
// RUN: not graph-opt %s -p canonicalize,cse 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK-NOT: builtin.module
// CHECK: {{.*}}verify-error.mlir:[[# @LINE + 7]]:5: error: graph.matmul: inner dimensions differ (8x16 vs 32x4)
// CHECK-NOT: Traceback
// CHECK-NOT: builtin.module
// CHECK-NOT: error:

func.func @f(%x: tensor<8x16xf32>, %w: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %r = fused.group "mm" pattern(out_ewise_fusable) (%a = %x : tensor<8x16xf32>, %b = %w : tensor<32x4xf32>) -> (tensor<8x4xf32>) {
    %m = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    fused.yield %m : tensor<8x4xf32>
  }
  func.return %r : tensor<8x4xf32>
}
