// RUN: graph-opt -p convert-math-to-llvm %s | filecheck %s

// CHECK-LABEL: func.func @math
func.func @math(%x: f32, %y: f64) -> f32 {
  // CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.exp.f32"(%{{.*}}) : (f32) -> f32
  %e = math.exp %x : f32
  // No intrinsic: libm, declared once per function name.
  // CHECK: %[[T:.*]] = llvm.call @tanhf(%[[E]]) : (f32) -> f32
  %t = math.tanh %e : f32
  // CHECK: llvm.call @tanh(%{{.*}}) : (f64) -> f64
  %u = math.tanh %y : f64
  // Intrinsics by their mangled names, so f32 and f64 uses do not clash.
  // CHECK: llvm.call_intrinsic "llvm.exp.f64"(%{{.*}}) : (f64) -> f64
  %v = math.exp %y : f64
  // rsqrt is 1 / sqrt(x).
  // CHECK: %[[Q:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%[[T]]) : (f32) -> f32
  // CHECK: llvm.fdiv %{{.*}}, %[[Q]] : f32
  %r = math.rsqrt %t : f32
  func.return %r : f32
}
// CHECK-DAG: llvm.func @tanhf(f32) -> f32
// CHECK-DAG: llvm.func @tanh(f64) -> f64
