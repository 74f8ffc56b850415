// graph-run's input handling: bad .npz/.npy files, seeds, --bench and
// --output are one diagnostic each; --output writes exactly the path given,
// only on success.
// RUN: %python -c "import numpy as np; np.savez('%t.obj.npz', x=np.array([{}, 1], dtype=object))"
// RUN: not graph-run %s --inputs %t.obj.npz 2>&1 | filecheck %s --check-prefix=OBJECT
// OBJECT: graph-run: error: '{{.*}}obj.npz': array 'x' holds Python objects; save numeric arrays
// OBJECT-NOT: internal error

// A corrupt member: the stored bytes of x.npy are garbled.
// RUN: %python -c "import numpy as np, zipfile; np.savez_compressed('%t.bad.npz', x=np.zeros((4, 8), np.float32)); b = bytearray(open('%t.bad.npz', 'rb').read()); i = b.index(b'x.npy') + 40; b[i:i + 40] = b'\x00' * 40; open('%t.bad.npz', 'wb').write(bytes(b))"
// RUN: not graph-run %s --inputs %t.bad.npz 2>&1 | filecheck %s --check-prefix=CORRUPT
// CORRUPT: graph-run: error: cannot read array 'x' from '{{.*}}bad.npz'
// CORRUPT-NOT: internal error

// A .npy file is the input of a one-argument function.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.ones((4, 8), np.float32))"
// RUN: graph-run %s --inputs %t.x.npy --check | filecheck %s --check-prefix=NPY
// NPY: output 0: (4, 8) float32 min=0.761594 max=0.761594
// NPY: check: OK
// RUN: not graph-run %s --entry two --inputs %t.x.npy 2>&1 | filecheck %s --check-prefix=NPY2
// NPY2: graph-run: error: '{{.*}}x.npy' holds one array, but @two takes 2 inputs; save them in one .npz

// RUN: not graph-run %s --seed -5 2>&1 | filecheck %s --check-prefix=SEED
// SEED: graph-run: error: argument --seed: expected a non-negative integer, got -5
// RUN: not graph-run %s --bench -3 2>&1 | filecheck %s --check-prefix=BENCH
// BENCH: graph-run: error: argument --bench: expected a non-negative integer, got -3
// RUN: not graph-run %s --bench 0 2>&1 | filecheck %s --check-prefix=BENCH0
// BENCH0: graph-run: error: argument --bench: expected a positive number of calls, got 0

// --output writes exactly the path given, with no .npz appended.
// RUN: rm -rf %t.out %t.out.npz && graph-run %s --output %t.out
// RUN: %python -c "import numpy as np, os; assert not os.path.exists(r'%t.out.npz'); print(np.load(r'%t.out').files)" | filecheck %s --check-prefix=EXACT
// EXACT: ['out0']
// A directory is refused, and a failing run leaves the file untouched.
// RUN: mkdir -p %t.dir && not graph-run %s --output %t.dir 2>&1 | filecheck %s --check-prefix=DIR
// DIR: graph-run: error: cannot write '{{.*}}dir': it is a directory
// RUN: echo precious > %t.keep && not graph-run %s --inputs %t.obj.npz --output %t.keep
// RUN: filecheck %s --check-prefix=KEEP < %t.keep
// KEEP: precious

// -p that lowers is refused rather than compiling an empty module.
// RUN: not graph-run %s -p cse,lower-graph-to-loop 2>&1 | filecheck %s --check-prefix=LOWERS
// LOWERS: graph-run: error: -p 'cse,lower-graph-to-loop' lowers the module (lower-graph-to-loop), but graph-run lowers after -p itself; give -p graph-level passes only

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = graph.tanh %x : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

func.func private @two(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = graph.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %z : tensor<4x8xf32>
}
