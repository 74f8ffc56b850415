// --output writes the results; --bench prints compiled and reference medians.
// RUN: graph-run %s --random-inputs --output %t.npz --bench 3 | filecheck %s
// RUN: %python -c "import numpy as np; d = np.load('%t.npz'); print(sorted(d.files), d['out0'].shape, d['out1'].dtype)" | filecheck %s --check-prefix=NPZ
// CHECK: output 0: (4, 8) float32
// CHECK: output 1: (4,) float32
// CHECK: compiled {{.*}} ms
// CHECK: reference {{.*}} ms
// NPZ: ['out0', 'out1'] (4, 8) float32

func.func @two(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %y = graph.sigmoid %x : tensor<4x8xf32>
  %s = graph.reduce_sum %y {axes = array<i64: -1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %y, %s : tensor<4x8xf32>, tensor<4xf32>
}
