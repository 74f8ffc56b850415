// RUN: graph-opt -O2 -p lower-graph-to-loop %s | filecheck %s
// The schedule asks for the outer loop of a nest to run in parallel
// (scf.parallel): the outermost loop with at least 8 iterations that is not
// the innermost one, or a GEMM's panels.  Reduction loops stay serial inside
// it.  A loop stays parallel only when what the second thread takes off the
// caller pays for the region (2 us, the pool's worker spinning) and for
// reading back what that thread wrote (26 GB/s, across dies)
// (parallel_split.worth_a_region); else it is an scf.for.

// A GEMM of 256^3 multiply-adds (about 0.2 ms): its outer panel loop runs in
// parallel; everything inside it (row tiles, the micro-kernel over K, the
// epilogue) is serial.
// CHECK-LABEL: func.func private @mm_k0_matmul
// CHECK:       "scf.parallel"
// CHECK-NOT:   "scf.parallel"
// CHECK:       vector.fma
// CHECK:       func.return
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c = graph.matmul %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  func.return %c : tensor<256x256xf32>
}

// The same loops over 32x64x64 multiply-adds (a few us) stay serial.
// CHECK-LABEL: func.func private @mm_small_k0_matmul
// CHECK-NOT:   scf.parallel
// CHECK:       vector.fma
// CHECK:       func.return
func.func @mm_small(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>) -> tensor<32x64xf32> {
  %c = graph.matmul %a, %b : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  func.return %c : tensor<32x64xf32>
}

// A row reduction reading 4 MB: the rows are parallel, each row's sum is one
// serial loop.
// CHECK-LABEL: func.func private @rows_k0_reduce_sum
// CHECK:       "scf.parallel"
// CHECK-NEXT:  ^{{.*}}(%[[R:.*]]: index):
// CHECK:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[R]]] : memref<512xf32>
func.func @rows(%x: tensor<512x2048xf32>) -> tensor<512xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<512x2048xf32>) -> tensor<512xf32>
  func.return %s : tensor<512xf32>
}

// A leading dimension of 1 is no loop (its index is the constant 0): the
// channels are split.
// CHECK-LABEL: func.func private @planes_k0_reduce_sum
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NOT:   scf.for
// CHECK:       "scf.parallel"
// CHECK-NEXT:  ^{{.*}}(%[[C:.*]]: index):
// CHECK:         memref.load %{{.*}}[%[[ZERO]], %[[C]], %{{.*}}, %{{.*}}] : memref<1x64x128x128xf32>
func.func @planes(%x: tensor<1x64x128x128xf32>) -> tensor<1x64xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 2, 3>} : (tensor<1x64x128x128xf32>) -> tensor<1x64xf32>
  func.return %s : tensor<1x64xf32>
}

// An elementwise kernel writing 1 MB does about 65 us of work: the half the
// second thread takes saves more than the region (2 us) and reading its
// 512 KB back across dies (20 us).  Its rows are split.
// CHECK-LABEL: func.func private @ew_k0_add_relu
// CHECK:       "scf.parallel"
// CHECK:       memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<256x1024xf32>
// CHECK:       func.return
func.func @ew(%x: tensor<256x1024xf32>, %y: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %a = graph.add %x, %y : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %b = graph.relu %a : tensor<256x1024xf32>
  func.return %b : tensor<256x1024xf32>
}

// The same over 32 rows (128 KB, about 8 us): the 4 us saved do not pay for
// the region and the 64 KB read back.  Its rows stay serial.
// CHECK-LABEL: func.func private @ew_small_k0_add_relu
// CHECK-NOT:   scf.parallel
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<32x1024xf32>
// CHECK:       func.return
func.func @ew_small(%x: tensor<32x1024xf32>, %y: tensor<1024xf32>) -> tensor<32x1024xf32> {
  %a = graph.add %x, %y : (tensor<32x1024xf32>, tensor<1024xf32>) -> tensor<32x1024xf32>
  %b = graph.relu %a : tensor<32x1024xf32>
  func.return %b : tensor<32x1024xf32>
}

// Small kernels stay serial: waking the pool would cost more than the work.
// CHECK-LABEL: func.func private @small_k0_relu
// CHECK-NOT:   scf.parallel
// CHECK:       func.return
func.func @small(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = graph.relu %x : tensor<64x64xf32>
  func.return %a : tensor<64x64xf32>
}
