// RUN: graph-opt --split-input-file --print-diagnostics %s | filecheck %s
// CHECK-NOT: Traceback

func.func @load_rank(%m: memref<4x8xf32>, %i: index) -> f32 {
  %x = loop.load %m[%i] : memref<4x8xf32>
  func.return %x : f32
}
// CHECK: loop.load expects 2 indices for memref<4x8xf32>, got 1

// -----

func.func @store_rank(%m: memref<4xf32>, %v: f32, %i: index) {
  loop.store %v, %m[%i, %i] : memref<4xf32>
  func.return
}
// CHECK: loop.store expects 1 indices for memref<4xf32>, got 2

// -----

func.func @store_type(%m: memref<4xf32>, %v: f64, %i: index) {
  "loop.store"(%v, %m, %i) : (f64, memref<4xf32>, index) -> ()
  func.return
}
// CHECK: loop.store value type f64 does not match the element type f32 of memref<4xf32>

// -----

func.func @load_type(%m: memref<4xf32>, %i: index) {
  %x = "loop.load"(%m, %i) : (memref<4xf32>, index) -> i32
  func.return
}
// CHECK: loop.load result type i32 does not match the element type f32 of memref<4xf32>

// -----

func.func @index_type(%m: memref<4xf32>, %i: i64) {
  %x = "loop.load"(%m, %i) : (memref<4xf32>, i64) -> f32
  func.return
}
// CHECK: error: i64 should be of base attribute index

// -----

func.func @dynamic(%m: memref<?xf32>, %i: index) {
  %x = loop.load %m[%i] : memref<?xf32>
  func.return
}
// CHECK: loop.load operand must have a static shape, got memref<?xf32>

// -----

func.func @view_too_big(%ws: memref<128xi8>) {
  %v = loop.view %ws[64] : memref<128xi8> -> memref<32xf32>
  func.return
}
// CHECK: loop.view of memref<32xf32> (128 bytes) at offset 64 does not fit in the 128-byte workspace

// -----

func.func @view_not_i8(%ws: memref<128xf32>) {
  %v = loop.view %ws[0] : memref<128xf32> -> memref<4xf32>
  func.return
}
// CHECK: loop.view workspace must be a 1-D i8 memref, got memref<128xf32>

// -----

func.func @yield_count(%lb: index, %z: f32) {
  %r = loop.for %i = %lb to %lb step %lb iter_args(%a = %z) -> (f32) {
    loop.yield
  }
  func.return
}
// CHECK: loop.yield yields 0 values but the loop has 1 iter_args

// -----

func.func @yield_type(%lb: index, %z: f32, %d: f64) {
  %r = loop.for %i = %lb to %lb step %lb iter_args(%a = %z) -> (f32) {
    loop.yield %d : f64
  }
  func.return
}
// CHECK: loop.yield value #0 has type f64 but iter_arg #0 has type f32

// -----

func.func @bad_bound(%lb: i64) {
  "loop.for"(%lb, %lb, %lb) ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }) : (i64, i64, i64) -> ()
  func.return
}
// CHECK: error: i64 should be of base attribute index

// -----

func.func @block_arg_type(%lb: index, %z: f32) {
  %r = "loop.for"(%lb, %lb, %lb, %z) ({
  ^bb0(%i: index, %a: f64):
    "loop.yield"(%z) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  func.return
}
// CHECK: loop.for iter_arg #0 has type f32 but its block argument has type f64

// -----

func.func @yield_outside() {
  loop.yield
}
// CHECK: error: 'loop.yield' expects parent op 'loop.for'

// -----

func.func @bad_abi() attributes {loop.abi = #loop.abi<inputs = 1, outputs = -1, workspace = 0>} {
  func.return
}
// CHECK: #loop.abi outputs must be non-negative, got -1

// -----

func.func @bad_abi_syntax() attributes {loop.abi = #loop.abi<inputs = 1, workspace = 0>} {
  func.return
}
// CHECK: Expected 'outputs'
// CHECK-NOT: Traceback
