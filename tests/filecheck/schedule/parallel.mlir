// RUN: graph-opt -O2 -p lower-graph-to-loop %s | filecheck %s
// The schedule runs the outer loop of a big enough nest in parallel
// (scf.parallel): the outermost loop with at least 8 iterations that is not
// the innermost one.  Reduction loops stay serial inside it; small kernels
// stay serial altogether.

// An elementwise kernel of 2^18 elements: its rows are split among the threads.
// CHECK-LABEL: func.func private @ew_k0_add_relu
// CHECK:       "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT:  ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<256x1024xf32>
// CHECK:         scf.reduce
func.func @ew(%x: tensor<256x1024xf32>, %y: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %a = graph.add %x, %y : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %b = graph.relu %a : tensor<256x1024xf32>
  func.return %b : tensor<256x1024xf32>
}

// A leading dimension of 1 is no loop (its index is the constant 0): the
// channels are split.
// CHECK-LABEL: func.func private @nchw_k0_relu
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NOT:   scf.for
// CHECK:       "scf.parallel"
// CHECK-NEXT:  ^{{.*}}(%[[C:.*]]: index):
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[ZERO]], %[[C]], %{{.*}}, %{{.*}}] : memref<1x64x32x32xf32>
func.func @nchw(%x: tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32> {
  %a = graph.relu %x : tensor<1x64x32x32xf32>
  func.return %a : tensor<1x64x32x32xf32>
}

// A row reduction: the rows are parallel, each row's sum is one serial loop.
// CHECK-LABEL: func.func private @rows_k0_reduce_sum
// CHECK:       "scf.parallel"
// CHECK-NEXT:  ^{{.*}}(%[[R:.*]]: index):
// CHECK:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[R]]] : memref<512xf32>
func.func @rows(%x: tensor<512x512xf32>) -> tensor<512xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<512x512xf32>) -> tensor<512xf32>
  func.return %s : tensor<512xf32>
}

// Small kernels stay serial: waking the pool would cost more than the work.
// CHECK-LABEL: func.func private @small_k0_relu
// CHECK-NOT:   scf.parallel
// CHECK:       func.return
func.func @small(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = graph.relu %x : tensor<64x64xf32>
  func.return %a : tensor<64x64xf32>
}

// A GEMM kernel runs its outer panel loop in parallel; everything inside it
// (row tiles, the micro-kernel over K, the epilogue) is serial.
// CHECK-LABEL: func.func private @mm_k0_matmul
// CHECK:       "scf.parallel"
// CHECK-NOT:   "scf.parallel"
// CHECK:       vector.fma
// CHECK:       func.return
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c = graph.matmul %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  func.return %c : tensor<256x256xf32>
}
