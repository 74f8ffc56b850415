// RUN: %verify-errors
// RUN: not graph-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=NOTB
// RUN: not graph-compile %s -o %t.so 2>&1 | filecheck %s --check-prefix=NOTB
// RUN: not graph-run %s 2>&1 | filecheck %s --check-prefix=NOTB
// NOTB-NOT: Traceback
// NOTB-NOT: internal error
// NOTB: error: {{.*}} needs {{[0-9]+}} bytes, more than any array can hold (at most 9223372036854775807 bytes)

// A tensor type whose byte size overflows every array (2^63 - 1 bytes) is
// refused where it is written, on every machine, naming the value, its type
// and its exact size: not an internal error in numpy, the planner or LLVM.

// CHECK: {{.*}}size-overflow-invalid.mlir:[[# @LINE + 2]]:3: error: graph.relu: operand #0 (%x, tensor<100000x100000x100000x100000xf32>) needs 400000000000000000000 bytes, more than any array can hold (at most 9223372036854775807 bytes)
func.func @operand(%x: tensor<100000x100000x100000x100000xf32>) -> tensor<100000x100000x100000x100000xf32> {
  %y = graph.relu %x : tensor<100000x100000x100000x100000xf32>
  func.return %y : tensor<100000x100000x100000x100000xf32>
}

// -----

// CHECK: {{.*}}size-overflow-invalid.mlir:[[# @LINE + 2]]:3: error: graph.constant: result #0 (%c, tensor<3037000500x3037000500xf32>) needs 36893488148001000000 bytes, more than any array can hold
func.func @splat() -> tensor<3037000500x3037000500xf32> {
  %c = graph.constant splat 1.0 : tensor<3037000500x3037000500xf32>
  func.return %c : tensor<3037000500x3037000500xf32>
}

// -----

// The element count fits in int64; the bytes of 8-byte elements do not.
// CHECK: {{.*}}size-overflow-invalid.mlir:[[# @LINE + 2]]:3: error: graph.fill: result #0 (%z, tensor<2000000000x2000000000xf64>) needs 32000000000000000000 bytes
func.func @fill() -> tensor<2000000000x2000000000xf64> {
  %z = graph.fill {shape = array<i64: 2000000000, 2000000000>, value = 0.0 : f64} : tensor<2000000000x2000000000xf64>
  func.return %z : tensor<2000000000x2000000000xf64>
}

// -----

// Unused argument and result: the signature itself is checked.
// CHECK: {{.*}}size-overflow-invalid.mlir:[[# @LINE + 1]]:1: error: func.func @signature: argument #0 (%x, tensor<10000000000x1000000000xi1>) needs 10000000000000000000 bytes, more than any array can hold
func.func @signature(%x: tensor<10000000000x1000000000xi1>) -> tensor<4xf32> {
  %c = graph.constant splat 1.0 : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// CHECK: {{.*}}size-overflow-invalid.mlir:[[# @LINE + 1]]:1: error: func.func @declared: result #0 (tensor<10000000000x1000000000xi1>) needs 10000000000000000000 bytes
func.func private @declared(tensor<4xf32>) -> tensor<10000000000x1000000000xi1>
