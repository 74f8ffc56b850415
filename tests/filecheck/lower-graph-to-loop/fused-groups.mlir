// Hand-written fused groups: each becomes exactly ONE kernel whose body is one
// loop nest; intermediates stay in registers (the only store is the output).
// RUN: graph-opt -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt -p lower-graph-to-loop,lower-loop-to-llvm -t llvm %s | filecheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @chain_k0_add_exp_mul_relu
// CHECK-SAME: (%[[X:.*]]: memref<64x128xf32>, %[[B:.*]]: memref<128xf32>, %[[OUT:.*]]: memref<64x128xf32>)
// CHECK:       scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = {{.*}} {
// CHECK-DAG:       memref.load %[[X]][%[[I]], %[[J]]] : memref<64x128xf32>
// CHECK-DAG:       memref.load %[[B]][%[[J]]] : memref<128xf32>
// CHECK:           math.exp
// CHECK:           arith.select
// CHECK-NEXT:      memref.store {{.*}}, %[[OUT]][%[[I]], %[[J]]] : memref<64x128xf32>
// CHECK-NOT:   memref.store
// CHECK:       func.return
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    attributes {loop.abi = #loop.abi<inputs = [{{.*}}, {{.*}}], outputs = [{{[^,]*}}], workspace = 0>}
// CHECK-COUNT-1: func.call
// CHECK-NEXT:  func.return
// LLVM-DAG: define void @"chain"(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}})
// LLVM-DAG: define internal void @"chain_k0_add_exp_mul_relu"(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}})
func.func @chain(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %r = fused.group "add_exp_mul_relu" pattern(broadcast) (%a = %x : tensor<64x128xf32>, %c = %b : tensor<128xf32>) -> (tensor<64x128xf32>) {
    %0 = graph.add %a, %c : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
    %1 = graph.exp %0 : tensor<64x128xf32>
    %2 = graph.mul %1, %a : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %3 = graph.relu %2 : tensor<64x128xf32>
    fused.yield %3 : tensor<64x128xf32>
  }
  func.return %r : tensor<64x128xf32>
}

// The matmul computes each output row into a stack buffer in i, k, j order
// (the contiguous j loop vectorises); bias and relu are its epilogue, applied
// as the row is stored.
// CHECK-LABEL: func.func private @mlp_layer_k0_matmul_add_relu
// CHECK-SAME: (%[[A:.*]]: memref<8x32xf32>, %[[W:.*]]: memref<32x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<8x16xf32>)
// CHECK:       %[[ROW:.*]] = memref.alloca() : memref<16xf32>
// CHECK:       scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:    scf.for %[[Z:.*]] = {{.*}} {
// CHECK-NEXT:      memref.store %{{.*}}, %[[ROW]][%[[Z]]]
// CHECK:         scf.for %[[K:.*]] = {{.*}} {
// CHECK-NEXT:      %[[AIK:.*]] = memref.load %[[A]][%[[I]], %[[K]]]
// CHECK-NEXT:      scf.for %[[J:.*]] = {{.*}} {
// CHECK-DAG:         memref.load %[[W]][%[[K]], %[[J]]]
// CHECK-DAG:         memref.load %[[ROW]][%[[J]]]
// CHECK:             arith.mulf %[[AIK]]
// CHECK:             memref.store {{.*}}, %[[ROW]][%[[J]]]
// CHECK:         scf.for %[[J2:.*]] = {{.*}} {
// CHECK-DAG:       memref.load %[[ROW]][%[[J2]]]
// CHECK-DAG:       memref.load %[[BIAS]][%[[J2]]]
// CHECK:           arith.addf
// CHECK:           arith.select
// CHECK-NEXT:      memref.store {{.*}}, %[[OUT]][%[[I]], %[[J2]]]
// CHECK-NOT:   memref.store
// CHECK-LABEL: func.func @mlp_layer(
// CHECK-COUNT-1: func.call
// CHECK-NEXT:  func.return
func.func @mlp_layer(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %r = fused.group "matmul_add_relu" pattern(out_ewise_fusable) (%a = %x : tensor<8x32xf32>, %ww = %w : tensor<32x16xf32>, %bb = %b : tensor<16xf32>) -> (tensor<8x16xf32>) {
    %0 = graph.matmul %a, %ww : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %1 = graph.add %0, %bb : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %2 = graph.relu %1 : tensor<8x16xf32>
    fused.yield %2 : tensor<8x16xf32>
  }
  func.return %r : tensor<8x16xf32>
}

// The prologue (sub, mul) is computed inside the reduction loop: no buffer.
// The broadcast read of %m is loop-invariant in k, so it is hoisted out.
// CHECK-LABEL: func.func private @sumsq_k0_sub_mul_reduce_sum
// CHECK-SAME: (%[[X:.*]]: memref<16x256xf32>, %[[M:.*]]: memref<16x1xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK:       scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:    %[[MI:.*]] = memref.load %[[M]][%[[I]], %{{.*}}] : memref<16x1xf32>
// CHECK-NEXT:    %[[SUM:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-DAG:       memref.load %[[X]][%[[I]], %[[K]]]
// CHECK:           arith.subf %{{.*}}, %[[MI]]
// CHECK:           arith.mulf
// CHECK:           arith.addf %[[ACC]]
// CHECK:           scf.yield
// CHECK:         memref.store %[[SUM]], %[[OUT]][%[[I]]]
// CHECK-NOT:   memref.store
// CHECK-LABEL: func.func @sumsq(
// CHECK-COUNT-1: func.call
// CHECK-NEXT:  func.return
func.func @sumsq(%x: tensor<16x256xf32>, %m: tensor<16x1xf32>) -> tensor<16xf32> {
  %r = fused.group "sub_mul_reduce_sum" pattern(comm_reduce) (%a = %x : tensor<16x256xf32>, %mm = %m : tensor<16x1xf32>) -> (tensor<16xf32>) {
    %0 = graph.sub %a, %mm : (tensor<16x256xf32>, tensor<16x1xf32>) -> tensor<16x256xf32>
    %1 = graph.mul %0, %0 : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
    %2 = graph.reduce_sum %1 {axes = array<i64: 1>} : (tensor<16x256xf32>) -> tensor<16xf32>
    fused.yield %2 : tensor<16xf32>
  }
  func.return %r : tensor<16xf32>
}

// A diamond: the anchor tanh(x) is used by both branches but computed once.
// CHECK-LABEL: func.func private @diamond_k0_tanh_diamond
// CHECK:       scf.for
// CHECK-NEXT:    scf.for
// CHECK-COUNT-1:   math.tanh
// CHECK-NOT:       math.tanh
// CHECK:           memref.store
// CHECK-NOT:   memref.store
// CHECK-LABEL: func.func @diamond(
// CHECK-COUNT-1: func.call
// CHECK-NEXT:  func.return
func.func @diamond(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = fused.group "tanh_diamond" pattern(elemwise) (%a = %x : tensor<32x32xf32>) -> (tensor<32x32xf32>) {
    %t = graph.tanh %a : tensor<32x32xf32>
    %l = graph.mul %t, %t : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %r2 = graph.exp %t : tensor<32x32xf32>
    %s = graph.add %l, %r2 : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    fused.yield %s : tensor<32x32xf32>
  }
  func.return %r : tensor<32x32xf32>
}
