// A user's mistakes get one diagnostic naming the problem and what to do,
// never an internal error.
// Any extension, or none, is read as MLIR when it parses (unknown-extension.mlir
// has the files that do not).
// RUN: cp %s %t.txt && graph-opt %t.txt | filecheck %s --check-prefix=EXT
// RUN: cp %s %t-noext && graph-opt %t-noext | filecheck %s --check-prefix=EXT
// EXT: func.func @f

// -t llvm on graph-level IR names the missing passes.
// RUN: not graph-opt -t llvm %s 2>&1 | filecheck %s --check-prefix=LLVM
// LLVM-NOT: internal error
// LLVM: user-mistakes.mlir:[[# @LINE + 20]]:1: error: -t llvm needs LLVM-dialect IR, but the module is still graph-level (func.func is not lowered); add -O2 (an -O level also lowers) or append 'lower-graph-to-loop,lower-loop-to-llvm' to -p
// RUN: not graph-opt -t llvm -p lower-graph-to-loop %s 2>&1 | filecheck %s --check-prefix=LOOP
// LOOP: error: -t llvm needs LLVM-dialect IR, but the module is still loop-level ({{.*}} is not lowered); {{.*}} append 'lower-loop-to-llvm' to -p
// RUN: graph-opt -t llvm -O1 %s | filecheck %s --check-prefix=LOWERED
// LOWERED: define void @"f"(

// xDSL's own low-level targets are refused, and not offered in --help.
// RUN: not graph-opt -t x86-asm %s 2>&1 | filecheck %s --check-prefix=X86
// RUN: not graph-opt -t wgsl %s 2>&1 | filecheck %s --check-prefix=WGSL
// X86: graph-opt: error: target 'x86-asm' prints x86 assembly from xDSL's own low-level dialects, not graph IR; graph-opt's targets are: {{.*}}llvm
// X86-NOT: internal error
// WGSL: graph-opt: error: target 'wgsl' prints WGSL shaders
// RUN: graph-opt --help | filecheck %s --check-prefix=HELP
// HELP-NOT: x86-asm
// HELP: output format: {{.*}}mlir

// An input that is a directory.
// RUN: not graph-opt %S 2>&1 | filecheck %s --check-prefix=DIR
// DIR: graph-opt: error: cannot open '{{.*}}tools': it is a directory

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
