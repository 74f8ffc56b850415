// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s --check-prefix=LOWER

// The CNN and normalization ops: conv2d, max_pool2d, avg_pool2d,
// global_avg_pool, batch_norm, batch_norm_train (three results) and
// layer_norm, in their custom and generic forms; then how they lower.

// conv2d: grouped with stride and padding, depthwise with dilation, 1x1.
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x9x9xf32>, %[[W:.*]]: tensor<8x2x3x3xf32>, %[[D:.*]]: tensor<4x1x3x3xf32>, %[[P:.*]]: tensor<6x4x1x1xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.conv2d %[[X]], %[[W]] {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x5x5xf32>
// CHECK-NEXT:    %[[DW:.*]] = graph.conv2d %[[X]], %[[D]] {strides = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 4 : i64} : (tensor<2x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x9x9xf32>
// CHECK-NEXT:    %[[PW:.*]] = graph.conv2d %[[X]], %[[P]] {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x9x9xf32>, tensor<6x4x1x1xf32>) -> tensor<2x6x9x9xf32>
// CHECK-NEXT:    func.return %[[G]], %[[DW]], %[[PW]]
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d"
// GENERIC:       "graph.conv2d"(%{{.*}}, %{{.*}}) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64}> : (tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x5x5xf32>
func.func @conv2d(%x: tensor<2x4x9x9xf32>, %w: tensor<8x2x3x3xf32>, %d: tensor<4x1x3x3xf32>, %p: tensor<6x4x1x1xf32>) -> (tensor<2x8x5x5xf32>, tensor<2x4x9x9xf32>, tensor<2x6x9x9xf32>) {
  %g = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x5x5xf32>
  %dw = graph.conv2d %x, %d {strides = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 4 : i64} : (tensor<2x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x9x9xf32>
  %pw = graph.conv2d %x, %p {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x9x9xf32>, tensor<6x4x1x1xf32>) -> tensor<2x6x9x9xf32>
  func.return %g, %dw, %pw : tensor<2x8x5x5xf32>, tensor<2x4x9x9xf32>, tensor<2x6x9x9xf32>
}

// Pooling: overlapping padded max, plain avg, avg counting padding, global avg.
// CHECK-LABEL: func.func @pools
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x7xf64>)
// CHECK-NEXT:    %[[M:.*]] = graph.max_pool2d %[[X]] {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x7xf64>) -> tensor<1x3x4x4xf64>
// CHECK-NEXT:    %[[A:.*]] = graph.avg_pool2d %[[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x7xf64>) -> tensor<1x3x4x3xf64>
// CHECK-NEXT:    %[[C:.*]] = graph.avg_pool2d %[[X]] {kernel = array<i64: 3, 3>, strides = array<i64: 3, 3>, padding = array<i64: 1, 0, 0, 2>, count_include_pad} : (tensor<1x3x8x7xf64>) -> tensor<1x3x3x3xf64>
// CHECK-NEXT:    %[[G:.*]] = graph.global_avg_pool %[[X]] : (tensor<1x3x8x7xf64>) -> tensor<1x3x1x1xf64>
// CHECK-NEXT:    func.return %[[M]], %[[C]], %[[A]], %[[G]]
// GENERIC-LABEL: "func.func"() <{sym_name = "pools"
// GENERIC:       "graph.max_pool2d"(%{{.*}}) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}>
// GENERIC:       "graph.avg_pool2d"(%{{.*}}) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>}>
// GENERIC:       "graph.avg_pool2d"(%{{.*}}) <{kernel = array<i64: 3, 3>, strides = array<i64: 3, 3>, padding = array<i64: 1, 0, 0, 2>, count_include_pad}>
// GENERIC:       "graph.global_avg_pool"(%{{.*}}) : (tensor<1x3x8x7xf64>) -> tensor<1x3x1x1xf64>
func.func @pools(%x: tensor<1x3x8x7xf64>) -> (tensor<1x3x4x4xf64>, tensor<1x3x3x3xf64>, tensor<1x3x4x3xf64>, tensor<1x3x1x1xf64>) {
  %m = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x7xf64>) -> tensor<1x3x4x4xf64>
  %a = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x7xf64>) -> tensor<1x3x4x3xf64>
  %c = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 3, 3>, padding = array<i64: 1, 0, 0, 2>, count_include_pad} : (tensor<1x3x8x7xf64>) -> tensor<1x3x3x3xf64>
  %g = graph.global_avg_pool %x : (tensor<1x3x8x7xf64>) -> tensor<1x3x1x1xf64>
  func.return %m, %c, %a, %g : tensor<1x3x4x4xf64>, tensor<1x3x3x3xf64>, tensor<1x3x4x3xf64>, tensor<1x3x1x1xf64>
}

