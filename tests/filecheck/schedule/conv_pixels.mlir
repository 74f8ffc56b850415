// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// With AVX-512, output rows of whole 16-pixel vectors (32 here) take the
// pixel-lane conv: each tap loads 16 consecutive pixels of the padded copy
// and multiplies them by a broadcast weight for each of 16 output channels;
// the epilogue (bias, relu) runs on those vectors and stores 16 pixels of a
// channel row.  With AVX2's 16 registers the 16 accumulators of that tile
// do not fit: the conv keeps its lanes over the channels, a broadcast pixel
// times two vectors of the packed weight.

// CHECK-LABEL: func.func private @stem_k{{[0-9]+}}_conv2d_add_relu
// CHECK-SAME: (%[[X:.*]]: memref<1x3x32x32xf32>, %[[BIAS:.*]]: memref<32x1x1xf32>, %[[P:.*]]: memref<1x1x27x32xf32>, %[[OUT:.*]]: memref<1x32x32x32xf32>)
// CHECK:       %[[XQ:.*]] = memref.alloca() : memref<3x1x34x34xf32>
// CHECK:       %[[TILE:.*]] = memref.alloca() : memref<16x16xf32>
// CHECK:       scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>,
// CHECK:         %[[A:.*]] = vector.load %[[XQ]]{{.*}} : memref<3x1x34x34xf32>, vector<16xf32>
// CHECK-NEXT:    %[[W:.*]] = memref.load %[[P]]
// CHECK-NEXT:    %[[WV:.*]] = vector.broadcast %[[W]] : f32 to vector<16xf32>
// CHECK-NEXT:    vector.fma %[[A]], %[[WV]], %{{.*}} : vector<16xf32>
// The epilogue, per output channel J of the tile: one vector of 16 pixels.
// CHECK:       scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK:         %[[T:.*]] = vector.load %[[TILE]][%[[J]], %{{.*}}] : memref<16x16xf32>, vector<16xf32>
// CHECK-NEXT:    %[[BS:.*]] = memref.load %[[BIAS]]
// CHECK-NEXT:    %[[BV:.*]] = vector.broadcast %[[BS]] : f32 to vector<16xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[T]], %[[BV]] : vector<16xf32>
// CHECK-NEXT:  %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[R]], %[[OUT]]

// AVX2-LABEL: func.func private @stem_k{{[0-9]+}}_conv2d_add_relu
// AVX2-SAME: (%[[X:.*]]: memref<1x3x32x32xf32>, %[[BIAS:.*]]: memref<32x1x1xf32>, %[[P:.*]]: memref<1x2x27x16xf32>, %[[OUT:.*]]: memref<1x32x32x32xf32>)
// AVX2:       %[[XQ:.*]] = memref.alloca() : memref<3x1x34x34xf32>
// AVX2:       %[[TILE:.*]] = memref.alloca() : memref<6x16xf32>
// AVX2:       %[[B0:.*]] = vector.load %[[P]]{{.*}} : memref<1x2x27x16xf32>, vector<8xf32>
// AVX2-NEXT:  %[[B1:.*]] = vector.load %[[P]]{{.*}} : memref<1x2x27x16xf32>, vector<8xf32>
// AVX2:       %[[A:.*]] = memref.load %[[XQ]]
// AVX2-NEXT:  %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<8xf32>
// AVX2-NEXT:  vector.fma %[[AV]], %[[B0]], %{{.*}} : vector<8xf32>

func.func @stem(%x: tensor<1x3x32x32xf32>, %b: tensor<32x1x1xf32>) -> tensor<1x32x32x32xf32> {
  %w = graph.constant splat 0.25 : tensor<32x3x3x3xf32>
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x32x32xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x32x32xf32>
  %s = graph.add %y, %b : (tensor<1x32x32x32xf32>, tensor<32x1x1xf32>) -> tensor<1x32x32x32xf32>
  %r = graph.relu %s : tensor<1x32x32x32xf32>
  func.return %r : tensor<1x32x32x32xf32>
}
