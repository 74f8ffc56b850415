// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// graph.constant: dense and splat forms for every element type.

// CHECK-LABEL: func.func @dense_f32
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[[1.000000e+00, -2.500000e+00], [0.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x2xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "dense_f32"
// GENERIC:       "graph.constant"() <{value = dense<[[1.000000e+00, -2.500000e+00], [0.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
func.func @dense_f32() -> tensor<2x2xf32> {
  %c = graph.constant dense<[[1.0, -2.5], [0.0, 4.0]]> : tensor<2x2xf32>
  func.return %c : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @splat_f32
// CHECK-NEXT:    %[[C:.*]] = graph.constant splat -5.000000e-01 : tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<4x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "splat_f32"
// GENERIC:       "graph.constant"() <{splat = -5.000000e-01 : f32}> : () -> tensor<4x4xf32>
func.func @splat_f32() -> tensor<4x4xf32> {
  %c = graph.constant splat -0.5 : tensor<4x4xf32>
  func.return %c : tensor<4x4xf32>
}

// An integer literal is accepted for a float splat.
// CHECK-LABEL: func.func @splat_f32_from_int
// CHECK-NEXT:    %[[C:.*]] = graph.constant splat 3.000000e+00 : tensor<8xf32>
func.func @splat_f32_from_int() -> tensor<8xf32> {
  %c = graph.constant splat 3 : tensor<8xf32>
  func.return %c : tensor<8xf32>
}

// CHECK-LABEL: func.func @scalar_f32
// CHECK-NEXT:    %[[C:.*]] = graph.constant splat 1.500000e+00 : tensor<f32>
// CHECK-NEXT:    func.return %[[C]] : tensor<f32>
func.func @scalar_f32() -> tensor<f32> {
  %c = graph.constant splat 1.5 : tensor<f32>
  func.return %c : tensor<f32>
}

// CHECK-LABEL: func.func @dense_f64
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "dense_f64"
// GENERIC:       "graph.constant"() <{value = dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf64>}> : () -> tensor<2xf64>
func.func @dense_f64() -> tensor<2xf64> {
  %c = graph.constant dense<[1.5, 2.5]> : tensor<2xf64>
  func.return %c : tensor<2xf64>
}

// CHECK-LABEL: func.func @splat_f64
// CHECK-NEXT:    %[[C:.*]] = graph.constant splat 2.500000e+00 : tensor<3x2xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "splat_f64"
// GENERIC:       "graph.constant"() <{splat = 2.500000e+00 : f64}> : () -> tensor<3x2xf64>
func.func @splat_f64() -> tensor<3x2xf64> {
  %c = graph.constant splat 2.5 : tensor<3x2xf64>
  func.return %c : tensor<3x2xf64>
}

// CHECK-LABEL: func.func @dense_i32
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "dense_i32"
// GENERIC:       "graph.constant"() <{value = dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
func.func @dense_i32() -> tensor<2x2xi32> {
  %c = graph.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  func.return %c : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @splat_i32
// CHECK-NEXT:    %[[C:.*]] = graph.constant splat -7 : tensor<2xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "splat_i32"
// GENERIC:       "graph.constant"() <{splat = -7 : i32}> : () -> tensor<2xi32>
func.func @splat_i32() -> tensor<2xi32> {
  %c = graph.constant splat -7 : tensor<2xi32>
  func.return %c : tensor<2xi32>
}

// CHECK-LABEL: func.func @splat_i64
// CHECK-NEXT:    %[[C:.*]] = graph.constant splat 42 : tensor<5xi64>
func.func @splat_i64() -> tensor<5xi64> {
  %c = graph.constant splat 42 : tensor<5xi64>
  func.return %c : tensor<5xi64>
}

// CHECK-LABEL: func.func @dense_i1
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[true, false, true]> : tensor<3xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "dense_i1"
// GENERIC:       "graph.constant"() <{value = dense<[true, false, true]> : tensor<3xi1>}> : () -> tensor<3xi1>
func.func @dense_i1() -> tensor<3xi1> {
  %c = graph.constant dense<[true, false, true]> : tensor<3xi1>
  func.return %c : tensor<3xi1>
}

// CHECK-LABEL: func.func @splat_i1
// CHECK-NEXT:    %[[T:.*]] = graph.constant splat true : tensor<3xi1>
// CHECK-NEXT:    %[[F:.*]] = graph.constant splat false : tensor<2x2xi1>
// CHECK-NEXT:    func.return %[[T]], %[[F]] : tensor<3xi1>, tensor<2x2xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "splat_i1"
// GENERIC:       "graph.constant"() <{splat = true}> : () -> tensor<3xi1>
// GENERIC:       "graph.constant"() <{splat = false}> : () -> tensor<2x2xi1>
func.func @splat_i1() -> (tensor<3xi1>, tensor<2x2xi1>) {
  %t = graph.constant splat true : tensor<3xi1>
  %f = graph.constant splat false : tensor<2x2xi1>
  func.return %t, %f : tensor<3xi1>, tensor<2x2xi1>
}

// Discardable attributes survive both forms.
// CHECK-LABEL: func.func @with_attrs
// CHECK-NEXT:    %[[S:.*]] = graph.constant splat 1.000000e+00 {tag = "s"} : tensor<2xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> {tag = "d"}
func.func @with_attrs() -> (tensor<2xf32>, tensor<2xf32>) {
  %s = graph.constant splat 1.0 {tag = "s"} : tensor<2xf32>
  %d = graph.constant dense<[1.0, 2.0]> : tensor<2xf32> {tag = "d"}
  func.return %s, %d : tensor<2xf32>, tensor<2xf32>
}