// Normalization: inference batch_norm, training batch_norm (all three results
// returned) and layer_norm over the last two axes.
// CHECK-LABEL: func.func @norms
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[S:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<3x3xf32>)
// CHECK-NEXT:    %[[BN:.*]] = graph.batch_norm %[[X]], %[[S]], %[[B]], %[[S]], %[[B]] {eps = 1.000000e-03 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    %[[Y:.*]], %[[MEAN:.*]], %[[VAR:.*]] = graph.batch_norm_train %[[BN]], %[[S]], %[[B]] {eps = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[LN:.*]] = graph.layer_norm %[[Y]], %[[L]], %[[L]] {axis = 2 : i64, eps = 1.000000e-05 : f64} : (tensor<2x4x3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    func.return %[[LN]], %[[MEAN]], %[[VAR]]
// GENERIC-LABEL: "func.func"() <{sym_name = "norms"
// GENERIC:       "graph.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{eps = 1.000000e-03 : f64}>
// GENERIC:       %{{.*}}, %{{.*}}, %{{.*}} = "graph.batch_norm_train"(%{{.*}}, %{{.*}}, %{{.*}}) <{eps = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64}> : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
// GENERIC:       "graph.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 2 : i64, eps = 1.000000e-05 : f64}>
func.func @norms(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %l: tensor<3x3xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %bn = graph.batch_norm %x, %s, %b, %s, %b {eps = 1.0e-03 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %y, %m, %v = graph.batch_norm_train %bn, %s, %b {eps = 1.0e-05 : f64, momentum = 0.9 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %ln = graph.layer_norm %y, %l, %l {axis = 2 : i64, eps = 1.0e-05 : f64} : (tensor<2x4x3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<2x4x3x3xf32>
  func.return %ln, %m, %v : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// Lowering. Only the USED results of batch_norm_train get an output buffer:
// returning y alone gives a kernel with one output memref...
// LOWER-LABEL: func.func private @bn_train_y_k0_batch_norm_train
// LOWER-SAME:    (%[[X:.*]]: memref<2x4x3x3xf32>, %[[S:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[Y:[^ ]*]]: memref<2x4x3x3xf32>) {
// The nest runs channel-outermost, so each channel's statistics -- two
// reductions over N, H, W -- are computed once, outside the N, H, W loops of
// the elements they normalize.
// LOWER:         scf.for %[[C:.*]] = {{.*}} {
// LOWER-NEXT:      scf.for {{.*}} iter_args
// LOWER:           arith.divf
// LOWER-NEXT:      scf.for {{.*}} iter_args
// LOWER:           math.sqrt
// LOWER:           scf.for %[[N:.*]] = {{.*}} {
// LOWER-NEXT:        scf.for
// LOWER-NEXT:          scf.for
// LOWER-NEXT:            memref.load %[[X]][%[[N]], %[[C]], {{.*}}]
// LOWER-NOT:             scf.for
// LOWER:                 memref.store {{.*}}, %[[Y]][%[[N]], %[[C]], {{.*}}]
// LOWER-LABEL: func.func @bn_train_y(
// LOWER-SAME:    attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<2x4x3x3xf32>, "s" : tensor<4xf32>, "b" : tensor<4xf32>], outputs = ["y" : tensor<2x4x3x3xf32>], workspace = 0>}
// LOWER-NEXT:    func.call @bn_train_y_k0_batch_norm_train(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<2x4x3x3xf32>, memref<4xf32>, memref<4xf32>, memref<2x4x3x3xf32>) -> ()
func.func @bn_train_y(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %y, %m, %v = graph.batch_norm_train %x, %s, %b {eps = 1.0e-05 : f64, momentum = 0.9 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  func.return %y : tensor<2x4x3x3xf32>
}

// ...and returning y and the variance gives two, with no buffer for the mean.
// LOWER-LABEL: func.func private @bn_train_y_var_k0_batch_norm_train
// LOWER-SAME:    (%{{.*}}: memref<2x4x3x3xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %[[Y:.*]]: memref<2x4x3x3xf32>, %[[V:[^ ]*]]: memref<4xf32>) {
// LOWER:         memref.store {{.*}}, %[[Y]]
// LOWER:         memref.store {{.*}}, %[[V]]
// LOWER:         func.return
// LOWER-LABEL: func.func @bn_train_y_var(
// LOWER-SAME:    attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<2x4x3x3xf32>, "s" : tensor<4xf32>, "b" : tensor<4xf32>], outputs = ["y" : tensor<2x4x3x3xf32>, "v" : tensor<4xf32>], workspace = 0>}
func.func @bn_train_y_var(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>) {
  %y, %m, %v = graph.batch_norm_train %x, %s, %b {eps = 1.0e-05 : f64, momentum = 0.9 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  func.return %y, %v : tensor<2x4x3x3xf32>, tensor<4xf32>
}

// A padded conv never loads out of bounds. Output rows are accumulated in a
// stack buffer: a tap row outside the input is clamped to row 0 and its value
// replaced by 0.0 (padding is a real zero that is multiplied, so a NaN there
// never leaks in). The taps are unrolled (LLVM unrolls no loop): one loop runs
// over the columns 1..38 whose nine taps all read inside the row, then the
// border columns are straight, a column in the side padding adding 0 * w.
// LOWER-LABEL: func.func private @conv_pad_k0_conv2d
// LOWER-SAME:    (%[[X:.*]]: memref<1x1x5x40xf32>, %[[W:.*]]: memref<1x1x3x3xf32>, %{{.*}}: memref<1x1x5x40xf32>)
// LOWER:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// LOWER:         %[[ROW:.*]] = memref.alloca() : memref<40xf32>
// LOWER:         memref.store %[[ZERO]], %[[ROW]]
// LOWER:         %[[OKH:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// LOWER-NEXT:    %[[IH:.*]] = arith.select %[[OKH]], %{{.*}}, %{{.*}} : index
// LOWER-NEXT:    %[[W0:.*]] = memref.load %[[W]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// LOWER:         scf.for %[[XX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOWER-NEXT:      %[[R:.*]] = memref.load %[[ROW]][%[[XX]]]
// LOWER-NEXT:      %[[IW:.*]] = arith.addi %[[XX]], %{{.*}} : index
// LOWER-NEXT:      %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[IH]], %[[IW]]]
// LOWER-NEXT:      %[[VS:.*]] = arith.select %[[OKH]], %[[V]], %[[ZERO]] : f32
// LOWER-NEXT:      %[[P:.*]] = arith.mulf %[[VS]], %[[W0]] fastmath<contract> : f32
// LOWER-NEXT:      %[[S:.*]] = arith.addf %[[R]], %[[P]] fastmath<contract> : f32
// LOWER:           memref.store %{{.*}}, %[[ROW]][%[[XX]]]
// LOWER-NEXT:    }
// LOWER-NEXT:    %[[R2:.*]] = memref.load %[[ROW]][%{{.*}}]
// LOWER-NEXT:    %[[PAD:.*]] = arith.mulf %[[ZERO]], %[[W0]] : f32
// LOWER-NEXT:    arith.addf %[[R2]], %[[PAD]] : f32
func.func @conv_pad(%x: tensor<1x1x5x40xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x5x40xf32> {
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x5x40xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x40xf32>
  func.return %y : tensor<1x1x5x40xf32>
}
