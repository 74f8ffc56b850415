// RUN: graph-opt -p 'fuse-ops{max-inputs=3}' %s | filecheck %s
// RUN: graph-opt -p 'fuse-ops{max-inputs=3 remarks=true}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: graph-opt -p fuse-ops %s | filecheck %s --check-prefix=NOLIMIT
// RUN: not graph-opt -p 'fuse-ops{max-depth=0}' %s 2>&1 | filecheck %s --check-prefix=DEPTH
// RUN: not graph-opt -p 'fuse-ops{max-inputs=-1}' %s 2>&1 | filecheck %s --check-prefix=INPUTS

// max-inputs limits the distinct values a group reads (splat constants do
// not count: they become scalars in the kernel).  Off (0) by default.
// CHECK-LABEL: func.func @many_inputs
// CHECK:         %[[A:.*]] = fused.group "add_mul_add" pattern(elemwise)
// CHECK:         %[[B:.*]] = fused.group "mul_add_relu" pattern(elemwise) (%{{.*}} = %[[A]] : tensor<8xf32>
// NOLIMIT-LABEL: func.func @many_inputs
// NOLIMIT:         fused.group "add_mul_add_mul_add_relu"
// REMARK: limits.mlir:[[# @LINE + 8]]:3: remark: not fused: graph.add -> graph.mul: input limit: the group would read 5 inputs (max-inputs=3)
// DEPTH: fuse-ops: max-depth must be >= 1, got 0
// INPUTS: fuse-ops: max-inputs must be >= 0 (0 = no limit), got -1
func.func @many_inputs(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>, %d: tensor<8xf32>, %e: tensor<8xf32>, %f: tensor<8xf32>) -> tensor<8xf32> {
  %one = graph.constant splat 1.0 : tensor<8xf32>
  %t0 = graph.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t1 = graph.mul %t0, %one : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t2 = graph.add %t1, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t3 = graph.mul %t2, %d : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t4 = graph.add %t3, %e : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t5 = graph.relu %t4 : tensor<8xf32>
  func.return %t5 : tensor<8xf32>
}
