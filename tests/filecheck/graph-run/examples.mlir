// Every example compiles and matches the reference interpreter.
// RUN: graph-run %examples/mlp.mlir --random-inputs --seed 3 --check 2>&1 | filecheck %s --check-prefix=MLP
// MLP: output 0: (4, 10) float32
// MLP: check: OK (1 outputs match the reference)
// MLP-NOT: Traceback

// The CNN of the README: conv, batch_norm, relu, max_pool, conv,
// global_avg_pool, flatten, matmul, softmax on 1x3x32x32.
// RUN: graph-run %examples/cnn.mlir --random-inputs --check 2>&1 | filecheck %s --check-prefix=CNN
// RUN: graph-run %examples/cnn.mlir --random-inputs --seed 1 -O3 --check 2>&1 | filecheck %s --check-prefix=CNN
// CNN: output 0: (1, 10) float32
// CNN: check: OK (1 outputs match the reference)
// RUN: graph-opt -p 'fuse-ops{summary=true}' %examples/cnn.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=CNN-FUSE
// CNN-FUSE: fuse-ops summary @cnn: 2 groups, kernels 10 -> 8
// CNN-FUSE: group batch_norm_relu pattern(out_ewise_fusable)
// CNN-FUSE: group matmul_add pattern(out_ewise_fusable)
