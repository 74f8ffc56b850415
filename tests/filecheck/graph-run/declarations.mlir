// A function without a body is a declaration.  A public one is refused by
// the verifier; a private one that nothing calls verifies and is left out
// of the compiled code; running or calling one is one error at it -- never
// an assertion or a crash.

// A private declaration beside the entry: it runs, compiles, and the LLVM
// IR has no trace of the declaration.
// RUN: graph-run %s --check | filecheck %s --check-prefix=OUT
// OUT-LABEL: output 0: (4,) float32
// OUT: check: OK
// RUN: graph-opt %s -O2 -t llvm | filecheck %s --check-prefix=LLVM
// LLVM-NOT: ext_tanh
// LLVM-LABEL: define void @"f"(
// LLVM-NOT: ext_tanh
// RUN: graph-compile %s -o %t.so --header %t.h && filecheck %s --check-prefix=HEADER < %t.h
// HEADER-NOT: ext_tanh
// HEADER: void f(const float *x, float *y, void *workspace);

// Running the declaration itself.
// RUN: not graph-run %s --entry ext_tanh 2>&1 | filecheck %s --check-prefix=ENTRY
// ENTRY: declarations.mlir:[[# @LINE + 16]]:1: error: @ext_tanh is a declaration without a body: there is nothing to run
// ENTRY-NOT: internal error

// A public declaration: the verifier's error, in every tool.
// RUN: not graph-run %S/Inputs/public_declaration.mlir 2>&1 | filecheck %s --check-prefix=PUBLIC
// RUN: not graph-compile %S/Inputs/public_declaration.mlir -o %t.so 2>&1 | filecheck %s --check-prefix=PUBLIC
// RUN: not graph-opt %S/Inputs/public_declaration.mlir -O2 -t llvm 2>&1 | filecheck %s --check-prefix=PUBLIC
// PUBLIC: public_declaration.mlir:1:1: error: func.func @f: a function without a body is a declaration and must be private
// PUBLIC-NOT: internal error

// Calling a declaration from graph-level code: one error at the call.
// RUN: not graph-run %S/Inputs/calls_declaration.mlir 2>&1 | filecheck %s --check-prefix=CALL
// RUN: not graph-opt %S/Inputs/calls_declaration.mlir -O2 -t llvm 2>&1 | filecheck %s --check-prefix=CALL
// CALL: calls_declaration.mlir:3:3: error: lower-graph-to-loop: @f: func.call @g: @g is a declaration without a body; graph functions cannot call external functions
// CALL-NOT: internal error

func.func private @ext_tanh(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.tanh %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
