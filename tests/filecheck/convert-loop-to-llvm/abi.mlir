// RUN: graph-opt -p 'convert-loop-to-llvm{max-inline-constant-bytes=16}' %s | filecheck %s
// RUN: graph-opt -p 'convert-loop-to-llvm{max-inline-constant-bytes=-1}' %s | filecheck %s --check-prefix=EMBED
// RUN: not graph-opt -p convert-loop-to-llvm %S/Inputs/bad-abi.mlir 2>&1 | filecheck %s --check-prefix=BAD

// A large constant read only by the driver becomes its last argument; its
// value moves into #loop.abi.  A small one stays a global.
// CHECK-NOT: sym_name = "big"
// CHECK: "memref.global"() <{sym_name = "small"
// EMBED: "memref.global"() <{sym_name = "big"
"memref.global"() <{sym_name = "big", sym_visibility = "private", type = memref<8xf32>, initial_value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "small", sym_visibility = "private", type = memref<2xf32>, initial_value = dense<[1.0, 2.0]> : tensor<2xf32>, constant}> : () -> ()

func.func private @k(%a: memref<8xf32>, %b: memref<2xf32>, %o: memref<2xf32>) {
  func.return
}

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: memref<2xf32>, %{{.*}}: memref<0xi8>, %[[BIG:.*]]: memref<8xf32> {llvm.noalias})
// CHECK-SAME: constants = [dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>]
// CHECK: %[[S:.*]] = memref.get_global @small
// CHECK: func.call @k(%[[BIG]], %[[S]], %{{.*}})
// EMBED-LABEL: func.func @main
// EMBED-NOT: constants
func.func @main(%o: memref<2xf32>, %ws: memref<0xi8>) attributes {loop.abi = #loop.abi<inputs = [], outputs = ["o" : tensor<2xf32>], workspace = 0>} {
  %b = memref.get_global @big : memref<8xf32>
  %s = memref.get_global @small : memref<2xf32>
  func.call @k(%b, %s, %o) : (memref<8xf32>, memref<2xf32>, memref<2xf32>) -> ()
  func.return
}
// BAD: graph-opt: error: driver @main: argument 0 is memref<3xf32> but #loop.abi says tensor<2xf32>
