// RUN: graph-opt -p fold-constants,dce %s | filecheck %s
// RUN: graph-opt -p "fold-constants{max-elements=3},dce" %s | filecheck %s --check-prefix=SMALL
// RUN: graph-opt -p fold-constants --pass-statistics %s 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: fold-constants {{.*}} folded=8

// A dense computation folds to one dense constant; the operands disappear.
// CHECK-LABEL: func.func @dense
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:   %[[C:.*]] = graph.constant dense<[3.000000e+00, 5.000000e+00, 7.000000e+00, 9.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:   %[[R:.*]] = graph.add %[[C]], %[[X]]
// CHECK-NEXT:   func.return %[[R]]
func.func @dense(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %two = graph.constant splat 2.0 : tensor<4xf32>
  %b = graph.mul %a, %two : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %one = graph.constant splat 1.0 : tensor<f32>
  %c = graph.add %b, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = graph.add %c, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// Splats stay splats, even through huge shapes (never materialised).
// CHECK-LABEL: func.func @splat
// CHECK-NEXT:   %[[S:.*]] = graph.constant splat 4.000000e+00 : tensor<1024x1024xf32>
// CHECK-NEXT:   func.return %[[S]]
// SMALL-LABEL: func.func @splat
// SMALL-NEXT:   graph.constant splat 4.000000e+00 : tensor<1024x1024xf32>
func.func @splat(%x: tensor<4xf32>) -> tensor<1024x1024xf32> {
  %a = graph.constant splat 2.0 : tensor<1024x1xf32>
  %b = graph.constant splat 2.0 : tensor<1024xf32>
  %c = graph.mul %a, %b : (tensor<1024x1xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %t = graph.transpose %c {perm = array<i64: 1, 0>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  func.return %t : tensor<1024x1024xf32>
}

// A uniform result of dense operands becomes a splat.
// CHECK-LABEL: func.func @uniform
// CHECK-NEXT:   %[[S:.*]] = graph.constant splat 5 : tensor<3xi32>
// CHECK-NEXT:   func.return %[[S]]
func.func @uniform() -> tensor<3xi32> {
  %a = graph.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = graph.constant dense<[4, 3, 2]> : tensor<3xi32>
  %c = graph.add %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  func.return %c : tensor<3xi32>
}

// Reductions and matmul fold too; max-elements keeps big dense results.
// CHECK-LABEL: func.func @reduce_matmul
// CHECK-NEXT:   %[[M:.*]] = graph.constant dense<{{\[}}[7.000000e+00, 1.000000e+01], [1.500000e+01, 2.200000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT:   %[[S:.*]] = graph.constant dense<[1.700000e+01, 3.700000e+01]> : tensor<2xf32>
// CHECK-NEXT:   func.return %[[M]], %[[S]]
// SMALL-LABEL: func.func @reduce_matmul
// SMALL:        graph.matmul
// SMALL:        graph.reduce_sum
func.func @reduce_matmul() -> (tensor<2x2xf32>, tensor<2xf32>) {
  %a = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = graph.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = graph.reduce_sum %m {axes = array<i64: 1>} : (tensor<2x2xf32>) -> tensor<2xf32>
  func.return %m, %s : tensor<2x2xf32>, tensor<2xf32>
}

// Negative: an operand that is not constant keeps the op.
// CHECK-LABEL: func.func @not_constant
// CHECK:        graph.exp
// CHECK:        graph.add
func.func @not_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  %one = graph.constant splat 1.0 : tensor<4xf32>
  %r = graph.add %e, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// A constant used elsewhere survives the fold of one of its users.
// CHECK-LABEL: func.func @shared
// CHECK-DAG:    %[[A:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00]>
// CHECK-DAG:    %[[N:.*]] = graph.constant dense<[-1.000000e+00, -2.000000e+00]>
// CHECK:        graph.add %{{.*}}, %[[A]]
// CHECK:        func.return %[[N]]
func.func @shared(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %n = graph.neg %a : tensor<2xf32>
  %r = graph.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %n, %r : tensor<2xf32>, tensor<2xf32>
}
