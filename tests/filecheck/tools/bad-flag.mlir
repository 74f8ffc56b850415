// An unknown command-line flag is an argparse usage error (exit status 2).
// RUN: not graph-opt --no-such-flag %s 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: usage: graph-opt
// CHECK: graph-opt: error: unrecognized arguments: --no-such-flag
// CHECK-NOT: Traceback
