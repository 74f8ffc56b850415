// Random ops, copies and fills: what fold-constants must leave alone or keep small.
// RUN: graph-opt -p fold-constants,dce %s | filecheck %s

// A training-mode dropout of a constant draws a mask at run time: never folded.
// CHECK-LABEL: func.func @dropout
// CHECK:        %[[C:.*]] = graph.constant dense
// CHECK:        graph.dropout %[[C]]
func.func @dropout() -> tensor<4xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = graph.dropout %c {rate = 0.5 : f64, seed = 3 : i64, training} : tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// An inference dropout is still a dropout: folding it is not this pass's job.
// CHECK-LABEL: func.func @dropout_inference
// CHECK:        graph.dropout
func.func @dropout_inference() -> tensor<4xf32> {
  %c = graph.constant splat 1.0 : tensor<4xf32>
  %d = graph.dropout %c {rate = 0.5 : f64, seed = 3 : i64} : tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// A copy makes a distinct buffer (maybe on another device): never folded.
// CHECK-LABEL: func.func @copy
// CHECK:        %[[C:.*]] = graph.constant splat 2.000000e+00 : tensor<8xf32>
// CHECK:        graph.copy %[[C]] {device = "gpu:0"}
func.func @copy() -> tensor<8xf32> {
  %c = graph.constant splat 2.0 : tensor<8xf32>
  %d = graph.copy %c {device = "gpu:0"} : tensor<8xf32>
  func.return %d : tensor<8xf32>
}

// A fill of a million elements becomes one splat, not a million floats; the
// ops after it fold as splats as well.
// CHECK-LABEL: func.func @fill
// CHECK-NEXT:   %[[S:.*]] = graph.constant splat 3.000000e+00 : tensor<1000x1000xf32>
// CHECK-NEXT:   func.return %[[S]]
func.func @fill() -> tensor<1000x1000xf32> {
  %f = graph.fill {shape = array<i64: 1000, 1000>, value = 1.5 : f64} : tensor<1000x1000xf32>
  %g = graph.add %f, %f : (tensor<1000x1000xf32>, tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  func.return %g : tensor<1000x1000xf32>
}

// An integer fill casts its value to the element type.
// CHECK-LABEL: func.func @fill_int
// CHECK-NEXT:   graph.constant splat 7 : tensor<3xi32>
func.func @fill_int() -> tensor<3xi32> {
  %f = graph.fill {shape = array<i64: 3>, value = 7.0 : f64} : tensor<3xi32>
  func.return %f : tensor<3xi32>
}

// Negative: a big dense result over max-elements stays unfolded.
// RUN: graph-opt -p "fold-constants{max-elements=2},dce" %s | filecheck %s --check-prefix=LIMIT
// LIMIT-LABEL: func.func @big_dense
// LIMIT:        graph.neg
func.func @big_dense() -> tensor<4xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %n = graph.neg %c : tensor<4xf32>
  func.return %n : tensor<4xf32>
}
