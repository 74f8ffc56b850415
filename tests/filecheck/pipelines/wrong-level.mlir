// A pass applied at a level it does not run at refuses with one diagnostic
// naming the pass, the level found and an op that shows it (exit 1), instead
// of exiting 0 having done nothing or something wrong.
// RUN: not graph-opt %s -p 'lower-graph-to-loop,autodiff{func=mlp}' 2>&1 | filecheck %s --check-prefix=AD
// RUN: graph-opt %s -p lower-graph-to-loop | not graph-opt -p fold-constants 2>&1 | filecheck %s --check-prefix=FOLD
// RUN: graph-opt %s -p lower-graph-to-loop | not graph-opt -p lower-graph-to-loop 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: graph-opt %s -p lower-graph-to-loop,lower-loop-to-llvm | not graph-opt -p fuse-ops 2>&1 | filecheck %s --check-prefix=LLVM
// RUN: not graph-opt %s -p lower-loop-to-llvm 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: graph-opt %s -p 'autodiff{func=mlp},lower-graph-to-loop' | filecheck %s --check-prefix=OK

// AD-NOT: Traceback
// AD: {{.*}}error: autodiff: runs on graph-level IR, but the module is at the loop level ({{.*}}); the module has already been lowered by lower-graph-to-loop: run autodiff before it
// AD-NOT: error:
// FOLD: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: fold-constants: runs on graph-level IR, but the module is at the loop level
// TWICE: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: lower-graph-to-loop: runs on graph-level IR, but the module is at the loop level
// LLVM: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: fuse-ops: runs on graph-level IR, but the module is at the llvm level (llvm.
// EARLY: wrong-level.mlir:[[# @LINE + 4]]:3: error: lower-loop-to-llvm: runs on loop-level IR, but the module is at the graph level (graph.matmul); lower the module with lower-graph-to-loop first
// OK-LABEL: func.func @mlp_grad

func.func @mlp(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %h = graph.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %s = graph.reduce_sum %h {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
