// Stock xdsl-opt runs graph IR with graph-opt's passes and targets, through
// the xdsl.universe entry point graph-opt publishes.
// RUN: xdsl-opt %s -p fuse-ops | filecheck %s
// RUN: xdsl-opt %s -p lower-graph-to-loop | filecheck %s --check-prefix=LOOP
// RUN: xdsl-opt %s -p fuse-ops -t graph-dot | filecheck %s --check-prefix=DOT
// RUN: xdsl-opt %s -p lower-graph-to-loop,lower-loop-to-llvm -t graph-llvm | filecheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @f
// CHECK: %[[G:.*]] = fused.group "matmul_relu" pattern(out_ewise_fusable)
// CHECK: func.return %[[G]]

// LOOP: func.func private @f_k0
// LOOP: arith.constant
// LOOP: func.func @f(%{{.*}}: memref<8x16xf32>

// DOT: digraph "f"
// DOT: subgraph cluster_k0 {
// DOT-NEXT: label="k0 matmul_relu\nout_ewise_fusable"

// LLVM: define internal void @{{"?}}f_k0
// LLVM: define void @{{"?}}f{{"?}}(
func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %m = graph.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %y = graph.relu %m : tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}
