// A value larger than this machine's memory (4 PB here) is refused before
// anything is allocated: one diagnostic naming the value, its shape and its
// size in bytes, and exit 1 -- not numpy's MemoryError or "array is too big".

// An argument, before --random-inputs draws it.
// RUN: not graph-run %s --random-inputs 2>&1 | filecheck %s --check-prefix=ARG
// ARG-NOT: internal error
// ARG: huge-shapes.mlir:[[# @LINE + 14]]:1: error: @f: argument 0 (%x, tensor<100000x100000x100000xf32>) needs 4000000000000000 bytes, more than this machine's memory ({{[0-9]+}} bytes)
// ARG-NOT: Traceback

// A result, before compiling.
// RUN: not graph-run %S/Inputs/huge_result.mlir 2>&1 | filecheck %s --check-prefix=RESULT
// RESULT-NOT: internal error
// RESULT: huge_result.mlir:1:1: error: @f: result 0 (tensor<100000x100000x100000xf32>) needs 4000000000000000 bytes, more than this machine's memory ({{[0-9]+}} bytes)

// The workspace (an intermediate of the unfused -O0 graph), before the call
// allocates it.
// RUN: not graph-run %S/Inputs/huge_workspace.mlir -O0 2>&1 | filecheck %s --check-prefix=WORKSPACE
// WORKSPACE-NOT: internal error
// WORKSPACE: huge_workspace.mlir:1:1: error: f: the workspace needs 4000000000000000 bytes, more than this machine's memory ({{[0-9]+}} bytes)

func.func @f(%x: tensor<100000x100000x100000xf32>) -> tensor<100000x100000x100000xf32> {
  %y = graph.relu %x : tensor<100000x100000x100000xf32>
  func.return %y : tensor<100000x100000x100000xf32>
}
