// RUN: graph-opt -p 'autodiff{func=seed wrt=a,b,c},plan-devices{groups="dev1:cpu0,dev2:cpu1" default=cpu0}' %s | filecheck %s
// RUN: graph-opt -p 'autodiff{func=seed wrt=a,b,c}' %s -o %t.mlir
// RUN: graph-run %t.mlir --entry seed_grad --check -p 'plan-devices{groups="dev1:cpu0,dev2:cpu1" default=cpu0},fuse-ops,plan-memory' | filecheck %s --check-prefix=EXEC

// Backward ops inherit their forward op's device group, so the gradient of
// the dev1 product is computed on cpu0, next to the product itself.
// CHECK-LABEL: func.func @seed_grad
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4x8xf32>, %[[C:[^:]*]]: tensor<4x8xf32>, %[[D:[^:]*]]: tensor<4x8xf32>
// CHECK:       graph.add {{.*}} {device_group = "dev2", placed_on = "cpu1"}
// CHECK-DAG:   %[[GA:.*]] = graph.mul %[[D]], %[[B]] {device_group = "dev1", placed_on = "cpu0"}
// CHECK-DAG:   %[[GB:.*]] = graph.mul %[[D]], %[[A]] {device_group = "dev1", placed_on = "cpu0"}
// CHECK:       func.return %{{.*}}, %[[GA]], %[[GB]], %[[D]]
// EXEC: check: OK (4 outputs match the reference)
func.func @seed(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = graph.mul %a, %b {device_group = "dev1"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = graph.add %p, %c {device_group = "dev2"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %s : tensor<4x8xf32>
}
