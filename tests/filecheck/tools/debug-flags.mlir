// The debugging flags as mlir-opt spells them, and today's spellings.
// RUN: graph-opt %s -p canonicalize,cse --mlir-print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=ALL
// RUN: graph-opt %s -p canonicalize,cse --print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=ALL
// ALL: // -----// IR Dump After canonicalize //----- //
// ALL: func.func @f
// ALL: // -----// IR Dump After cse //----- //

// RUN: graph-opt %s -p canonicalize,cse,dce --mlir-print-ir-before=cse --mlir-print-ir-after=dce,canonicalize -o /dev/null 2>&1 | filecheck %s --check-prefix=SOME
// SOME: IR Dump After canonicalize
// SOME-NEXT: builtin.module
// SOME: IR Dump Before cse
// SOME-NOT: IR Dump After cse
// SOME: IR Dump After dce
// SOME-NOT: IR Dump

// RUN: not graph-opt %s -p 'cse,autodiff{func=nope}' --mlir-print-ir-after-failure 2>&1 | filecheck %s --check-prefix=FAIL
// FAIL: // -----// IR Dump After autodiff Failed //----- //
// FAIL-NEXT: builtin.module
// FAIL: graph-opt: error: autodiff: no function @nope in the module

// RUN: graph-opt %s -p canonicalize,cse --mlir-timing -o /dev/null 2>&1 | filecheck %s --check-prefix=TIME
// RUN: graph-opt %s -p canonicalize,cse --time-passes -o /dev/null 2>&1 | filecheck %s --check-prefix=TIME
// TIME: ... Execution time report ...
// TIME: Total Execution Time: {{[0-9.]+}} seconds
// TIME: ----Wall Time----  ----Name----
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Pipeline
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    canonicalize
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    cse
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Output
// TIME-NEXT: {{[0-9.]+}} (100.0%)  Total

// RUN: graph-opt %s --mlir-elide-elementsattrs-if-larger=3 | filecheck %s --check-prefix=ELIDE
// ELIDE: graph.constant dense_resource<__elided__> : tensor<4xf32>
// ELIDE: graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// Output to a pipe or a file is exact by default.
// RUN: graph-opt %s | filecheck %s --check-prefix=FULL
// FULL: graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>

// A second -p appends to the first; --dump-pass-pipeline shows the result.
// RUN: graph-opt %s -O1 -p canonicalize -p 'fuse-ops{max-depth=4}' --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=PIPE
// PIPE: Pass Manager with 6 passes:
// PIPE-NEXT: builtin.module(fold-constants{max-elements={{[0-9]+}}},canonicalize,cse,dce,canonicalize,fuse-ops{max-depth=4 max-inputs=0 remarks=false summary=false})

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = graph.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
