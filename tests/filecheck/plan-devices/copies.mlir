// RUN: graph-opt -p 'plan-devices{groups="dev1:cpu0,dev2:cpu1" default=cpu0}' %s | filecheck %s
// RUN: graph-run %s --check -p 'plan-devices{groups="dev1:cpu0,dev2:cpu1" default=cpu0}' | filecheck %s --check-prefix=EXEC

// The seed's example: a*b in dev1, +c in dev2 with dev1 -> cpu0, dev2 -> cpu1.
// The product and c (an argument, on the default device) are copied to cpu1;
// the tanh without a group follows its input onto cpu1.
// CHECK-LABEL: func.func @seed
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<4x8xf32>)
// CHECK:      %[[P:.*]] = graph.mul %[[A]], %[[B]] {device_group = "dev1", placed_on = "cpu0"}
// CHECK-DAG:  %[[PC:.*]] = graph.copy %[[P]] {placed_on = "cpu1", device = "cpu1"}
// CHECK-DAG:  %[[CC:.*]] = graph.copy %[[C]] {placed_on = "cpu1", device = "cpu1"}
// CHECK:      %[[S:.*]] = graph.add %[[PC]], %[[CC]] {device_group = "dev2", placed_on = "cpu1"}
// CHECK:      %[[T:.*]] = graph.tanh %[[S]] {placed_on = "cpu1"}
// CHECK:      func.return %[[T]]
// EXEC-LABEL: output 0: (4, 8) float32
// EXEC-NEXT: check: OK
func.func @seed(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = graph.mul %a, %b {device_group = "dev1"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = graph.add %p, %c {device_group = "dev2"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = graph.tanh %s : tensor<4x8xf32>
  func.return %t : tensor<4x8xf32>
}
