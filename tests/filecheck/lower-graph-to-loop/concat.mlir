// A concat root is stored one input at a time into its slice of the output
// (no select chain reading every input at every element).  An input that is a
// kernel buffer is a flat copy per outer index, both buffers collapsed around
// the axis; a fused producer is its own nest, inlined and stored at the
// offset; empty inputs are skipped.
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt -p lower-graph-to-loop,lower-loop-to-llvm -t llvm %s | filecheck %s --check-prefix=LLVM
// RUN: graph-run %s --check | filecheck %s --check-prefix=RESULT
// RUN: graph-run -O2 %s --check | filecheck %s --check-prefix=RESULT

// CHECK-LABEL: func.func private @cat_k0_neg_concat(
// CHECK-SAME:    %[[X:[^:]*]]: memref<2x3x4xf32>, %[[Y:[^:]*]]: memref<2x5x4xf32>, %[[Z:[^:]*]]: memref<2x0x4xf32>, %[[OUT:[^:]*]]: memref<2x8x4xf32>)
// CHECK-NOT:   arith.select
// CHECK:       memref.load %[[X]]
// CHECK:       arith.negf
// CHECK:       memref.store {{.*}}, %[[OUT]]
// CHECK:       %[[FY:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0 : i64], [1 : i64, 2 : i64]] : memref<2x5x4xf32> into memref<2x20xf32>
// CHECK:       %[[FOUT:.*]] = memref.collapse_shape %[[OUT]] {{.*}} into memref<2x32xf32>
// CHECK:       %[[J:.*]] = memref.load %[[FY]]
// CHECK-NEXT:  %[[SHIFT:.*]] = arith.addi
// CHECK-NEXT:  memref.store %[[J]], %[[FOUT]][{{.*}}, %[[SHIFT]]]
// CHECK-NOT:   %[[Z]]
// CHECK:       func.return
// CHECK-LABEL: func.func private @cat_k3_concat(
// CHECK-COUNT-2: memref.collapse_shape
// CHECK-NOT:   arith.select
// LLVM-LABEL: define internal void @"cat_k0_neg_concat"
// LLVM-NOT:   select
// LLVM:       ret void
// RESULT: check: OK (2 outputs match the reference)
func.func @cat(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %z: tensor<2x0x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4x8xf32>) {
  %c = fused.group "neg_concat" pattern(injective) (%a = %x : tensor<2x3x4xf32>, %b = %y : tensor<2x5x4xf32>, %e = %z : tensor<2x0x4xf32>) -> (tensor<2x8x4xf32>) {
    %r = graph.neg %a : tensor<2x3x4xf32>
    %0 = graph.concat %r, %b, %e {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x0x4xf32>) -> tensor<2x8x4xf32>
    fused.yield %0 : tensor<2x8x4xf32>
  }
  %s = graph.slice %c {starts = array<i64: 0>, ends = array<i64: 4>, axes = array<i64: 1>} : (tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %t = graph.slice %c {starts = array<i64: 4>, ends = array<i64: 8>, axes = array<i64: 1>} : (tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %d = graph.concat %s, %t {axis = -1 : i64} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
  func.return %c, %d : tensor<2x8x4xf32>, tensor<2x4x8xf32>
}
