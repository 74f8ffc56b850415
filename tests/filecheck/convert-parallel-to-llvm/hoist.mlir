// RUN: graph-opt -p convert-parallel-to-llvm %s | filecheck %s

// A serial loop whose body is only arithmetic and the parallel loop (a
// conv's panels around its parallel output rows) runs as one region: the
// chunk is computed once, then every panel runs the thread's chunk of rows.
// CHECK-LABEL: func.func private @panels_par0(
// CHECK: %[[TID:.*]] = llvm.call @omp_get_thread_num() : () -> i32
// CHECK: %[[BEGIN:.*]] = arith.minui
// CHECK: %[[END:.*]] = arith.minui
// CHECK-NEXT: scf.for %[[JB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[O0:.*]] = arith.muli %[[JB]], %{{.*}} : index
// CHECK-NEXT: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi uge, %[[ROW]], %[[BEGIN]] : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %[[ROW]], %[[END]] : index
// CHECK-NEXT: %[[MINE:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[MINE]] {
// CHECK: vector.store %{{.*}}, %[[TILE:.*]][%{{.*}}] : memref<16xf32>, vector<16xf32>
// CHECK: vector.load %[[TILE]][%{{.*}}] : memref<16xf32>, vector<16xf32>
// CHECK: func.return
// CHECK-LABEL: func.func private @panels(
// CHECK-NOT: scf.for
// CHECK: llvm.call @GOMP_parallel
// CHECK-NOT: llvm.call @GOMP_parallel
// CHECK: func.return
func.func private @panels(%x: memref<8x16xf32>, %o: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %tile = memref.alloca() : memref<16xf32>
  scf.for %jb = %c0 to %c4 step %c1 {
    %o0 = arith.muli %jb, %c8 : index
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%row: index):
      %v = vector.load %x[%row, %c0] : memref<8x16xf32>, vector<16xf32>
      vector.store %v, %tile[%c0] : memref<16xf32>, vector<16xf32>
      %t = vector.load %tile[%c0] : memref<16xf32>, vector<16xf32>
      vector.store %t, %o[%jb, %row, %c0] : memref<4x8x16xf32>, vector<16xf32>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}

// The nest reads a buffer it writes (a sum carried from one chunk of K to
// the next): the chunks keep one region each, so every thread sees the
// others' results of the chunk before.
// CHECK-LABEL: func.func private @carried(
// CHECK: scf.for
// CHECK: llvm.call @GOMP_parallel
func.func private @carried(%x: memref<8x16xf32>, %acc: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %kc = %c0 to %c4 step %c1 {
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%row: index):
      %a = vector.load %acc[%row, %c0] : memref<8x16xf32>, vector<16xf32>
      %v = vector.load %x[%row, %c0] : memref<8x16xf32>, vector<16xf32>
      %s = arith.addf %a, %v : vector<16xf32>
      vector.store %s, %acc[%row, %c0] : memref<8x16xf32>, vector<16xf32>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}

// Work of the serial loop's own (a panel copied before its rows) keeps it
// out of the region too.
// CHECK-LABEL: func.func private @copied(
// CHECK: scf.for
// CHECK: memref.store
// CHECK: llvm.call @GOMP_parallel
func.func private @copied(%x: memref<8x16xf32>, %o: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %panel = memref.alloca() : memref<16xf32>
  scf.for %jb = %c0 to %c4 step %c1 {
    %w = memref.load %x[%jb, %c0] : memref<8x16xf32>
    memref.store %w, %panel[%c0] : memref<16xf32>
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%row: index):
      %p = memref.load %panel[%c0] : memref<16xf32>
      memref.store %p, %o[%jb, %row, %c0] : memref<4x8x16xf32>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}

// So does a call in the nest (its effects are not known here).
// CHECK-LABEL: func.func private @calls(
// CHECK: scf.for
// CHECK: llvm.call @GOMP_parallel
func.func private @calls(%x: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %jb = %c0 to %c4 step %c1 {
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%row: index):
      func.call @row(%x, %row) : (memref<8x16xf32>, index) -> ()
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}
func.func private @row(%x: memref<8x16xf32>, %i: index) {
  func.return
}
