// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --entry pool --check | filecheck %s --check-prefix=RESULT
// RUN: graph-run %s --entry row --check | filecheck %s --check-prefix=RESULT
// LLVM unrolls no loop (runtime/llvm_optimizer): a short window's taps are
// emitted straight.

// Rows narrower than 4: per element, one max per tap, no loop over the taps.
// CHECK-LABEL: func.func private @pool_k0_max_pool2d
// CHECK:       scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[X:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:         scf.for
// CHECK:             %[[M0:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}}
// CHECK-NOT:         scf.for
// CHECK:             %[[M1:.*]] = arith.select %{{.*}}, %[[M0]], %{{.*}}
// CHECK-NOT:         scf.for
// CHECK:             %[[M2:.*]] = arith.select %{{.*}}, %[[M1]], %{{.*}}
// CHECK-NOT:         scf.for
// CHECK:             %[[M3:.*]] = arith.select %{{.*}}, %[[M2]], %{{.*}}
// CHECK-NEXT:        memref.store %[[M3]], %{{.*}}[%{{.*}}, %[[C]], %[[Y]], %[[X]]]
// CHECK-NEXT:      }
func.func @pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %r = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  func.return %r : tensor<1x2x3x3xf32>
}

// A row at once: one loop over the columns 1..10 whose nine taps are all
// inside (no bounds test), then the two border columns straight.
// CHECK-LABEL: func.func private @row_k0_avg_pool2d
// CHECK-DAG:   %[[ROW:.*]] = memref.alloca() : memref<12xf32>
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[ELEVEN:.*]] = arith.constant 11 : index
// CHECK:       scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         scf.for %[[X:.*]] = %[[ONE]] to %[[ELEVEN]] step %{{.*}} {
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[ROW]][%[[X]]]
// CHECK-NOT:       arith.select
// CHECK:           %[[T0:.*]] = arith.addf %[[R]], %{{.*}}
// CHECK-COUNT-8:   arith.addf
// CHECK-NOT:       arith.select
// CHECK:           memref.store %{{.*}}, %[[ROW]][%[[X]]]
// CHECK-NEXT:    }
// CHECK-NOT:     scf.for
// CHECK:         memref.store %{{.*}}, %[[ROW]][%{{.*}}]
// CHECK-NOT:     scf.for
// CHECK:         memref.store %{{.*}}, %[[ROW]][%{{.*}}]
// CHECK:         scf.for %[[X2:.*]] =
// CHECK:           memref.load %[[ROW]][%[[X2]]]
func.func @row(%x: tensor<1x1x4x12xf32>) -> tensor<1x1x2x12xf32> {
  %r = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 0, 1, 0, 1>} : (tensor<1x1x4x12xf32>) -> tensor<1x1x2x12xf32>
  func.return %r : tensor<1x1x2x12xf32>
}
// RESULT: check: OK
