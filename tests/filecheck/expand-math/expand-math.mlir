// RUN: graph-opt %s -p expand-math | filecheck %s

// f32 exp becomes arith and math.fma: no math.exp is left.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT:     math.exp
// CHECK:         %[[M:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         arith.bitcast %[[M]] : f32 to i32
// CHECK-NOT:     math.exp
// CHECK:         func.return
func.func @exp_f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  func.return %y : f32
}

// Vectors are left alone (arith.cmpf/select take i1 only in xDSL 0.74).
// CHECK-LABEL: func.func @tanh_vector
// CHECK:         math.tanh %{{.*}} : vector<16xf32>
func.func @tanh_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.tanh %x : vector<16xf32>
  func.return %y : vector<16xf32>
}

// log and erf expand too.
// CHECK-LABEL: func.func @log_erf
// CHECK-NOT:     math.log
// CHECK-NOT:     math.erf
// CHECK:         func.return
func.func @log_erf(%x: f32) -> f32 {
  %a = math.log %x : f32
  %b = math.erf %a : f32
  func.return %b : f32
}

// 1 + erf(z) (gelu) becomes erfc(-z): the result is 2 - tail for z > 0.7.
// CHECK-LABEL: func.func @one_plus_erf
// CHECK:         %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         arith.subf %[[TWO]], %{{.*}} : f32
// CHECK:         func.return
func.func @one_plus_erf(%z: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %e = math.erf %z : f32
  %s = arith.addf %e, %one : f32
  func.return %s : f32
}

// f64 stays on libm.
// CHECK-LABEL: func.func @exp_f64
// CHECK:         math.exp %{{.*}} : f64
func.func @exp_f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  func.return %y : f64
}
