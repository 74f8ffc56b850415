// RUN: graph-opt -p convert-func-to-llvm %s | filecheck %s

// A private kernel with a body is internal, so LLVM can inline it.
// CHECK-LABEL: llvm.func internal @k(%{{.*}}: !llvm.ptr, %{{.*}}: i64) {
// CHECK-NEXT: %{{.*}} = builtin.unrealized_conversion_cast %{{.*}} : i64 to index
// CHECK-NEXT: %{{.*}} = builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr to memref<4xf32>
func.func private @k(%a: memref<4xf32>, %i: index) {
  %x = memref.load %a[%i] : memref<4xf32>
  // CHECK: llvm.return
  func.return
}

// The driver keeps its ABI attribute and argument attributes.
// CHECK-LABEL: llvm.func @main(
// CHECK-SAME: %[[X:[^:]*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias})
// CHECK-SAME: attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<4xf32>], outputs = [], workspace = 0, constants = [dense<1.000000e+00> : tensor<4xf32>]>}
func.func @main(%x: memref<4xf32>, %ws: memref<0xi8>, %k: memref<4xf32> {llvm.noalias}) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<4xf32>], outputs = [], workspace = 0, constants = [dense<1.0> : tensor<4xf32>]>} {
  %c0 = arith.constant 0 : index
  // CHECK: llvm.call @k(%[[X]], %{{.*}}) : (!llvm.ptr, i64) -> ()
  func.call @k(%x, %c0) : (memref<4xf32>, index) -> ()
  func.return
}

// A declaration stays external.
// CHECK-LABEL: llvm.func @ext(f32) -> f32
func.func private @ext(f32) -> f32
