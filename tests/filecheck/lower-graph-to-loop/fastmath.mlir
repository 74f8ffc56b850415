// Reductions carry `reassoc` on their add only, multiply-accumulates carry
// `contract`, and lower-loop-to-llvm keeps the flags.  Softmax's row max is an
// integer max of the ordered bits; it stores each exp(x - max) (expanded by
// the rule: its argument is <= 0) in a row buffer during the sum loop, so exp
// runs once per element.
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt -p lower-graph-to-loop,lower-loop-to-llvm -t llvm %s | filecheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @softmax_k0_softmax
// CHECK:       %[[ROW:.*]] = memref.alloca() : memref<32xf32>
// CHECK:       arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = {{.*}}) -> (f32) {
// CHECK-NOT:     math.exp
// CHECK:         memref.store %[[E:.*]], %[[ROW]][{{.*}}] : memref<32xf32>
// CHECK-NEXT:    arith.addf %[[ACC]], %[[E]] fastmath<reassoc> : f32
// CHECK:       %[[INV:.*]] = arith.divf
// CHECK:       scf.for
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[ROW]][{{.*}}] : memref<32xf32>
// CHECK-NEXT:    arith.mulf %[[V]], %[[INV]] : f32
// CHECK-NOT:   math.exp
// CHECK:       func.return
// LLVM-LABEL: define internal void @"softmax_k0_softmax"
// LLVM:       fadd reassoc float
func.func @softmax(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : (tensor<4x32xf32>) -> tensor<4x32xf32>
  func.return %0 : tensor<4x32xf32>
}

// CHECK-LABEL: func.func private @mm_k0_matmul
// CHECK:         %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:    arith.addf %{{.*}}, %[[P]] fastmath<contract> : f32
// LLVM-LABEL: define internal void @"mm_k0_matmul"
// LLVM:       fmul contract float
// LLVM-NEXT:  fadd contract float
func.func @mm(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %0 = graph.matmul %a, %b : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  func.return %0 : tensor<8x16xf32>
}

// A reduce_sum's add is reassociable.
// CHECK-LABEL: func.func private @rsum_k0_reduce_sum
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @rsum(%x: tensor<4x32xf32>) -> tensor<4xf32> {
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x32xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
