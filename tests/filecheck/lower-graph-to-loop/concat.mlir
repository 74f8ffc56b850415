// A concat root is stored one input at a time, each a copy nest into its slice
// of the output (no select chain reading every input at every element); fused
// producers are inlined into their input's nest, empty inputs are skipped.
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --check | filecheck %s --check-prefix=RESULT
// RUN: graph-run -O2 %s --check | filecheck %s --check-prefix=RESULT

// CHECK-LABEL: func.func private @cat_k0_relu_concat(
// CHECK-SAME:    %[[X:[^:]*]]: memref<2x3x4xf32>, %[[Y:[^:]*]]: memref<2x5x4xf32>, %[[Z:[^:]*]]: memref<2x0x4xf32>, %[[OUT:[^:]*]]: memref<2x8x4xf32>)
// CHECK-NOT:   arith.select
// CHECK:       memref.load %[[X]]
// CHECK:       arith.maximumf
// CHECK:       memref.store {{.*}}, %[[OUT]]
// CHECK:       %[[SHIFT:.*]] = arith.addi
// CHECK:       memref.load %[[Y]]
// CHECK-NEXT:  memref.store {{.*}}, %[[OUT]][{{.*}}, %[[SHIFT]], {{.*}}]
// CHECK-NOT:   memref.load %[[Z]]
// CHECK:       func.return
// RESULT: check: OK (2 outputs match the reference)
func.func @cat(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %z: tensor<2x0x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4x8xf32>) {
  %c = fused.group "relu_concat" pattern(injective) (%a = %x : tensor<2x3x4xf32>, %b = %y : tensor<2x5x4xf32>, %e = %z : tensor<2x0x4xf32>) -> (tensor<2x8x4xf32>) {
    %r = graph.relu %a : tensor<2x3x4xf32>
    %0 = graph.concat %r, %b, %e {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x0x4xf32>) -> tensor<2x8x4xf32>
    fused.yield %0 : tensor<2x8x4xf32>
  }
  %s = graph.slice %c {starts = array<i64: 0>, ends = array<i64: 4>, axes = array<i64: 1>} : (tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %t = graph.slice %c {starts = array<i64: 4>, ends = array<i64: 8>, axes = array<i64: 1>} : (tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %d = graph.concat %s, %t {axis = -1 : i64} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
  func.return %c, %d : tensor<2x8x4xf32>, tensor<2x4x8xf32>
}
