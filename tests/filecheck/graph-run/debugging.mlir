// graph-run is debugged like graph-opt: --load-plugin, --mlir-timing (or
// --time-passes), the print-IR flags, and progress of the compile on stderr
// (shown on a terminal once a compile takes over a second; --progress=always
// shows it anywhere).
// RUN: graph-run %s -O2 --check --mlir-timing 2>&1 | filecheck %s --check-prefix=TIME
// TIME: check: OK
// TIME: ----Wall Time----  ----Name----
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  parse
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  optimize and lower
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    fold-constants
// TIME: {{[0-9.]+}} ({{ *[0-9.]+}}%)    fuse-ops
// TIME: {{[0-9.]+}} ({{ *[0-9.]+}}%)    lower-graph-to-loop
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  lower-loop-to-llvm
// TIME: LLVM compile
// TIME: run
// TIME: check
// TIME: (100.0%)  Total

// RUN: graph-run %s -O2 --mlir-print-ir-after=fuse-ops --mlir-print-ir-before=lower-graph-to-loop 2>&1 | filecheck %s --check-prefix=IR
// IR: // -----// IR Dump After fuse-ops //----- //
// IR: fused.group
// IR: // -----// IR Dump Before lower-graph-to-loop //----- //
// IR: output 0: (4, 8) float32
// RUN: graph-run %examples/mlp.mlir --mlir-print-ir-before=lower-graph-to-loop --mlir-elide-elementsattrs-if-larger=16 2>&1 | filecheck %s --check-prefix=ELIDE
// ELIDE: IR Dump Before lower-graph-to-loop
// ELIDE: graph.constant dense_resource<__elided__> : tensor<16x32xf32>

// RUN: graph-run %s -O1 --progress=always 2>&1 >/dev/null | filecheck %s --check-prefix=PROGRESS
// PROGRESS: graph-run: parse {{[0-9.]+}} s
// PROGRESS: graph-run: fold-constants {{[0-9.]+}} s
// PROGRESS: graph-run: lower-graph-to-loop {{[0-9.]+}} s
// PROGRESS: graph-run: lower-loop-to-llvm {{[0-9.]+}} s
// PROGRESS: graph-run: LLVM compile {{[0-9.]+}} s
// RUN: graph-run %s -O1 2>&1 >/dev/null | filecheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: graph-run:

// A plugin's op compiles and runs.
// RUN: graph-run --load-plugin %plugins/square_op.py %S/Inputs/square.mlir --check | filecheck %s --check-prefix=PLUGIN
// PLUGIN: check: OK (1 outputs match the reference)

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = graph.exp %x : tensor<4x8xf32>
  %z = graph.relu %y : tensor<4x8xf32>
  func.return %z : tensor<4x8xf32>
}
