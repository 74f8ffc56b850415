// A write that fails -- here every write to /dev/full, which has no space --
// is one diagnostic and exit 1 for every tool and every kind of output, never
// an internal error or a silent success.  (Files on a full or read-only file
// system, and the old file kept, are tested in test_reliability_output.py.)
// REQUIRES: dev-full

// RUN: not graph-opt %s -o /dev/full 2>&1 | filecheck %s --check-prefix=OPT
// OPT: graph-opt: error: cannot write '/dev/full': No space left on device
// OPT-NOT: internal error
// RUN: not graph-opt %s -t dot -o /dev/full 2>&1 | filecheck %s --check-prefix=OPT
// RUN: not graph-opt %s -O2 -t llvm -o /dev/full 2>&1 | filecheck %s --check-prefix=OPT
// RUN: not graph-opt %s -O2 -t obj -o /dev/full 2>&1 | filecheck %s --check-prefix=OPT

// stdout too, whether Python buffers it or not.
// RUN: not graph-opt %s > /dev/full 2> %t.stdout.err
// RUN: filecheck %s --check-prefix=STDOUT < %t.stdout.err
// RUN: env PYTHONUNBUFFERED=1 not graph-opt %s > /dev/full 2> %t.stdout.err
// RUN: filecheck %s --check-prefix=STDOUT < %t.stdout.err
// RUN: env PYTHONUNBUFFERED= not graph-opt %s -t dot > /dev/full 2> %t.stdout.err
// RUN: filecheck %s --check-prefix=STDOUT < %t.stdout.err
// STDOUT: graph-opt: error: cannot write to stdout: No space left on device
// STDOUT-NOT: Exception ignored
// STDOUT-NOT: internal error
// RUN: not graph-run %s > /dev/full 2> %t.run.err
// RUN: filecheck %s --check-prefix=RUN-STDOUT < %t.run.err
// RUN-STDOUT: graph-run: error: cannot write to stdout: No space left on device
// RUN-STDOUT-NOT: Exception ignored

// graph-run --output (.npz), graph-compile (library and header) and graph-import -o.
// RUN: not graph-run %s --output /dev/full 2>&1 | filecheck %s --check-prefix=NPZ
// NPZ: graph-run: error: cannot write '/dev/full': No space left on device
// NPZ-NOT: internal error
// RUN: not graph-compile %s -o /dev/full --header %t.h 2>&1 | filecheck %s --check-prefix=LIB
// LIB: graph-compile: error: cannot write '/dev/full': No space left on device
// The library failed, so the header was not written either.
// RUN: %python -c "import os, sys; sys.exit(os.path.exists(r'%t.h'))"
// RUN: not graph-compile %s -o %t.so --header /dev/full 2>&1 | filecheck %s --check-prefix=LIB
// RUN: %python -c "import os, sys; sys.exit(os.path.exists(r'%t.so'))"

// A directory as the target is refused, and no temporary file is left.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: not graph-opt %s -o %t.dir 2>&1 | filecheck %s --check-prefix=DIR
// RUN: not graph-compile %s -o %t.dir 2>&1 | filecheck %s --check-prefix=DIR
// DIR: error: cannot write '{{.*}}.dir': it is a directory
// RUN: not graph-opt %s -o %t.dir/missing/out.mlir 2>&1 | filecheck %s --check-prefix=NODIR
// NODIR: graph-opt: error: cannot write '{{.*}}out.mlir': no such directory '{{.*}}missing'
// RUN: %python -c "import os, sys; sys.exit(len(os.listdir(r'%t.dir')))"

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
