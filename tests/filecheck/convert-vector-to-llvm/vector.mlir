// RUN: graph-opt -p convert-vector-to-llvm %s | filecheck %s
// RUN: graph-opt -p lower-loop-to-llvm -t llvm %s | filecheck %s --check-prefix=IR

// CHECK-LABEL: func.func private @axpy
func.func private @axpy(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %a: f32, %i: index) {
  %c0 = arith.constant 0 : index
  // An element-aligned vector load at the address of x[i, 0].
  // CHECK: %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
  %v = vector.load %x[%i, %c0] : memref<4x8xf32>, vector<8xf32>
  // A broadcast is insertelement + shufflevector.
  // CHECK: %[[U:.*]] = llvm.mlir.undef : vector<8xf32>
  // CHECK: %[[L:.*]] = llvm.insertelement %{{.*}}, %[[U]][%{{.*}} : i32] : vector<8xf32>
  // CHECK: %[[S:.*]] = llvm.shufflevector %[[L]], %[[U]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<8xf32>
  %av = vector.broadcast %a : f32 to vector<8xf32>
  %w = vector.load %y[%i, %c0] : memref<4x8xf32>, vector<8xf32>
  // CHECK: %[[F:.*]] = llvm.intr.fma(%[[S]], %[[V]], %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
  %r = vector.fma %av, %v, %w : vector<8xf32>
  // CHECK: llvm.store %[[F]], %{{.*}} {alignment = 4 : i64} : vector<8xf32>, !llvm.ptr
  vector.store %r, %y[%i, %c0] : memref<4x8xf32>, vector<8xf32>
  func.return
}
// IR: load <8 x float>, ptr %{{.*}}, align 4
// IR: call <8 x float> @"llvm.fma.v8f32"
// IR: store <8 x float> %{{.*}}, ptr %{{.*}}, align 4
