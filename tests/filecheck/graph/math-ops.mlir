// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The math ops of graph.elementwise / graph.reduce: unary functions, pow and
// minimum, comparisons, where, cast, reduce_min, reduce_prod, argmax and
// log_softmax, in their custom and generic forms.

// Unary ops keep shape and type; abs also takes integers.
// CHECK-LABEL: func.func @unary
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4xi64>, %[[D:.*]]: tensor<3xf64>)
// CHECK-NEXT:    %[[A:.*]] = graph.abs %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[AI:.*]] = graph.abs %[[I]] : tensor<4xi64>
// CHECK-NEXT:    %[[R:.*]] = graph.rsqrt %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.erf %[[R]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.sin %[[D]] : tensor<3xf64>
// CHECK-NEXT:    %[[C:.*]] = graph.cos %[[S]] : tensor<3xf64>
// CHECK-NEXT:    func.return %[[E]], %[[AI]], %[[C]] : tensor<2x3xf32>, tensor<4xi64>, tensor<3xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "unary"
// GENERIC:       "graph.abs"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:       "graph.erf"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi64>, %d: tensor<3xf64>) -> (tensor<2x3xf32>, tensor<4xi64>, tensor<3xf64>) {
  %a = graph.abs %x : tensor<2x3xf32>
  %ai = graph.abs %i : tensor<4xi64>
  %r = graph.rsqrt %a : tensor<2x3xf32>
  %e = graph.erf %r : tensor<2x3xf32>
  %s = graph.sin %d : tensor<3xf64>
  %c = graph.cos %s : tensor<3xf64>
  func.return %e, %ai, %c : tensor<2x3xf32>, tensor<4xi64>, tensor<3xf64>
}

// gelu is exact unless {approximate}; leaky_relu and clip carry f64 properties
// (an infinite bound prints as its bit pattern).
// CHECK-LABEL: func.func @activations
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<5xi32>)
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.gelu %[[G]] {approximate} : tensor<2x3xf32>
// CHECK-NEXT:    %[[L:.*]] = graph.leaky_relu %[[T]] {alpha = 2.000000e-01 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.clip %[[L]] {min = -1.000000e+00 : f64, max = 6.000000e+00 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %[[CI:.*]] = graph.clip %[[I]] {min = 0.000000e+00 : f64, max = 0x7ff0000000000000 : f64} : tensor<5xi32>
// CHECK-NEXT:    func.return %[[C]], %[[CI]] : tensor<2x3xf32>, tensor<5xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "activations"
// GENERIC:       "graph.gelu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:       "graph.gelu"(%{{.*}}) <{approximate}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:       "graph.leaky_relu"(%{{.*}}) <{alpha = 2.000000e-01 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:       "graph.clip"(%{{.*}}) <{min = -1.000000e+00 : f64, max = 6.000000e+00 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @activations(%x: tensor<2x3xf32>, %i: tensor<5xi32>) -> (tensor<2x3xf32>, tensor<5xi32>) {
  %g = graph.gelu %x : tensor<2x3xf32>
  %t = graph.gelu %g {approximate} : tensor<2x3xf32>
  %l = graph.leaky_relu %t {alpha = 0.2 : f64} : tensor<2x3xf32>
  %c = graph.clip %l {min = -1.0 : f64, max = 6.0 : f64} : tensor<2x3xf32>
  %ci = graph.clip %i {min = 0.0 : f64, max = 0x7ff0000000000000 : f64} : tensor<5xi32>
  func.return %c, %ci : tensor<2x3xf32>, tensor<5xi32>
}

// pow and minimum broadcast like add; comparisons give i1.
// CHECK-LABEL: func.func @binary
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<4x1xi32>, %[[J:.*]]: tensor<5xi32>, %[[P:.*]]: tensor<3xi1>)
// CHECK-NEXT:    %[[POW:.*]] = graph.pow %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[MIN:.*]] = graph.minimum %[[I]], %[[J]] : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
// CHECK-NEXT:    %[[GT:.*]] = graph.greater %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[LT:.*]] = graph.less %[[I]], %[[J]] : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi1>
// CHECK-NEXT:    %[[EQ:.*]] = graph.equal %[[GT]], %[[P]] : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    func.return %[[POW]], %[[MIN]], %[[LT]], %[[EQ]] : tensor<2x3xf32>, tensor<4x5xi32>, tensor<4x5xi1>, tensor<2x3xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "binary"
// GENERIC:       "graph.pow"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       "graph.greater"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4x1xi32>, %j: tensor<5xi32>, %p: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<4x5xi32>, tensor<4x5xi1>, tensor<2x3xi1>) {
  %pow = graph.pow %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %min = graph.minimum %i, %j : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  %gt = graph.greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %lt = graph.less %i, %j : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi1>
  %eq = graph.equal %gt, %p : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  func.return %pow, %min, %lt, %eq : tensor<2x3xf32>, tensor<4x5xi32>, tensor<4x5xi1>, tensor<2x3xi1>
}

