// graph-run --threads N: the parallel loops run on N threads, with the same
// results; a bad count is one diagnostic and exit status 2.
// RUN: graph-run %s --random-inputs --check --threads 2 | filecheck %s --check-prefix=TWO
// TWO: output 0: (256, 512) float32
// TWO: check: OK (1 outputs match the reference)
// RUN: graph-run %s --random-inputs --threads 1 --output %t.1.npz
// RUN: graph-run %s --random-inputs --threads 2 --output %t.2.npz
// RUN: %python -c "import numpy as np; a, b = np.load('%t.1.npz'), np.load('%t.2.npz'); assert a['out0'].tobytes() == b['out0'].tobytes(); print('bitwise equal')" | filecheck %s --check-prefix=SAME
// SAME: bitwise equal
// RUN: not graph-run %s --threads 0 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: graph-run: error: argument --threads: expected a thread count >= 1, got 0
// ZERO-NOT: Traceback
// RUN: not graph-run %s --threads two 2>&1 | filecheck %s --check-prefix=WORD
// WORD: graph-run: error: argument --threads: expected a thread count >= 1, got 'two'
func.func @f(%x: tensor<256x512xf32>, %b: tensor<512xf32>) -> tensor<256x512xf32> {
  %a = graph.add %x, %b : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %t = graph.tanh %a : tensor<256x512xf32>
  func.return %t : tensor<256x512xf32>
}
