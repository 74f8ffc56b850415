// RUN: graph-opt %avx512 -p 'layout-nchwc{min-convs=1 min-macs-per-reordered=0},fuse-ops,lower-graph-to-loop' %s | filecheck %s
// RUN: graph-opt %avx512 -p 'layout-nchwc{min-convs=1 min-macs-per-reordered=0},fuse-ops,lower-graph-to-loop' %s | filecheck %s --check-prefix=NOTEST
// RUN: graph-opt %avx2 -p 'layout-nchwc{min-convs=1 min-macs-per-reordered=0},fuse-ops,lower-graph-to-loop' %s | filecheck %s --check-prefix=AVX2
// RUN: graph-run -p 'layout-nchwc{min-convs=1 min-macs-per-reordered=0}' -O2 %s --check | filecheck %s --check-prefix=RESULT
// A depthwise 3x3 conv over 16 channels (one block) of 5x26 pixels: the
// micro-kernel (lowering/depthwise_nchwc.py) loads the nine weight vectors
// once; rows 0 and 4 and the first tile (pixels 0-7) and last tile (24-25)
// of every row are borders, emitted straight with their outside taps left
// out; the interior rows 1-3 and tiles 1-2 run in loops.  No bounds test
// anywhere, and relu is applied to the accumulators before the store.

// CHECK-LABEL: func.func private @dw_k{{[0-9]+}}_depthwise_conv2d_nchwc_relu
// CHECK-SAME:  (%[[X:.*]]: memref<1x1x5x26x16xf32>, %[[W:.*]]: memref<1x3x3x16xf32>, %[[OUT:.*]]: memref<1x1x5x26x16xf32>)
// CHECK-COUNT-9: vector.load %[[W]]
// Row 0, tile 0: pixel 0's first tap is (1, 1), the top row and left column left out.
// CHECK:       %[[A:.*]] = vector.load %[[X]]
// CHECK-NEXT:  vector.fma %[[A]], %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:       %[[R:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[R]], %[[OUT]]
// CHECK:       scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         vector.fma
// CHECK:       scf.for %[[OY:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:       func.return

// For AVX2 the 16 channels are two blocks of 8, and a tile is 6 pixels (6
// accumulators beside the 9 weights in 16 registers): the first tile of row
// 0 stores its 6 pixels, then tiles 1-3 (pixels 6-23) run in a loop.
// AVX2-LABEL: func.func private @dw_k{{[0-9]+}}_depthwise_conv2d_nchwc_relu
// AVX2-SAME:  (%[[X:.*]]: memref<1x2x5x26x8xf32>, %[[W:.*]]: memref<2x3x3x8xf32>, %[[OUT:.*]]: memref<1x2x5x26x8xf32>)
// AVX2-COUNT-9: vector.load %[[W]]{{.*}} vector<8xf32>
// AVX2-COUNT-6: vector.store %{{.*}}, %[[OUT]]
// AVX2-NEXT:  scf.for
// AVX2:       func.return

// NOTEST-LABEL: func.func private @dw_k{{[0-9]+}}_depthwise_conv2d_nchwc_relu
// NOTEST-NOT:   arith.select
// NOTEST-NOT:   arith.cmpi
// NOTEST:       func.return

// RESULT: check: OK (1 outputs match the reference)
  func.func @dw(%0: tensor<1x16x5x26xf32>) -> tensor<1x16x5x26xf32> {
    %1 = graph.constant dense<"0x000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE00000000"> : tensor<16x1x3x3xf32>
    %2 = graph.conv2d %0, %1 {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x5x26xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x5x26xf32>
    %3 = graph.relu %2 : tensor<1x16x5x26xf32>
    func.return %3 : tensor<1x16x5x26xf32>
  }
