// RUN: graph-opt -p convert-parallel-to-llvm %s | filecheck %s
// RUN: graph-opt -p lower-loop-to-llvm %s | filecheck %s --check-prefix=LLVM
// RUN: graph-opt --split-input-file --print-diagnostics -p convert-parallel-to-llvm %S/Inputs/invalid.mlir 2>&1 | filecheck %S/Inputs/invalid.mlir

// The body is outlined into a function over the context; it runs its own
// contiguous chunk of the iterations.
// CHECK-LABEL: func.func private @k_par0(
// CHECK-SAME: %[[CTX:.*]]: !llvm.ptr)
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[CTX]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[L0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[A:.*]] = builtin.unrealized_conversion_cast %[[L0]] : !llvm.ptr to memref<64x256xf32>
// The scalar %s travels in the context too: element 2 of f32 is bytes 8..11.
// CHECK: llvm.getelementptr %[[CTX]][2] : (!llvm.ptr) -> !llvm.ptr, f32
// Constants and the stack buffer are re-created, so each thread has its own buffer.
// CHECK: %[[ROW:.*]] = memref.alloca() : memref<256xf32>
// CHECK: %[[TID:.*]] = llvm.call @omp_get_thread_num() : () -> i32
// CHECK-NEXT: %[[NT:.*]] = llvm.call @omp_get_num_threads() : () -> i32
// The chunk is ceil(trips / team) in unsigned arithmetic, the trip count a
// constant.  The loop keeps the constant range (lower bound 0, step 1), so
// LLVM knows the range of every index derived from its variable, and runs
// the thread's iterations, those in [begin, end).
// CHECK: %[[TID_I:.*]] = arith.index_cast %[[TID]] : i32 to index
// CHECK-NEXT: %[[NT_I:.*]] = arith.index_cast %[[NT]] : i32 to index
// CHECK-NEXT: %[[TRIPS:.*]] = arith.constant 64 : index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[CHUNK:.*]] = arith.divui %{{.*}}, %[[NT_I]] : index
// CHECK-NEXT: %[[FROM:.*]] = arith.muli %[[TID_I]], %[[CHUNK]] : index
// CHECK-NEXT: %[[BEGIN:.*]] = arith.minui %[[FROM]], %[[TRIPS]] : index
// CHECK-NEXT: %[[TO:.*]] = arith.addi %[[BEGIN]], %[[CHUNK]] : index
// CHECK-NEXT: %[[END:.*]] = arith.minui %[[TO]], %[[TRIPS]] : index
// CHECK-NEXT: scf.for %[[T:.*]] = %[[ZERO]] to %[[TRIPS]] step %{{.*}} {
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi uge, %[[T]], %[[BEGIN]] : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %[[T]], %[[END]] : index
// CHECK-NEXT: %[[MINE:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[MINE]] {
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load %{{.*}}[%[[T]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[ROW]][%{{.*}}] : memref<256xf32>
// CHECK: func.return

// The kernel fills the context and runs the pool, or calls the body itself
// when one thread is asked for.
// CHECK-LABEL: func.func private @k(
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT: %[[C:.*]] = llvm.alloca %[[N]] x !llvm.ptr {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// The team is the thread count capped at the trip count; 0 (libgomp's
// default team) still runs the pool, only a team of one calls the body.
// CHECK: %[[G:.*]] = llvm.mlir.addressof @graphopt_num_threads : !llvm.ptr
// CHECK-NEXT: %[[W:.*]] = llvm.load %[[G]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[WI:.*]] = arith.index_cast %[[W]] : i32 to index
// CHECK: %[[NONNEG:.*]] = arith.maxsi %[[WI]], %{{.*}} : index
// CHECK-NEXT: %[[TEAM:.*]] = arith.minsi %[[NONNEG]], %{{.*}} : index
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[TEAM]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[ONE]] {
// CHECK-NEXT: func.call @k_par0(%[[C]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: } else {
// CHECK: %[[FN:.*]] = llvm.mlir.addressof @k_par0 : !llvm.ptr
// CHECK: llvm.call @GOMP_parallel(%[[FN]], %[[C]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NOT: scf.parallel
// CHECK: llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
// CHECK: llvm.mlir.global common @graphopt_num_threads(0 : i32)

// LLVM-LABEL: llvm.func internal @k_par0(
// LLVM-LABEL: llvm.func internal @k(
// LLVM: llvm.call @GOMP_parallel
func.func private @k(%a: memref<64x256xf32>, %o: memref<64x256xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %row = memref.alloca() : memref<256xf32>
  "scf.parallel"(%c0, %c64, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.for %j = %c0 to %c256 step %c1 {
      %x = memref.load %a[%i, %j] : memref<64x256xf32>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %row[%j] : memref<256xf32>
    }
    scf.for %j = %c0 to %c256 step %c1 {
      %y = memref.load %row[%j] : memref<256xf32>
      memref.store %y, %o[%i, %j] : memref<64x256xf32>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
