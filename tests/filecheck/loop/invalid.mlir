// RUN: graph-opt --split-input-file --print-diagnostics %s | filecheck %s
// CHECK-NOT: Traceback

func.func @bad_abi() attributes {loop.abi = #loop.abi<inputs = ["x" : memref<4xf32>], outputs = [], workspace = 0>} {
  func.return
}
// CHECK: expected a tensor type, got memref<4xf32>

// -----

func.func @bad_abi_syntax() attributes {loop.abi = #loop.abi<inputs = [], workspace = 0>} {
  func.return
}
// CHECK: Expected 'outputs'
