// --split-input-file as in mlir-opt: every chunk is processed even after a
// failing one, outputs are joined by '// -----', a failure makes the exit
// status 1, and a near-miss marker such as '// ----' gets a warning.
// RUN: not graph-opt --split-input-file %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR < %t.err

// CHECK-LABEL: func.func @first
// CHECK:       // -----
// CHECK-LABEL: func.func @third
// CHECK-NOT:   // -----
// CHECK-NOT:   func.func @second

// ERR: split-input-file.mlir:[[# @LINE + 15]]:1: warning: '// ----' is not a split marker; write '// -----' (five dashes) to split the input here
// ERR: split-input-file.mlir:[[# @LINE + 7]]:3: error: graph.matmul: inner dimensions differ
// ERR-NOT: error:
func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
// -----
func.func @second(%a: tensor<8x16xf32>, %b: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %r = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}
// -----
func.func @third(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
// ----
func.func @fourth(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