// where broadcasts all three operands together.
// CHECK-LABEL: func.func @where
// CHECK-SAME:    (%[[C:.*]]: tensor<4x1xi1>, %[[A:.*]]: tensor<3xf64>, %[[B:.*]]: tensor<f64>)
// CHECK-NEXT:    %[[W:.*]] = graph.where %[[C]], %[[A]], %[[B]] : (tensor<4x1xi1>, tensor<3xf64>, tensor<f64>) -> tensor<4x3xf64>
// CHECK-NEXT:    func.return %[[W]] : tensor<4x3xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "where"
// GENERIC:       "graph.where"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x1xi1>, tensor<3xf64>, tensor<f64>) -> tensor<4x3xf64>
func.func @where(%c: tensor<4x1xi1>, %a: tensor<3xf64>, %b: tensor<f64>) -> tensor<4x3xf64> {
  %w = graph.where %c, %a, %b : (tensor<4x1xi1>, tensor<3xf64>, tensor<f64>) -> tensor<4x3xf64>
  func.return %w : tensor<4x3xf64>
}

// cast: the result type names the target element type.
// CHECK-LABEL: func.func @cast
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[I:.*]] = graph.cast %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[B:.*]] = graph.cast %[[I]] : (tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[D:.*]] = graph.cast %[[B]] : (tensor<2x3xi1>) -> tensor<2x3xf64>
// CHECK-NEXT:    func.return %[[D]] : tensor<2x3xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "cast"
// GENERIC:       "graph.cast"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xi32>
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %i = graph.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %b = graph.cast %i : (tensor<2x3xi32>) -> tensor<2x3xi1>
  %d = graph.cast %b : (tensor<2x3xi1>) -> tensor<2x3xf64>
  func.return %d : tensor<2x3xf64>
}

// reduce_min and reduce_prod share reduce_sum's form.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<2x3x4xi64>)
// CHECK-NEXT:    %[[M:.*]] = graph.reduce_min %[[X]] {axes = array<i64: -1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.reduce_prod %[[I]] {axes = array<i64: 0, 2>} : (tensor<2x3x4xi64>) -> tensor<3xi64>
// CHECK-NEXT:    func.return %[[M]], %[[P]] : tensor<4x1xf32>, tensor<3xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "reductions"
// GENERIC:       "graph.reduce_min"(%{{.*}}) <{axes = array<i64: -1>, keepdims}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
// GENERIC:       "graph.reduce_prod"(%{{.*}}) <{axes = array<i64: 0, 2>}> : (tensor<2x3x4xi64>) -> tensor<3xi64>
func.func @reductions(%x: tensor<4x8xf32>, %i: tensor<2x3x4xi64>) -> (tensor<4x1xf32>, tensor<3xi64>) {
  %m = graph.reduce_min %x {axes = array<i64: -1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %p = graph.reduce_prod %i {axes = array<i64: 0, 2>} : (tensor<2x3x4xi64>) -> tensor<3xi64>
  func.return %m, %p : tensor<4x1xf32>, tensor<3xi64>
}

// argmax always yields i64 indices; the axis may be negative.
// CHECK-LABEL: func.func @argmax
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<3x5xi1>)
// CHECK-NEXT:    %[[A:.*]] = graph.argmax %[[X]] {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4xi64>
// CHECK-NEXT:    %[[K:.*]] = graph.argmax %[[B]] {axis = -2 : i64, keepdims} : (tensor<3x5xi1>) -> tensor<1x5xi64>
// CHECK-NEXT:    func.return %[[A]], %[[K]] : tensor<4xi64>, tensor<1x5xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "argmax"
// GENERIC:       "graph.argmax"(%{{.*}}) <{axis = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4xi64>
// GENERIC:       "graph.argmax"(%{{.*}}) <{axis = -2 : i64, keepdims}> : (tensor<3x5xi1>) -> tensor<1x5xi64>
func.func @argmax(%x: tensor<4x8xf32>, %b: tensor<3x5xi1>) -> (tensor<4xi64>, tensor<1x5xi64>) {
  %a = graph.argmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4xi64>
  %k = graph.argmax %b {axis = -2 : i64, keepdims} : (tensor<3x5xi1>) -> tensor<1x5xi64>
  func.return %a, %k : tensor<4xi64>, tensor<1x5xi64>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<8x10xf32>)
// CHECK-NEXT:    %[[L:.*]] = graph.log_softmax %[[X]] {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
// CHECK-NEXT:    func.return %[[L]] : tensor<8x10xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "log_softmax"
// GENERIC:       "graph.log_softmax"(%{{.*}}) <{axis = -1 : i64}> : (tensor<8x10xf32>) -> tensor<8x10xf32>
func.func @log_softmax(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  %l = graph.log_softmax %x {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  func.return %l : tensor<8x10xf32>
}
