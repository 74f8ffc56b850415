// RUN: graph-opt %s --print-op-generic | filecheck %s
// RUN: graph-opt %s --print-op-generic | graph-opt | filecheck %s --check-prefix=BACK

// The ABI attribute keeps its custom syntax in the generic format.
// CHECK-LABEL: "func.func"() <{sym_name = "d"
// CHECK: loop.abi = #loop.abi<inputs = ["x" : tensor<4xf32>, "" : tensor<i1>], outputs = ["y" : tensor<2x2xf32>], workspace = 64>
// BACK-LABEL: func.func @d(
// BACK-SAME: loop.abi = #loop.abi<inputs = ["x" : tensor<4xf32>, "" : tensor<i1>], outputs = ["y" : tensor<2x2xf32>], workspace = 64>
func.func @d(%x: memref<4xf32>, %b: memref<i1>, %y: memref<2x2xf32>, %ws: memref<64xi8>) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<4xf32>, "" : tensor<i1>], outputs = ["y" : tensor<2x2xf32>], workspace = 64>} {
  func.return
}
