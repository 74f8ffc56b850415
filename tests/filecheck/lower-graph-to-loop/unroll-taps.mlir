// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --entry pool --check | filecheck %s --check-prefix=RESULT
// LLVM unrolls no loop (runtime/llvm_optimizer): a short window's taps are
// emitted straight, one max per tap, inside the loop over output columns.

// CHECK-LABEL: func.func private @pool_k0_max_pool2d
// CHECK:       scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[X:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:       scf.for
// CHECK:           %[[M0:.*]] = arith.maximumf %{{.*}}, %{{.*}}
// CHECK-NOT:       scf.for
// CHECK:           %[[M1:.*]] = arith.maximumf %[[M0]], %{{.*}}
// CHECK-NOT:       scf.for
// CHECK:           %[[M2:.*]] = arith.maximumf %[[M1]], %{{.*}}
// CHECK-NOT:       scf.for
// CHECK:           %[[M3:.*]] = arith.maximumf %[[M2]], %{{.*}}
// CHECK-NOT:       scf.for
// CHECK:           memref.store %[[M3]], %{{.*}}[%{{.*}}, %[[C]], %[[Y]], %[[X]]]
// CHECK-NEXT:    }
func.func @pool(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %r = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}
// RESULT: check: OK
