// graph-run's user errors: one diagnostic, a non-zero exit, no traceback.
// RUN: not graph-run %s --entry nope 2>&1 | filecheck %s --check-prefix=ENTRY
// ENTRY: graph-run: error: no function @nope in the module
// ENTRY-NOT: Traceback

// RUN: not graph-run %s --inputs %t.missing.npz 2>&1 | filecheck %s --check-prefix=NPZ
// NPZ: graph-run: error: cannot open '{{.*}}missing.npz': no such file
// NPZ-NOT: Traceback

// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.zeros((3, 5), np.float32))"
// RUN: not graph-run %s --inputs %t.npz 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: graph-run: error: {{.*}}argument 0 (%x): expected shape (4, 8) float32, got (3, 5) float32
// SHAPE-NOT: Traceback

// RUN: %python -c "import numpy as np; np.savez('%t.f64.npz', x=np.zeros((4, 8), np.float64))"
// RUN: not graph-run %s --inputs %t.f64.npz 2>&1 | filecheck %s --check-prefix=DTYPE
// DTYPE: graph-run: error: {{.*}}argument 0 (%x): expected shape (4, 8) float32, got (4, 8) float64
// DTYPE-NOT: Traceback

// RUN: not graph-run %t.nofile.mlir 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: graph-run: error: cannot open '{{.*}}nofile.mlir': no such file
// NOFILE-NOT: Traceback

// RUN: not graph-run %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// PASS: graph-run: error: {{.*}}no-such-pass
// PASS-NOT: Traceback

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = graph.tanh %x : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
