// An input file that does not exist.
// RUN: not graph-opt %t.does-not-exist.mlir 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: graph-opt: error: cannot open '{{.*}}does-not-exist.mlir': no such file
// CHECK-NOT: Traceback
