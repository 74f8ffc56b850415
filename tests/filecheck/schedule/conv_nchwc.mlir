// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-run %s --random-inputs --check | filecheck %s --check-prefix=COMPILED
// The NCHWc micro-kernel for AVX-512 (conv_nchwc_avx2.mlir: for AVX2) and
// its weight prefetch: 64 output channels make two panels of 32 (the
// weights packed at compile time as [panel, input block, ky, kx, ci, 32]);
// the 7x7 plane is one strip, so while the first two tiles run an
// accumulation block (one input block of 16 channels here), each weight row
// they load also prefetches one line (16 lanes) of the same row of the next
// block, or of the next panel's first block after the last one (the linear
// block index, clamped to the last: divided and taken modulo the 4 input
// blocks).

// CHECK:       "memref.global"() <{sym_name = "[[PACKED:.*]]", type = memref<2x4x3x3x16x32xf32>
// CHECK-LABEL: func.func private @c3_k{{[0-9]+}}_conv2d_nchwc
// CHECK-SAME:  (%[[X:.*]]: memref<1x4x7x7x16xf32>, %[[P:.*]]: memref<2x4x3x3x16x32xf32>, %[[OUT:.*]]: memref<1x4x7x7x16xf32>)
// CHECK:       %[[LATER:.*]] = arith.minsi
// CHECK-NEXT:  %[[STEP:.*]] = arith.subi %{{.*}}, %[[LATER]] : index
// CHECK:       %[[AHEAD:.*]] = arith.addi %{{.*}}, %[[STEP]] : index
// CHECK-NEXT:  %[[LINEAR:.*]] = arith.addi %{{.*}}, %[[AHEAD]] : index
// CHECK-NEXT:  %[[NEXT:.*]] = arith.minsi %[[LINEAR]], %{{.*}} : index
// CHECK-NEXT:  %[[NP:.*]] = arith.divui %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:  %[[NB:.*]] = arith.remui %[[NEXT]], %{{.*}} : index
// CHECK:       scf.for %[[KY:.*]] = {{.*}} iter_args
// CHECK:       scf.for %[[CI:.*]] = {{.*}} iter_args
// CHECK:       loop.prefetch %[[P]][%[[NP]], %[[NB]], %[[KY]], %{{.*}}, %[[CI]], %{{.*}}], locality 2 : memref<2x4x3x3x16x32xf32>
// CHECK-NEXT:  %[[W0:.*]] = vector.load %[[P]][%{{.*}}, %{{.*}}, %[[KY]], %{{.*}}, %[[CI]], %{{.*}}] : memref<2x4x3x3x16x32xf32>, vector<16xf32>
// CHECK-NEXT:  %[[W1:.*]] = vector.load %[[P]][%{{.*}}, %{{.*}}, %[[KY]], %{{.*}}, %[[CI]], %{{.*}}] : memref<2x4x3x3x16x32xf32>, vector<16xf32>
// CHECK:       vector.fma %{{.*}}, %[[W0]], %{{.*}} : vector<16xf32>
// CHECK-LABEL: func.func @c3
// CHECK:       memref.get_global @[[PACKED]]

// COMPILED: check: OK (1 outputs match the reference)
func.func @c3(%x: tensor<1x4x7x7x16xf32>) -> tensor<1x4x7x7x16xf32> {
  %w = graph.constant dense<0.5> : tensor<64x64x3x3xf32>
  %y = graph.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, block = 16 : i64} : (tensor<1x4x7x7x16xf32>, tensor<64x64x3x3xf32>) -> tensor<1x4x7x7x16xf32>
  func.return %y : tensor<1x4x7x7x16xf32>
}
