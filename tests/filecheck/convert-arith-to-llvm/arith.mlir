// RUN: graph-opt -p convert-arith-to-llvm %s | filecheck %s

// CHECK-LABEL: func.func @scalars
// Constants are made once per value and function, at the function's entry.
// CHECK-NEXT: %[[C:.*]] = llvm.mlir.constant(4) : i64
func.func @scalars(%a: f32, %b: f32, %i: index, %n: i32) -> (f32, index) {
  // fastmath flags are carried to the llvm op.
  // CHECK: %[[S:.*]] = llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
  %s = arith.addf %a, %b fastmath<reassoc,contract> : f32
  // CHECK-NEXT: %[[M:.*]] = llvm.fmul %[[S]], %{{.*}} : f32
  %m = arith.mulf %s, %b : f32
  // An index operand is cast to i64; the result is cast back for its users.
  // CHECK: %[[I:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
  // CHECK: %[[J:.*]] = llvm.add %[[I]], %[[C]] : i64
  // CHECK-NEXT: %[[BACK:.*]] = builtin.unrealized_conversion_cast %[[J]] : i64 to index
  %c4 = arith.constant 4 : index
  %j = arith.addi %i, %c4 : index
  // CHECK: llvm.call_intrinsic "llvm.maximum.f32"(%[[M]], %{{.*}}) : (f32, f32) -> f32
  %x = arith.maximumf %m, %a : f32
  // CHECK: llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"
  %k = arith.fptosi %x : f32 to i32
  // CHECK: llvm.icmp "slt"
  %lt = arith.cmpi slt, %k, %n : i32
  // CHECK: llvm.select
  %r = arith.select %lt, %x, %a : f32
  // CHECK: func.return %{{.*}}, %[[BACK]] : f32, index
  func.return %r, %j : f32, index
}

// Equal constants of one function become one llvm.mlir.constant.
// CHECK-LABEL: func.func @shared_constants
// CHECK-NEXT:  %[[C:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NOT:   llvm.mlir.constant
// CHECK:       llvm.add %{{.*}}, %[[C]] : i64
// CHECK-NOT:   llvm.mlir.constant
// CHECK:       llvm.add %{{.*}}, %[[C]] : i64
func.func @shared_constants(%i: i64) -> i64 {
  %a = arith.constant 4 : i64
  %x = arith.addi %i, %a : i64
  %b = arith.constant 4 : i64
  %y = arith.addi %x, %b : i64
  func.return %y : i64
}
