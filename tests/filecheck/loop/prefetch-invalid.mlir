// RUN: graph-opt --split-input-file --verify-diagnostics %s
// A loop.prefetch with the wrong number of indices, a locality outside 0..3
// or a constant index outside the memref is rejected where it stands.

func.func @wrong_index_count(%w: memref<4x32xf32>, %i: index) {
  // expected-error @+1 {{loop.prefetch needs 2 indices for memref<4x32xf32>, got 1}}
  loop.prefetch %w[%i], locality 2 : memref<4x32xf32>
  func.return
}

// -----

func.func @bad_locality(%w: memref<4x32xf32>, %i: index) {
  // expected-error @+1 {{loop.prefetch locality must be 0 to 3, got 4}}
  loop.prefetch %w[%i, %i], locality 4 : memref<4x32xf32>
  func.return
}

// -----

func.func @constant_out_of_bounds(%w: memref<4x32xf32>, %i: index) {
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{loop.prefetch: index 32 is out of bounds for dimension 1 (size 32) of memref<4x32xf32>}}
  loop.prefetch %w[%i, %c32], locality 2 : memref<4x32xf32>
  func.return
}
