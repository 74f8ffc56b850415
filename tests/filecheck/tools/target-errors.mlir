// A target LLVM does not know, a feature not spelt +name/-name, and a
// target this machine cannot run: one diagnostic each, exit 1, no traceback.
// RUN: not graph-opt %s --target-cpu=no-such-cpu 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not graph-run %s --target-cpu=no-such-cpu 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not graph-compile %s -o %t.o --target-cpu=no-such-cpu 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not graph-opt %s --target-features=avx2 2>&1 | filecheck %s --check-prefix=SPELLING
// RUN: not graph-opt %s --target-cpu=haswell --target-features=+no-such-feature 2>&1 | filecheck %s --check-prefix=FEATURE
// RUN: not graph-opt %s --target-triple=no-such-arch-linux 2>&1 | filecheck %s --check-prefix=TRIPLE
// RUN: not graph-run %s --target-triple=aarch64-unknown-linux-gnu 2>&1 | filecheck %s --check-prefix=FOREIGN
// RUN: not graph-compile %s -o %t.so --target-triple=aarch64-unknown-linux-gnu 2>&1 | filecheck %s --check-prefix=LINK
// RUN: not graph-opt %S/Inputs/bad-target-field.mlir 2>&1 | filecheck %s --check-prefix=FIELD

// CPU-NOT: Traceback
// CPU: error: 'no-such-cpu' is not a recognized processor for this target (triple {{.*}}, CPU no-such-cpu)
// CPU-NOT: Traceback

// SPELLING: graph-opt: error: target feature 'avx2' must be '+name' or '-name' (LLVM's spelling, e.g. -avx512f)

// FEATURE: graph-opt: error: '+no-such-feature' is not a recognized feature for this target (triple {{.*}}, CPU haswell)

// TRIPLE: graph-opt: error: unknown target triple 'no-such-arch-linux'

// FOREIGN: graph-run: error: the module is compiled for generic (aarch64-unknown-linux-gnu; NEON{{.*}}), which this machine ({{.*}}) cannot run; compile it to an object file instead

// LINK: graph-compile: error: cannot link a shared library for aarch64-unknown-linux-gnu on this x86_64 machine; write an object file instead (an output ending in .o)

// FIELD-NOT: Traceback
// FIELD: bad-target-field.mlir:{{[0-9]+}}:{{[0-9]+}}: error: #loop.target has no field 'chip' (it has cpu, features, triple)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
