// The target flags are recorded on the module as #loop.target, and the LLVM
// IR and object code are for that target.
// RUN: graph-opt %s --target-cpu=haswell | filecheck %s --check-prefix=ATTR
// RUN: graph-opt %s --target-features=-avx512f | filecheck %s --check-prefix=HOSTREL
// RUN: graph-opt %s -O2 -t llvm --target-triple=aarch64-unknown-linux-gnu | filecheck %s --check-prefix=LLVM
// RUN: graph-opt %s -O2 -t obj --target-triple=aarch64-unknown-linux-gnu -o %t.o
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print('ELF', d[:4] == b'\x7fELF', 'machine', int.from_bytes(d[18:20], 'little'))" %t.o | filecheck %s --check-prefix=OBJ
// RUN: graph-compile %s -o %t2.o --target-cpu=haswell
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print('ELF', d[:4] == b'\x7fELF', 'machine', int.from_bytes(d[18:20], 'little'))" %t2.o | filecheck %s --check-prefix=X86
// RUN: graph-run %s --target-cpu=haswell --check | filecheck %s --check-prefix=EXEC

// ATTR: builtin.module attributes {loop.target = #loop.target<cpu = "haswell">}
// HOSTREL: builtin.module attributes {loop.target = #loop.target<cpu = "host", features = "-avx512f">}
// LLVM: target triple = "aarch64-unknown-linux-gnu"
// LLVM-LABEL: define void @"f"(
// ELF machine 183 is AArch64, 62 is x86-64.
// OBJ: ELF True machine 183
// X86: ELF True machine 62
// EXEC: check: OK (1 outputs match the reference)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
