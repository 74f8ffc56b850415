// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// The conv schedule: a 3x3 conv is an implicit GEMM on the target's FMA
// micro-kernel (8 pixels x 32 channels with AVX-512, 6 x 16 with AVX2). The input
// is copied once per call into a padded, stride-phase-split buffer; the
// weights become [K, NR] panels (packed at compile time when constant,
// copied per panel otherwise); each tile of pixels of one output row x NR
// output channels accumulates blocks of K in vector registers, adds them to
// the tile, and the fused epilogue (residual add, relu) is applied to the
// tile before the store.

// CHECK-LABEL: func.func private @conv_k0_conv2d_add_relu
// CHECK-SAME: (%[[X:.*]]: memref<1x8x10x10xf32>, %[[W:.*]]: memref<32x8x3x3xf32>, %[[R:.*]]: memref<1x32x5x5xf32>, %[[OUT:.*]]: memref<1x32x5x5xf32>)
// Stride 2: four phases of the padded 12x12 input, 6x6 each.
// CHECK:       %[[XQ:.*]] = memref.alloca() : memref<8x4x6x6xf32>
// CHECK:       %[[TILE:.*]] = memref.alloca() : memref<8x32xf32>
// CHECK:       %[[PANEL:.*]] = memref.alloca() : memref<72x32xf32>
// CHECK:       %[[TT:.*]] = memref.alloca() : memref<256xf32>
// The padded copy: zero borders, then the in-bounds part, no tests.
// CHECK:       memref.store %{{.*}}, %[[XQ]]
// CHECK:       %[[V:.*]] = memref.load %[[X]]
// CHECK-NEXT:  memref.store %[[V]], %[[XQ]]
// The weight panel [K = 8 * 3 * 3, 32 channels], copied once per panel.
// CHECK:       %[[WV:.*]] = memref.load %[[W]]
// CHECK-NEXT:  memref.store %[[WV]], %[[PANEL]]
// Rows of 5 pixels: one 5-row tile, 10 accumulators; the channel block
// (all 8 channels here) and the kernel rows are loops, the columns unrolled.
// CHECK:       scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:         scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>
// CHECK:           %[[B0:.*]] = vector.load %[[PANEL]]
// CHECK-NEXT:      %[[B1:.*]] = vector.load %[[PANEL]]
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[XQ]]
// CHECK-NEXT:      %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-NEXT:      vector.fma %[[AV]], %[[B0]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:      vector.fma %[[AV]], %[[B1]], %{{.*}} : vector<16xf32>
// CHECK:       scf.yield
// The block's sums are added to the tile.
// CHECK:       %[[OLD:.*]] = vector.load %[[TILE]]
// CHECK-NEXT:  %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[SUM]], %[[TILE]]
// The epilogue transposes the tile in registers (three stages of shuffles)
// into [channel][pixel] order, then per channel adds the residual to the
// vector of the tile's 5 pixels, applies relu and stores 5 pixels at once.
// CHECK:       vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23] : vector<16xf32>, vector<16xf32>
// CHECK:       vector.store %{{.*}}, %[[TT]]
// CHECK:       %[[T:.*]] = vector.load %[[TT]][%{{.*}}] : memref<256xf32>, vector<5xf32>
// CHECK-NEXT:  %[[RV:.*]] = vector.load %[[R]]{{.*}} vector<5xf32>
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[T]], %[[RV]] : vector<5xf32>
// CHECK:       %[[M:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<5xf32>
// CHECK-NEXT:  vector.store %[[M]], %[[OUT]]

// With AVX2 the tile is 6 x 16 (12 ymm accumulators), and each tap is one
// trip of a loop over (channel, ky, kx): the pixels the three taps of a
// kernel row share would not fit next to the tile in 16 registers.
// AVX2-LABEL: func.func private @conv_k0_conv2d_add_relu
// AVX2:       %[[XQ:.*]] = memref.alloca() : memref<8x4x6x6xf32>
// AVX2:       %[[TILE:.*]] = memref.alloca() : memref<6x16xf32>
// AVX2:       %[[PANEL:.*]] = memref.alloca() : memref<72x16xf32>
// AVX2:       %[[TT:.*]] = memref.alloca() : memref<128xf32>
// AVX2:       scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// AVX2:         scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>
// AVX2:           scf.for %[[KX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<8xf32>
// AVX2:             %[[B0:.*]] = vector.load %[[PANEL]]
// AVX2-NEXT:        %[[B1:.*]] = vector.load %[[PANEL]]
// AVX2:             %[[A:.*]] = memref.load %[[XQ]]
// AVX2-NEXT:        %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<8xf32>
// AVX2-NEXT:        vector.fma %[[AV]], %[[B0]], %{{.*}} : vector<8xf32>
// AVX2-NEXT:        vector.fma %[[AV]], %[[B1]], %{{.*}} : vector<8xf32>
// AVX2-COUNT-8:     vector.fma
// AVX2-NEXT:        scf.yield
// The transpose of the tile in three stages of shuffles of 8 lanes.
// AVX2:       vector.shuffle %{{.*}}, %{{.*}} [0, 8, 1, 9, 2, 10, 3, 11] : vector<8xf32>, vector<8xf32>
// AVX2:       %[[T:.*]] = vector.load %[[TT]][%{{.*}}] : memref<128xf32>, vector<5xf32>
// AVX2-NEXT:  %[[RV:.*]] = vector.load %{{.*}} vector<5xf32>
// AVX2-NEXT:  arith.addf %[[T]], %[[RV]] : vector<5xf32>
func.func @conv(%x: tensor<1x8x10x10xf32>, %w: tensor<32x8x3x3xf32>, %r: tensor<1x32x5x5xf32>) -> tensor<1x32x5x5xf32> {
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x10x10xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x5x5xf32>
  %s = graph.add %y, %r : (tensor<1x32x5x5xf32>, tensor<1x32x5x5xf32>) -> tensor<1x32x5x5xf32>
  %o = graph.relu %s : tensor<1x32x5x5xf32>
  func.return %o : tensor<1x32x5x5xf32>
}

// A constant weight is packed at compile time into [groups, panels, K, NR],
// zero-padded: 16 channels use one vector of the panel, 8 accumulators
// (with AVX2 the whole panel of 16, 12 accumulators).
// The unpacked original is no global: the kernel reads only the packed copy.
// CHECK-NOT: sym_name = "packed_cst
// CHECK: sym_name = "packed_packed{{[0-9]+}}", type = memref<1x1x9x32xf32>
// AVX2: sym_name = "packed_packed{{[0-9]+}}", type = memref<1x1x9x16xf32>
// CHECK-LABEL: func.func private @packed_k{{[0-9]+}}_conv2d
// CHECK-SAME: (%{{.*}}: memref<1x1x16x16xf32>, %[[P:.*]]: memref<1x1x9x32xf32>, %{{.*}}: memref<1x16x16x16xf32>)
// CHECK:       memref.alloca() : memref<1x1x18x18xf32>
// CHECK:       scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:         vector.load %[[P]]
// CHECK:         vector.fma

func.func @packed(%x: tensor<1x1x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %w = graph.constant dense<"0x000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE00000000"> : tensor<16x1x3x3xf32>
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x16x16xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x16x16xf32>
  func.return %y : tensor<1x16x16x16xf32>
}
