// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// The conv backward schedules (lowering/conv_grad.py) on the FMA micro-kernels
// of the target: AVX-512 tiles of 8 x 32 (vector<16xf32>), AVX2 6 x 16
// (vector<8xf32>).

// grad_input, stride 2: one stride-1 transposed conv per output phase
// (ry, rx), over the taps that reach it: rows 2i read g rows i (tap 1),
// rows 2i+1 g rows i and i+1 (taps 2, 0).  Each phase copies g padded, reads
// the flipped, transposed weight into its panel (phase (0, 0): w[f, c, 1, 1];
// phase (1, 1): w[f, c, 2, 2], w[f, c, 2, 0], ...), accumulates 5 pixels x 16
// channels in vector registers and stores its tile at (2i + ry, 2j + rx).
// CHECK-LABEL: func.func private @dx_k0_conv2d_grad_input
// The weight is an argument: it is scanned first (w - w, summed over the
// buffer, is NaN only if it holds an inf or a NaN); if it does, the scalar
// loops run, which have no term for the padding (0 * inf), else the tiles.
// CHECK-SAME: (%[[G:.*]]: memref<1x16x5x5xf32>, %[[W:.*]]: memref<16x16x3x3xf32>, %[[DX:.*]]: memref<1x16x10x10xf32>)
// CHECK:       %[[FLAT:.*]] = memref.collapse_shape %[[W]]
// CHECK:       %[[C1:.*]] = arith.constant 1 : index
// CHECK:       %[[WV:.*]] = vector.load %[[FLAT]]
// CHECK-NEXT:  arith.subf %[[WV]], %[[WV]] : vector<16xf32>
// CHECK:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:       %[[BAD:.*]] = arith.cmpf uno
// CHECK:       memref.alloca() : memref<16x1x5x5xf32>
// CHECK:       memref.alloca() : memref<16x32xf32>
// CHECK:       %[[XQ:.*]] = memref.alloca() : memref<16x1x6x6xf32>
// CHECK:       %[[TILE:.*]] = memref.alloca() : memref<8x32xf32>
// CHECK:       %[[PANEL:.*]] = memref.alloca() : memref<64x32xf32>
// CHECK:       scf.if %[[BAD]] {
// CHECK:       } else {
// CHECK:       memref.load %[[W]][%{{.*}}, %{{.*}}, %[[C1]], %[[C1]]]
// CHECK:       vector.fma
// CHECK:       memref.store %{{.*}}, %[[XQ]]
// CHECK:       memref.load %[[W]][%{{.*}}, %{{.*}}, %[[C2]], %[[C2]]]
// CHECK:       scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:         scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>
// CHECK:           %[[B:.*]] = vector.load %[[PANEL]]
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[XQ]]
// CHECK-NEXT:      %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-NEXT:      vector.fma %[[AV]], %[[B]], %{{.*}} : vector<16xf32>
// CHECK:       %[[OLD:.*]] = vector.load %[[TILE]]
// CHECK-NEXT:  %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[SUM]], %[[TILE]]
// CHECK:       %[[Y2:.*]] = arith.muli %{{.*}}, %[[C2]] : index
// CHECK-NEXT:  %[[Y:.*]] = arith.addi %[[Y2]], %[[C1]] : index
// CHECK:       %[[X2:.*]] = arith.muli %{{.*}}, %[[C2]] : index
// CHECK-NEXT:  %[[X:.*]] = arith.addi %[[X2]], %[[C1]] : index
// CHECK-NEXT:  %[[T:.*]] = memref.load %[[TILE]]
// CHECK-NEXT:  memref.store %[[T]], %[[DX]][%{{.*}}, %{{.*}}, %[[Y]], %[[X]]]
func.func @dx(%g: tensor<1x16x5x5xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x10x10xf32> {
  %dx = graph.conv2d_grad_input %g, %w {shape = array<i64: 1, 16, 10, 10>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x5x5xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x10x10xf32>
  func.return %dx : tensor<1x16x10x10xf32>
}

// grad_filter: the GEMM dw[16, 8*3*3] = g[16, 100 pixels] . im2col(x).  x is
// copied padded, g transposed to gT[pixel, filter] (zero-padded to 32); a
// tile of 8 channels at one tap (ky, kx loops) x 16 filters sums over the
// pixels in registers, then adds into S[channel, ky, kx, filter]; the
// epilogue stores S transposed into dw.
// CHECK-LABEL: func.func private @dw_k0_conv2d_grad_filter
// CHECK-SAME: (%[[X:.*]]: memref<1x8x10x10xf32>, %[[G:.*]]: memref<1x16x10x10xf32>, %[[DW:.*]]: memref<16x8x3x3xf32>)
// CHECK:       %[[XQ:.*]] = memref.alloca() : memref<8x1x12x12xf32>
// CHECK:       %[[GT:.*]] = memref.alloca() : memref<1x100x32xf32>
// CHECK:       %[[S:.*]] = memref.alloca() : memref<1x8x3x3x32xf32>
// CHECK:       %[[XV:.*]] = memref.load %[[X]]
// CHECK-NEXT:  memref.store %[[XV]], %[[XQ]]
// CHECK:       %[[GV:.*]] = memref.load %[[G]]
// CHECK:       memref.store %[[GV]], %[[GT]]
// CHECK:       scf.for %[[KY:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         scf.for %[[KX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:             scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>
// CHECK:               %[[B:.*]] = vector.load %[[GT]]
// CHECK:               %[[A:.*]] = memref.load %[[XQ]]
// CHECK-NEXT:          %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-NEXT:          vector.fma %[[AV]], %[[B]], %{{.*}} : vector<16xf32>
// CHECK:           %[[OLD:.*]] = vector.load %[[S]][%{{.*}}, %{{.*}}, %[[KY]], %[[KX]], %{{.*}}]
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:      vector.store %[[SUM]], %[[S]]
// CHECK:       %[[V:.*]] = memref.load %[[S]]
// CHECK-NEXT:  memref.store %[[V]], %[[DW]]

// With AVX2, gT and S are padded to panels of 16 filters and a tile is 6
// channels x 16 filters: 12 accumulators.
// AVX2-LABEL: func.func private @dw_k0_conv2d_grad_filter
// AVX2:       %[[GT:.*]] = memref.alloca() : memref<1x100x16xf32>
// AVX2:       %[[S:.*]] = memref.alloca() : memref<1x8x3x3x16xf32>
// AVX2:       scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// AVX2:         %[[B:.*]] = vector.load %[[GT]]
// AVX2:         %[[A:.*]] = memref.load
// AVX2-NEXT:    %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<8xf32>
// AVX2-NEXT:    vector.fma %[[AV]], %[[B]], %{{.*}} : vector<8xf32>
func.func @dw(%x: tensor<1x8x10x10xf32>, %g: tensor<1x16x10x10xf32>) -> tensor<16x8x3x3xf32> {
  %dw = graph.conv2d_grad_filter %x, %g {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x10x10xf32>, tensor<1x16x10x10xf32>) -> tensor<16x8x3x3xf32>
  func.return %dw : tensor<16x8x3x3xf32>
}
