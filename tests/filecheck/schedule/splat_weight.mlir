// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// A splat (uniform) conv weight takes the conv schedule like a dense one: it
// is packed at compile time into [groups, panels, K, NR] (NR 32 with
// AVX-512, 16 with AVX2) and passed to the kernel as its last input, and the
// micro-kernel reads its panels.

// CHECK:       "memref.global"() <{sym_name = "[[PACKED:.*]]", type = memref<1x1x72x32xf32>, initial_value = dense<2.500000e-01> : tensor<1x1x72x32xf32>
// CHECK-LABEL: func.func private @splat_k{{[0-9]+}}_conv2d_relu
// CHECK-SAME: (%[[X:.*]]: memref<1x8x12x12xf32>, %[[P:.*]]: memref<1x1x72x32xf32>, %[[OUT:.*]]: memref<1x32x12x12xf32>)
// CHECK:       %[[B:.*]] = vector.load %[[P]]
// CHECK:       vector.fma %{{.*}}, %[[B]], %{{.*}} : vector<16xf32>
// CHECK-LABEL: func.func @splat
// CHECK:       memref.get_global @[[PACKED]]

// AVX2:       "memref.global"() <{sym_name = "[[PACKED:.*]]", type = memref<1x2x72x16xf32>, initial_value = dense<2.500000e-01> : tensor<1x2x72x16xf32>
// AVX2-LABEL: func.func private @splat_k{{[0-9]+}}_conv2d_relu
// AVX2-SAME: (%[[X:.*]]: memref<1x8x12x12xf32>, %[[P:.*]]: memref<1x2x72x16xf32>, %[[OUT:.*]]: memref<1x32x12x12xf32>)
// AVX2:       %[[B:.*]] = vector.load %[[P]]
// AVX2:       vector.fma %{{.*}}, %[[B]], %{{.*}} : vector<8xf32>

func.func @splat(%x: tensor<1x8x12x12xf32>) -> tensor<1x32x12x12xf32> {
  %w = graph.constant splat 0.25 : tensor<32x8x3x3xf32>
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x12x12xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x12x12xf32>
  %r = graph.relu %y : tensor<1x32x12x12xf32>
  func.return %r : tensor<1x32x12x12xf32>
}
