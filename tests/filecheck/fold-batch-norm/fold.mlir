// RUN: graph-opt -p fold-batch-norm,dce %s | filecheck %s

// conv2d + batch_norm -> conv2d with rescaled weights + a per-channel bias add.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK:        %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<2x2x1x1xf32>
// CHECK:        %[[C:.*]] = graph.conv2d %[[X]], %[[W]]
// CHECK:        %[[B:.*]] = graph.constant dense<{{\[\[\[}}5.000000e+00]], {{\[\[}}-1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK:        %[[Y:.*]] = graph.add %[[C]], %[[B]] : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT:    graph.batch_norm
// CHECK:        func.return %[[Y]]
func.func @conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %scale = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = graph.constant dense<[-2.0, 0.0]> : tensor<2xf32>
  %var = graph.constant splat 1.0 : tensor<2xf32>
  %y = graph.batch_norm %c, %scale, %bias, %mean, %var {eps = 0.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// matmul + batch_norm over (N, C): the columns of W are scaled.
// CHECK-LABEL: func.func @matmul
// CHECK:        %[[W:.*]] = graph.constant dense<{{\[}}[2.000000e+00, 3.000000e+00]]> : tensor<1x2xf32>
// CHECK:        %[[M:.*]] = graph.matmul %{{.*}}, %[[W]]
// CHECK:        %[[B:.*]] = graph.constant dense<[5.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK:        graph.add %[[M]], %[[B]] : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NOT:    graph.batch_norm
func.func @matmul(%x: tensor<3x1xf32>) -> tensor<3x2xf32> {
  %w = graph.constant dense<[[1.0, 3.0]]> : tensor<1x2xf32>
  %m = graph.matmul %x, %w : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %scale = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = graph.constant dense<[-2.0, 0.0]> : tensor<2xf32>
  %var = graph.constant splat 1.0 : tensor<2xf32>
  %y = graph.batch_norm %m, %scale, %bias, %mean, %var {eps = 0.0 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// Negatives: statistics not constant; the conv result used twice; weights not constant.
// CHECK-LABEL: func.func @negatives
// CHECK:        graph.batch_norm
// CHECK:        graph.batch_norm
// CHECK:        graph.batch_norm
func.func @negatives(%x: tensor<3x2xf32>, %var: tensor<2xf32>, %w2: tensor<2x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = graph.constant splat 1.0 : tensor<2x2xf32>
  %p = graph.constant splat 1.0 : tensor<2xf32>
  %m = graph.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %a = graph.batch_norm %m, %p, %p, %p, %var {eps = 1.0e-05 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %m2 = graph.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %b = graph.batch_norm %m2, %p, %p, %p, %p {eps = 1.0e-05 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %m3 = graph.matmul %x, %w2 : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %c = graph.batch_norm %m3, %p, %p, %p, %p {eps = 1.0e-05 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %a, %b, %m2, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}
