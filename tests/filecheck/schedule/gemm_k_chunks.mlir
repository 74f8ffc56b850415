// RUN: graph-opt -O2 -p lower-graph-to-loop %s | filecheck %s
// K chunks at the cache level: a panel of B (1100 x 32) and the 210 rows of A
// do not stay in L2 together, so K runs in chunks of 512 rows (two, then one
// of 76). Each chunk copies its part of every B panel and adds each tile's
// sum into the C scratch buffer; the epilogue (bias, relu) reads C after the
// last chunk.

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

func.func @mm(%a: tensor<210x1100xf32>, %b: tensor<1100x64xf32>, %bias: tensor<64xf32>) -> tensor<210x64xf32> {
  %m = graph.matmul %a, %b : (tensor<210x1100xf32>, tensor<1100x64xf32>) -> tensor<210x64xf32>
  %y = graph.add %m, %bias : (tensor<210x64xf32>, tensor<64xf32>) -> tensor<210x64xf32>
  %r = graph.relu %y : tensor<210x64xf32>
  func.return %r : tensor<210x64xf32>
}
