// RUN: graph-opt --version 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: graph-opt {{[0-9]+\.[0-9]+\.[0-9]+.*}} (xDSL {{[0-9]+\.[0-9]+\.[0-9]+.*}})
// CHECK-NOT: Traceback
