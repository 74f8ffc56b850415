// RUN: %roundtrip
// RUN: %roundtrip-generic

// loop.prefetch (MLIR's memref.prefetch): a read hint, or with `write` a
// write hint, for the line holding one element, with LLVM's locality 0..3.
// CHECK-LABEL: func.func private @k_prefetch
// CHECK-SAME: (%[[W:.*]]: memref<4x32xf32>, %[[I:.*]]: index)
func.func private @k_prefetch(%w: memref<4x32xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  // CHECK: %[[C16:.*]] = arith.constant 16 : index
  // CHECK-NEXT: loop.prefetch %[[W]][%[[I]], %[[C16]]], locality 2 : memref<4x32xf32>
  loop.prefetch %w[%i, %c16], locality 2 : memref<4x32xf32>
  // CHECK-NEXT: loop.prefetch %[[W]][%[[I]], %[[I]]], locality 0 : memref<4x32xf32>
  "loop.prefetch"(%w, %i, %i) <{locality = 0 : i32}> : (memref<4x32xf32>, index, index) -> ()
  // CHECK-NEXT: loop.prefetch %[[W]][%[[I]], %[[C16]]], write, locality 3 : memref<4x32xf32>
  loop.prefetch %w[%i, %c16], write, locality 3 : memref<4x32xf32>
  // CHECK-NEXT: loop.prefetch %[[W]][%[[I]], %[[I]]], write, locality 1 : memref<4x32xf32>
  "loop.prefetch"(%w, %i, %i) <{locality = 1 : i32, write}> : (memref<4x32xf32>, index, index) -> ()
  func.return
}
