// Algebraic identities; each fires, and a negative case where it must not.
// RUN: graph-opt -p canonicalize %s | filecheck %s

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:   func.return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %z = graph.constant splat 0.0 : tensor<16xf32>
  %a = graph.add %x, %z : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %b = graph.add %z, %x : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// x + zeros(8x16) with x: 16 broadcasts, so it is not x.
// CHECK-LABEL: func.func @add_zero_broadcasting
// CHECK:        graph.add
func.func @add_zero_broadcasting(%x: tensor<16xf32>) -> tensor<8x16xf32> {
  %z = graph.constant splat 0.0 : tensor<8x16xf32>
  %a = graph.add %x, %z : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %a : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @add_nonzero
// CHECK:        graph.add
func.func @add_nonzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = graph.constant dense<[0.0, 0.0, 1.0, 0.0]> : tensor<4xf32>
  %a = graph.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:   func.return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = graph.constant dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf32>
  %a = graph.mul %one, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.mul %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @mul_two
// CHECK:        graph.mul
func.func @mul_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = graph.constant splat 2.0 : tensor<4xf32>
  %a = graph.mul %x, %two : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// Integers: x * 0 is 0 (with the product's broadcast type).
// CHECK-LABEL: func.func @mul_zero_int
// CHECK-NEXT:   %[[Z:.*]] = graph.constant splat 0 : tensor<3x4xi32>
// CHECK-NEXT:   func.return %[[Z]]
func.func @mul_zero_int(%x: tensor<4xi32>) -> tensor<3x4xi32> {
  %z = graph.constant splat 0 : tensor<3x4xi32>
  %a = graph.mul %x, %z : (tensor<4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
  func.return %a : tensor<3x4xi32>
}

// Floats: NaN * 0 and inf * 0 are NaN, so x * 0 stays.
// CHECK-LABEL: func.func @mul_zero_float
// CHECK:        graph.mul
func.func @mul_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = graph.constant splat 0.0 : tensor<4xf32>
  %a = graph.mul %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// CHECK-LABEL: func.func @sub
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>)
// CHECK-NEXT:   %[[Z:.*]] = graph.constant splat 0 : tensor<4xi64>
// CHECK-NEXT:   func.return %[[X]], %[[Z]]
func.func @sub(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %z = graph.constant splat 0 : tensor<4xi64>
  %a = graph.sub %x, %z : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %b = graph.sub %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  func.return %a, %b : tensor<4xi64>, tensor<4xi64>
}

// 0 - x is not x; x - x for floats is NaN for inf, so both stay.
// CHECK-LABEL: func.func @sub_negative
// CHECK:        graph.sub
// CHECK:        graph.sub
func.func @sub_negative(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = graph.constant splat 0.0 : tensor<4xf32>
  %a = graph.sub %z, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.sub %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>)
// CHECK-NEXT:   %[[ONE:.*]] = graph.constant
// CHECK-NEXT:   %[[D:.*]] = graph.div %[[ONE]], %[[X]]
// CHECK-NEXT:   func.return %[[X]], %[[D]]
func.func @div_one(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %one = graph.constant splat 1.0 : tensor<4xf64>
  %a = graph.div %x, %one : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %b = graph.div %one, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %a, %b : tensor<4xf64>, tensor<4xf64>
}
