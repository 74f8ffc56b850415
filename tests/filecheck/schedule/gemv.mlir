// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// A matmul with one row of A (a fully connected layer at batch 1) is a
// matrix-vector product, bound by reading B: B is streamed in place, row by
// row (never packed), 8 rows at a time, each vector of a row multiplied by a
// broadcast element of A and summed into a partial row P in order of k; the
// kernel prefetches the line at the same column of the next 8 rows into L2
// (locality 2; the last row for rows past the end).  Each 128 rows' partial
// sums are added to the total T, and the epilogue (bias, relu) runs on
// vectors of T.  70 columns: 4 vectors of 16 and one of 6 (with AVX2 8 of 8,
// one of 6), each line prefetched once.

// CHECK-LABEL: func.func private @fc_k0_matmul_add_relu
// CHECK-SAME: (%[[A:.*]]: memref<1x600xf32>, %[[B:.*]]: memref<600x70xf32>, %[[BIAS:.*]]: memref<70xf32>, %[[OUT:.*]]: memref<1x70xf32>)
// CHECK:       %[[T:.*]] = memref.alloca() : memref<1x70xf32>
// CHECK:       %[[P:.*]] = memref.alloca() : memref<1x70xf32>
// CHECK:       %[[A0:.*]] = memref.load %[[A]]
// CHECK:       %[[AV0:.*]] = vector.broadcast %[[A0]] : f32 to vector<16xf32>
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[J:.*]] = arith.muli
// CHECK-NEXT:    %[[B0:.*]] = vector.load %[[B]][%{{.*}}, %[[J]]] : memref<600x70xf32>, vector<16xf32>
// CHECK-COUNT-7: vector.load %[[B]]
// CHECK-NEXT:    %[[OLD:.*]] = vector.load %[[P]]
// CHECK-NEXT:    %[[S0:.*]] = vector.fma %[[AV0]], %[[B0]], %[[OLD]] : vector<16xf32>
// CHECK-COUNT-7: vector.fma
// CHECK-NEXT:    vector.store %{{.*}}, %[[P]]
// CHECK-COUNT-8: loop.prefetch %[[B]][%{{.*}}, %[[J]]], locality 2 : memref<600x70xf32>
// CHECK-NEXT:  }
// CHECK:       vector.load %[[B]]{{.*}} vector<6xf32>
// The block's partial sums join the total.
// CHECK:       %[[TV:.*]] = vector.load %[[T]]
// CHECK-NEXT:  %[[PV:.*]] = vector.load %[[P]]
// CHECK-NEXT:  %[[SUM:.*]] = arith.addf %[[TV]], %[[PV]] : vector<16xf32>
// CHECK-NEXT:  vector.store %[[SUM]], %[[T]]
// The epilogue on vectors of T.
// CHECK:       %[[BV:.*]] = vector.load %[[BIAS]]{{.*}} vector<16xf32>
// CHECK-NEXT:  %[[Y:.*]] = arith.addf %{{.*}}, %[[BV]] : vector<16xf32>
// CHECK-NEXT:  %[[Z:.*]] = arith.maximumf %[[Y]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:  vector.store %[[Z]], %[[OUT]]

// With AVX2 a line is two vectors of 8: one iteration reads both, then prefetches.
// AVX2-LABEL: func.func private @fc_k0_matmul_add_relu
// AVX2-SAME: (%[[A:.*]]: memref<1x600xf32>, %[[B:.*]]: memref<600x70xf32>, %{{.*}}: memref<70xf32>, %{{.*}}: memref<1x70xf32>)
// AVX2:         vector.load %[[B]][%{{.*}}, %[[J:.*]]] : memref<600x70xf32>, vector<8xf32>
// AVX2-COUNT-7: vector.load %[[B]]{{.*}} : memref<600x70xf32>, vector<8xf32>
// AVX2:         vector.fma %{{.*}} : vector<8xf32>
// AVX2-COUNT-8: vector.load %[[B]]{{.*}} : memref<600x70xf32>, vector<8xf32>
// AVX2-COUNT-8: vector.fma
// AVX2-NEXT:    vector.store
// AVX2-COUNT-8: loop.prefetch %[[B]][%{{.*}}, %[[J]]], locality 2
// AVX2-NEXT:  }
func.func @fc(%x: tensor<1x600xf32>, %w: tensor<600x70xf32>, %b: tensor<70xf32>) -> tensor<1x70xf32> {
  %m = graph.matmul %x, %w : (tensor<1x600xf32>, tensor<600x70xf32>) -> tensor<1x70xf32>
  %s = graph.add %m, %b : (tensor<1x70xf32>, tensor<70xf32>) -> tensor<1x70xf32>
  %r = graph.relu %s : tensor<1x70xf32>
  func.return %r : tensor<1x70xf32>
}
