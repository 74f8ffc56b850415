// RUN: graph-opt -O2 -p lower-graph-to-loop %s | filecheck %s
// An elementwise kernel over arrays of at least 4 MB streams them: its
// innermost loop runs in chunks of one line (16 f32), and each chunk, after
// its inner loop, prefetches the line 4 KB (1024 f32) further on in the flat
// view of every large input it reads in order, and with a write prefetch
// the line of the output it stores; the broadcast row (16 KB) is not.

// CHECK-LABEL: func.func private @stream_k{{[0-9]+}}_add_relu
// CHECK-SAME:  (%[[X:.*]]: memref<1024x1024xf32>, %[[B:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<1024x1024xf32>)
// The flat view, once, at the kernel's entry.
// CHECK:       %[[FLAT:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0 : i64, 1 : i64]] : memref<1024x1024xf32> into memref<1048576xf32>
// CHECK:       %[[FLAT_OUT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0 : i64, 1 : i64]] : memref<1024x1024xf32> into memref<1048576xf32>
// Its rows are split over the threads (0.26 ms of work: see parallel.mlir).
// CHECK:       "scf.parallel"
// CHECK:         %[[ROW:.*]] = arith.muli
// CHECK-NEXT:    scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[J0:.*]] = arith.muli %[[C]], %{{.*}} : index
// CHECK-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[J0]], %[[I]] : index
// CHECK-NEXT:        memref.load %[[X]][%{{.*}}, %[[J]]] : memref<1024x1024xf32>
// CHECK-NEXT:        memref.load %[[B]][%[[J]]] : memref<1024xf32>
// CHECK:           memref.store
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[AHEAD:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK-NEXT:      %[[LIN:.*]] = arith.addi %[[AHEAD]], %[[ROW]] : index
// CHECK-NEXT:      %[[AT:.*]] = arith.minsi %[[LIN]], %{{.*}} : index
// CHECK-NEXT:      loop.prefetch %[[FLAT]][%[[AT]]], locality 3 : memref<1048576xf32>
// CHECK-NEXT:      loop.prefetch %[[FLAT_OUT]][%[[AT]]], write, locality 3 : memref<1048576xf32>
// CHECK-NOT:       loop.prefetch
// CHECK:       func.return
func.func @stream(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %y = graph.add %x, %b : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %z = graph.relu %y : tensor<1024x1024xf32>
  func.return %z : tensor<1024x1024xf32>
}

// A smaller kernel keeps one innermost loop and no prefetch.
// CHECK-LABEL: func.func private @small_k{{[0-9]+}}_add_relu
// CHECK-NOT:   loop.prefetch
// CHECK-LABEL: func.func @small
func.func @small(%x: tensor<512x1024xf32>, %b: tensor<1024xf32>) -> tensor<512x1024xf32> {
  %y = graph.add %x, %b : (tensor<512x1024xf32>, tensor<1024xf32>) -> tensor<512x1024xf32>
  %z = graph.relu %y : tensor<512x1024xf32>
  func.return %z : tensor<512x1024xf32>
}
