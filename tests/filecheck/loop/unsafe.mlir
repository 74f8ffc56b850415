// Loop-level IR that would hang or write out of bounds is rejected when it is
// verified, with the location of the op.
// RUN: graph-opt --split-input-file --verify-diagnostics %s

func.func @zero_step(%o: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{scf.for step must be positive, got the constant 0}}
  scf.for %i = %c0 to %c4 step %c0 {
    memref.store %v, %o[%i] : memref<4xf32>
  }
  func.return
}

// -----

func.func @negative_step(%o: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m1 = arith.constant -1 : index
  // expected-error @+1 {{scf.for step must be positive, got the constant -1}}
  scf.for %i = %c4 to %c0 step %m1 {
  }
  func.return
}

// -----

func.func @store_out_of_bounds(%o: memref<4xf32>) {
  %big = arith.constant 100000000 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{memref.store: index 100000000 is out of bounds for dimension 0 (size 4) of memref<4xf32>}}
  memref.store %v, %o[%big] : memref<4xf32>
  func.return
}

// -----

func.func @load_negative_index(%a: memref<4x3xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %m = arith.constant -1 : index
  // expected-error @+1 {{memref.load: index -1 is out of bounds for dimension 1 (size 3) of memref<4x3xf32>}}
  %x = memref.load %a[%c0, %m] : memref<4x3xf32>
  func.return %x : f32
}

// -----

func.func @view_past_workspace(%ws: memref<128xi8>) {
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{memref.view of memref<32xf32> (128 bytes) at byte 64 does not fit in memref<128xi8>}}
  %v = memref.view %ws[%c64][] : memref<128xi8> to memref<32xf32>
  func.return
}

// -----

func.func @parallel_zero_step(%o: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{scf.parallel step must be positive, got the constant 0}}
  "scf.parallel"(%c0, %c4, %c0) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    memref.store %v, %o[%i] : memref<4xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// -----

func.func @vector_store_past_the_end(%o: memref<4x32xf32>, %v: vector<16xf32>) {
  %c3 = arith.constant 3 : index
  %c17 = arith.constant 17 : index
  // expected-error @+1 {{vector.store: a vector of 16 at element 113 runs past the end of memref<4x32xf32>}}
  vector.store %v, %o[%c3, %c17] : memref<4x32xf32>, vector<16xf32>
  func.return
}

// -----

func.func @vector_longer_than_the_memref(%a: memref<2x4xf32>, %i: index) -> vector<16xf32> {
  // expected-error @+1 {{vector.load: a vector of 16 does not fit in memref<2x4xf32>}}
  %v = vector.load %a[%i, %i] : memref<2x4xf32>, vector<16xf32>
  func.return %v : vector<16xf32>
}
