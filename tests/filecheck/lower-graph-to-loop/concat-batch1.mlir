// A concat whose slices are single contiguous blocks (one outer index: batch
// 1 along the channels) copies each input buffer with one memref.copy into a
// subview of the collapsed output: an llvm.memcpy per input.
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt -p lower-graph-to-loop,lower-loop-to-llvm -t llvm %s | filecheck %s --check-prefix=LLVM
// RUN: graph-run %s --check | filecheck %s --check-prefix=RESULT

// CHECK-LABEL: func.func private @cat_k0_concat(
// CHECK-SAME:    %[[A:[^:]*]]: memref<1x3x2x2xf32>, %[[B:[^:]*]]: memref<1x2x2x2xf32>, %[[OUT:[^:]*]]: memref<1x5x2x2xf32>)
// CHECK:       %[[FA:.*]] = memref.collapse_shape %[[A]] {{.*}} into memref<12xf32>
// CHECK:       %[[FO:.*]] = memref.collapse_shape %[[OUT]] {{.*}} into memref<20xf32>
// CHECK:       %[[VA:.*]] = memref.subview %[[FO]][0] [12] [1]
// CHECK:       "memref.copy"(%[[FA]], %[[VA]])
// CHECK:       %[[FB:.*]] = memref.collapse_shape %[[B]] {{.*}} into memref<8xf32>
// CHECK:       %[[VB:.*]] = memref.subview %{{.*}}[12] [8] [1] : memref<20xf32> to memref<8xf32, strided<[1], offset: 12>>
// CHECK:       "memref.copy"(%[[FB]], %[[VB]])
// CHECK-NOT:   scf.for
// LLVM-LABEL: define internal void @"cat_k0_concat"
// LLVM-SAME:  (ptr %[[A:[^,]*]], ptr %[[B:[^,]*]], ptr %[[OUT:[^)]*]])
// LLVM:       call void @"llvm.memcpy.p0.p0.i64"(ptr %[[OUT]], ptr %[[A]], i64 48, i1 false)
// LLVM:       %[[AT:.*]] = getelementptr inbounds float, ptr %[[OUT]], i32 12
// LLVM:       call void @"llvm.memcpy.p0.p0.i64"(ptr %[[AT]], ptr %[[B]], i64 32, i1 false)
// RESULT: check: OK (1 outputs match the reference)
func.func @cat(%a: tensor<1x3x2x2xf32>, %b: tensor<1x2x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %r = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x3x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x5x2x2xf32>
  func.return %r : tensor<1x5x2x2xf32>
}
