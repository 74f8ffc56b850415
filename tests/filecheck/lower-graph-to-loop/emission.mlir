// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --entry row --check | filecheck %s --check-prefix=RESULT
// RUN: graph-run %s --entry sum1 --check | filecheck %s --check-prefix=RESULT
// Emission keeps the loop-level IR small: index arithmetic on constants is
// folded as it is emitted, and a loop of one trip is no loop, its index the
// constant where the loop would be.

// Row 2 of x: the one-trip row loop is gone, and its index plus the slice's
// start (0 + 2) is the constant 2.
// CHECK-LABEL: func.func private @row_k0_slice
// CHECK-SAME:  (%[[X:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<1x8xf32>)
// CHECK-DAG:   %[[ROW:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[TWO:.*]] = arith.constant 2 : index
// CHECK:       scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[X]][%[[TWO]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:    memref.store %[[V]], %[[OUT]][%[[ROW]], %[[J]]] : memref<1x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @row(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  %s = graph.slice %x {starts = array<i64: 2>, ends = array<i64: 3>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  func.return %s : tensor<1x8xf32>
}

// A sum over an axis of extent 1 is one add, no reduction loop.
// CHECK-LABEL: func.func private @sum1_k0_reduce_sum
// CHECK-SAME:  (%[[Y:.*]]: memref<4x1xf32>, %[[S:.*]]: memref<4xf32>)
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:     scf.for
// CHECK:         %[[E:.*]] = memref.load %[[Y]][%[[I]], %{{.*}}] : memref<4x1xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK-NEXT:    memref.store %[[T]], %[[S]][%[[I]]] : memref<4xf32>
// CHECK-NEXT:  }
func.func @sum1(%y: tensor<4x1xf32>) -> tensor<4xf32> {
  %s = graph.reduce_sum %y {axes = array<i64: 1>} : (tensor<4x1xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
// RESULT: check: OK
