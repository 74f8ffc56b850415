// RUN: graph-opt -p convert-vector-to-llvm %s | filecheck %s

// CHECK-LABEL: func.func @ops
func.func @ops(%a: memref<4x32xf32>, %x: f32, %i: index, %j: index) {
  // Constants are made once, at the function's entry.
  // CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
  // The indices are linearised into an element GEP, the vector loaded from it.
  // CHECK: %[[M:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nsw> : i64
  // CHECK: %[[OFF:.*]] = llvm.add %[[M]], %{{.*}} overflow<nsw> : i64
  // CHECK-NEXT: %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<4x32xf32> to !llvm.ptr
  // CHECK-NEXT: %[[E:.*]] = llvm.getelementptr inbounds %[[A]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: %[[V:.*]] = llvm.load %[[E]] {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
  %v = vector.load %a[%i, %j] : memref<4x32xf32>, vector<16xf32>
  // A scalar broadcast is insertelement into lane 0 and an all-zero shuffle.
  // CHECK: %[[U:.*]] = llvm.mlir.undef : vector<16xf32>
  // CHECK-NEXT: %[[INS:.*]] = llvm.insertelement %{{.*}}, %[[U]][%[[Z]] : i32] : vector<16xf32>
  // CHECK-NEXT: %[[B:.*]] = llvm.shufflevector %[[INS]], %[[U]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
  %b = vector.broadcast %x : f32 to vector<16xf32>
  // CHECK: %[[F:.*]] = llvm.intr.fma(%[[B]], %[[V]], %[[V]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
  %f = vector.fma %b, %v, %v : vector<16xf32>
  // The store to the same element in the same block reuses its address.
  // CHECK: llvm.store %[[F]], %[[E]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
  vector.store %f, %a[%i, %j] : memref<4x32xf32>, vector<16xf32>
  // At constant indices the address is one constant-offset GEP.
  // CHECK: %[[C:.*]] = llvm.getelementptr inbounds %{{.*}}[48] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.store %[[F]], %[[C]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vector.store %f, %a[%c1, %c16] : memref<4x32xf32>, vector<16xf32>
  // A two-input shuffle keeps its mask.
  // CHECK: %[[S:.*]] = llvm.shufflevector %[[V]], %[[F]] [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23] : vector<16xf32>
  // CHECK-NEXT: llvm.store %[[S]], %[[C]]
  %s = vector.shuffle %v, %f [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23] : vector<16xf32>, vector<16xf32>
  vector.store %s, %a[%c1, %c16] : memref<4x32xf32>, vector<16xf32>
  func.return
}
