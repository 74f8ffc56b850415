// RUN: graph-opt --split-input-file %s | graph-opt --split-input-file | filecheck %s
// RUN: graph-opt --split-input-file %s --print-op-generic | graph-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @sum3
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = graph.add_n %[[A]], %[[B]], %[[A]] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @sum3(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %s = graph.add_n %a, %b, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @window
// CHECK: graph.avg_pool2d_grad %{{.*}} {{{.*}}count_include_pad{{.*}}} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK: graph.slice_grad %{{.*}} {shape = array<i64: 4, 6>, firsts = array<i64: 3, 0>, steps = array<i64: -1, 2>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
// CHECK: graph.gather_grad %{{.*}}, %{{.*}} {shape = array<i64: 5, 3>, axis = 0 : i64} : (tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
func.func @window(%g: tensor<1x2x3x3xf32>, %s: tensor<2x3xf32>, %i: tensor<2xi64>) -> (tensor<1x2x5x5xf32>, tensor<4x6xf32>, tensor<5x3xf32>) {
  %a = graph.avg_pool2d_grad %g {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, shape = array<i64: 1, 2, 5, 5>, count_include_pad} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %b = graph.slice_grad %s {shape = array<i64: 4, 6>, firsts = array<i64: 3, 0>, steps = array<i64: -1, 2>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
  %c = graph.gather_grad %i, %s {shape = array<i64: 5, 3>, axis = 0 : i64} : (tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
  func.return %a, %b, %c : tensor<1x2x5x5xf32>, tensor<4x6xf32>, tensor<5x3xf32>
}
