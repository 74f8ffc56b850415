// RUN: graph-opt %avx512 -p 'layout-nchwc{min-convs=1 min-macs-per-reordered=0},fuse-ops,lower-graph-to-loop' %s | filecheck %s
// RUN: graph-opt %avx2 -p 'layout-nchwc{min-convs=1 min-macs-per-reordered=0},fuse-ops,lower-graph-to-loop' %s | filecheck %s --check-prefix=AVX2
// VGG's first 3x3 conv after the stem, 64 channels at 224x224: its padded
// input (226 x 226 x 64 floats, 13 MB) is larger than a stack buffer may
// be, so it is copied in bands of output rows, each band's padded rows
// (7 output rows read 9, 520 KB) into a buffer of its own thread's, the 32
// bands in parallel: a row outside the image is zero by a select on its
// index, the left and right padding columns are stored zero.  Every band
// then runs the micro-kernel over its rows, for every panel.

// CHECK-LABEL: func.func private @vgg_k{{[0-9]+}}_conv2d_nchwc_relu
// CHECK-SAME:  (%[[X:.*]]: memref<1x4x224x224x16xf32>, %[[P:.*]]: memref<2x4x3x3x16x32xf32>, %[[OUT:.*]]: memref<1x4x224x224x16xf32>)
// CHECK-NOT:   memref<4x226x226x16xf32>
// CHECK:       %[[BAND:.*]] = memref.alloca() : memref<4x9x226x16xf32>
// CHECK:       "scf.parallel"
// CHECK-NEXT:  ^bb0(%[[B:.*]]: index):
// CHECK-NEXT:  %[[ROW0:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK:       %[[SRC:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[INSIDE:.*]] = arith.cmpi ult, %[[SRC]], %{{.*}} : index
// CHECK:       %[[V:.*]] = vector.load %[[X]]
// CHECK-NEXT:  %[[S:.*]] = arith.select %[[INSIDE]], %[[V]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[S]], %[[BAND]]
// CHECK:       vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:       vector.store %{{.*}}, %[[OUT]]

// With blocks of 8 for AVX2 the band is the same bytes: 8 blocks of 8.
// AVX2-LABEL: func.func private @vgg_k{{[0-9]+}}_conv2d_nchwc_relu
// AVX2:       memref.alloca() : memref<8x9x226x8xf32>
// AVX2:       "scf.parallel"
// AVX2:       vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
func.func @vgg(%x: tensor<1x64x224x224xf32>) -> tensor<1x64x224x224xf32> {
  %w = graph.constant dense<0.5> : tensor<64x64x3x3xf32>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x64x224x224xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x224x224xf32>
  %r = graph.relu %c : tensor<1x64x224x224xf32>
  func.return %r : tensor<1x64x224x224xf32>
}
