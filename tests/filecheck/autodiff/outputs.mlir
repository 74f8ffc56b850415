// RUN: graph-opt -p 'autodiff{func=f wrt=w}' %s | filecheck %s
// RUN: graph-opt -p 'autodiff{func=f wrt=w}' %s -o %t.mlir
// RUN: graph-run %t.mlir --entry f_grad --check | filecheck %s --check-prefix=EXEC
// EXEC: check: OK (4 outputs match the reference)

// Several outputs: one head gradient per float output (none for the i32 one);
// an output that does not depend on x contributes nothing.
// CHECK-LABEL: func.func @f_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<3xf32>, %[[N:.*]]: tensor<3xi32>, %[[H0:.*]]: tensor<3xf32>, %[[H1:.*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>)
// CHECK-DAG: %[[D0:.*]] = graph.mul %[[H0]], %[[X]]
// CHECK-DAG: %[[D1:.*]] = graph.mul %[[H1]], %[[E:.*]] :
// CHECK: %[[DW:.*]] = graph.add_n %[[D1]], %[[D0]]
// CHECK: func.return %{{.*}}, %{{.*}}, %[[N]], %[[DW]]
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>, %n: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>) {
  %a = graph.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %e = graph.exp %w : tensor<3xf32>
  func.return %a, %e, %n : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>
}
