// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --random-inputs --check | filecheck %s --check-prefix=COMPILED
// The NCHWc micro-kernel for AVX2 (conv_nchwc.mlir: for AVX-512): blocks of
// 8 channels, and a register tile for 16 ymm registers, 4 blocks x 3 pixels
// (12 accumulators).  The 64 output channels make two panels of 32 (4
// blocks), the weights packed at compile time as [panel, input block, ky,
// kx, ci, 32].  An accumulation block is two input blocks (2 x 72 = 144
// products, as one 16-channel block with AVX-512), in a loop; the taps run
// in loops (ky, kx) and each tap's 8 channels straight, 96 FMAs (a row's
// taps straight would share broadcast pixels at stride 1, more live values
// than 16 registers hold); a channel broadcasts the tile's 3 pixels, then
// takes the 4 weight vectors one at a time, each against the 3 broadcasts
// (3 + 1 + 12 registers).

// CHECK:       "memref.global"() <{sym_name = "[[PACKED:.*]]", type = memref<2x8x3x3x8x32xf32>
// CHECK-LABEL: func.func private @c3_k{{[0-9]+}}_conv2d_nchwc
// CHECK-SAME:  (%[[X:.*]]: memref<1x8x7x7x8xf32>, %[[P:.*]]: memref<2x8x3x3x8x32xf32>, %[[OUT:.*]]: memref<1x8x7x7x8xf32>)
// CHECK:       scf.for %[[IB:.*]] = {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:       scf.for %[[KY:.*]] = {{.*}} iter_args
// CHECK:       scf.for %[[KX:.*]] = {{.*}} iter_args
// CHECK-NOT:   scf.for
// CHECK:       %[[B0:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:       %[[B1:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:       %[[B2:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT:  %[[W0:.*]] = vector.load %[[P]][%{{.*}}, %{{.*}}, %[[KY]], %[[KX]], %{{.*}}, %{{.*}}] : memref<2x8x3x3x8x32xf32>, vector<8xf32>
// CHECK-NEXT:  vector.fma %[[B0]], %[[W0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:  vector.fma %[[B1]], %[[W0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:  vector.fma %[[B2]], %[[W0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:  %[[W1:.*]] = vector.load %[[P]][%{{.*}}, %{{.*}}, %[[KY]], %[[KX]], %{{.*}}, %{{.*}}] : memref<2x8x3x3x8x32xf32>, vector<8xf32>
// CHECK-NEXT:  vector.fma %[[B0]], %[[W1]], %{{.*}} : vector<8xf32>
// CHECK-LABEL: func.func @c3
// CHECK:       memref.get_global @[[PACKED]]

// COMPILED: check: OK (1 outputs match the reference)
func.func @c3(%x: tensor<1x8x7x7x8xf32>) -> tensor<1x8x7x7x8xf32> {
  %w = graph.constant dense<0.5> : tensor<64x64x3x3xf32>
  %y = graph.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, block = 8 : i64} : (tensor<1x8x7x7x8xf32>, tensor<64x64x3x3xf32>) -> tensor<1x8x7x7x8xf32>
  func.return %y : tensor<1x8x7x7x8xf32>
}
