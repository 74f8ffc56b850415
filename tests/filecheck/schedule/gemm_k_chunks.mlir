// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// K chunks at the cache level: a panel of B (1100 x NR) and the 210 rows of A
// do not stay in the target's L2 together (1 MiB for skylake-avx512, 512 KiB
// for haswell), so K runs in chunks of 512 rows (two, then one of 76). Each
// chunk copies its part of every B panel and adds each tile's sum into the C
// scratch buffer, padded to whole row tiles (8 rows: 216; 6 rows: 210); the
// epilogue (bias, relu) reads C after the last chunk.

// CHECK-LABEL: func.func private @mm_k{{[0-9]+}}_matmul_add_relu
// CHECK-SAME: (%[[A:.*]]: memref<210x1100xf32>, %[[B:.*]]: memref<1100x64xf32>, %[[BIAS:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<210x64xf32>)
// CHECK-DAG:   %[[PANEL:.*]] = memref.alloca() : memref<1100x32xf32>
// CHECK-DAG:   %[[C:.*]] = memref.alloca() : memref<216x64xf32>
// C starts at zero.
// CHECK:       vector.store %{{.*}}, %[[C]]
// A chunk: its 512 rows of the B panel are copied...
// CHECK:       %[[ROW:.*]] = vector.load %[[B]]
// CHECK-NEXT:  vector.store %[[ROW]], %[[PANEL]]
// ... and each tile's block sums are added into C.
// CHECK:       vector.fma
// CHECK:       %[[OLD:.*]] = vector.load %[[C]]
// CHECK-NEXT:  %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[SUM]], %[[C]]
// The epilogue after the last chunk reads C, 16 columns at a time.
// CHECK:       %[[T:.*]] = vector.load %[[C]]
// CHECK:       vector.store %{{.*}}, %[[OUT]]

// AVX2-LABEL: func.func private @mm_k{{[0-9]+}}_matmul_add_relu
// AVX2-DAG:   %[[PANEL:.*]] = memref.alloca() : memref<1100x16xf32>
// AVX2-DAG:   %[[C:.*]] = memref.alloca() : memref<210x64xf32>
// AVX2:       %[[ROW:.*]] = vector.load %{{.*}} : memref<1100x64xf32>, vector<8xf32>
// AVX2-NEXT:  vector.store %[[ROW]], %[[PANEL]]
// AVX2:       vector.fma
// AVX2:       %[[OLD:.*]] = vector.load %[[C]]
// AVX2-NEXT:  %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<8xf32>
// AVX2-NEXT:  vector.store %[[SUM]], %[[C]]

func.func @mm(%a: tensor<210x1100xf32>, %b: tensor<1100x64xf32>, %bias: tensor<64xf32>) -> tensor<210x64xf32> {
  %m = graph.matmul %a, %b : (tensor<210x1100xf32>, tensor<1100x64xf32>) -> tensor<210x64xf32>
  %y = graph.add %m, %bias : (tensor<210x64xf32>, tensor<64xf32>) -> tensor<210x64xf32>
  %r = graph.relu %y : tensor<210x64xf32>
  func.return %r : tensor<210x64xf32>
}
