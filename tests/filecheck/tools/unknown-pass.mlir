// An unknown pass name, alone or inside a pipeline; a near miss gets a
// suggestion, and so does a misspelled target or flag.
// RUN: not graph-opt %s -p no-such-pass 2>&1 | filecheck %s
// RUN: not graph-opt %s -p cse,no-such-pass,dce 2>&1 | filecheck %s
// RUN: not graph-opt %s -p canonicalise 2>&1 | filecheck %s --check-prefix=MEAN
// RUN: not graph-opt %s -p cse -p fuse-op 2>&1 | filecheck %s --check-prefix=SECOND
// RUN: not graph-opt %s -t lvm 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not graph-opt %s --mlir-print-ir-afterall 2>&1 | filecheck %s --check-prefix=FLAG

// CHECK-NOT: Traceback
// CHECK: graph-opt: error: unknown pass 'no-such-pass' (graph-opt --list-passes lists them)
// CHECK-NOT: Traceback
// CHECK-NOT: builtin.module

// MEAN: graph-opt: error: unknown pass 'canonicalise'; did you mean 'canonicalize'?
// SECOND: graph-opt: error: unknown pass 'fuse-op'; did you mean 'fuse-ops'?
// TARGET: graph-opt: error: unknown target 'lvm'; did you mean 'llvm'?
// FLAG: graph-opt: error: unrecognized arguments: --mlir-print-ir-afterall; did you mean '--mlir-print-ir-after-all'?

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
