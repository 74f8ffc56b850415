// --check compares with a float64 reference and allows a small multiple of
// the float32 reference's own error, so results as accurate as the float32
// reference pass: a convolution with N(0,1) data whose outputs reach ~1000
// (a fixed atol of 1e-5 failed on its outputs near 0), and an f64 output
// computed in f32 (f64 tolerances could never pass).
// RUN: graph-run %s --entry conv --check | filecheck %s --check-prefix=CONV
// CONV: output 0: (1, 64, 16, 16) float32
// CONV: check: OK (1 outputs match the reference)
// RUN: graph-run %s --entry wide --check --seed 1 | filecheck %s --check-prefix=WIDE
// WIDE: output 0: (8, 8) float64
// WIDE: check: OK (1 outputs match the reference)

func.func @conv(%x: tensor<1x64x16x16xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x16x16xf32> {
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x64x16x16xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x16x16xf32>
  %k = graph.constant splat 40.0 : tensor<1x64x16x16xf32>
  %y = graph.mul %c, %k : (tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  func.return %y : tensor<1x64x16x16xf32>
}

func.func @wide(%a: tensor<8x512xf32>, %b: tensor<512x8xf32>) -> tensor<8x8xf64> {
  %m = graph.matmul %a, %b : (tensor<8x512xf32>, tensor<512x8xf32>) -> tensor<8x8xf32>
  %d = graph.cast %m : (tensor<8x8xf32>) -> tensor<8x8xf64>
  func.return %d : tensor<8x8xf64>
}
