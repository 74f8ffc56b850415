// A file that is not text is a located parse error, not a crash.
// RUN: not graph-opt %S/Inputs/binary.mlir 2>&1 | filecheck %s
// RUN: not graph-run %S/Inputs/binary.mlir 2>&1 | filecheck %s
// CHECK: {{.*}}binary.mlir:1:1: error: Unexpected character
// CHECK-NOT: Traceback
