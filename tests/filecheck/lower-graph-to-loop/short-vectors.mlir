// RUN: graph-opt %avx2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -t llvm %s | filecheck %s --check-prefix=LLVM
// RUN: graph-run %s --entry subsample --random-inputs --check | filecheck %s --check-prefix=COMPILED
// LLVM's loop vectoriser leaves a loop of fewer than 16 iterations scalar
// when its pointers may alias (no kernel argument is noalias), so a copy over
// an NCHWc block of 8 floats (AVX2) would move a float at a time: a generic
// nest's innermost loop of 4, 8 or 12 iterations is marked for it, and the
// mark reaches the loop's latch as LLVM loop metadata.  Other trip counts
// (16 and more: vectorised anyway; 7: no whole vectors) are left alone.

// CHECK-LABEL: func.func private @subsample_k{{[0-9]+}}_slice
// CHECK:       scf.for
// CHECK:       scf.for
// CHECK:       memref.load
// CHECK-NEXT:  memref.store
// CHECK-NEXT:  } {llvm.loop_hints = ["vectorize.enable"]}
// LLVM-LABEL:  define {{.*}} @"subsample_k{{[0-9]+}}_slice"
// LLVM:        br label %{{.*}}, !llvm.loop ![[L:[0-9]+]]
// LLVM:        ![[L]] = distinct !{![[L]], ![[E:[0-9]+]]}
// LLVM:        ![[E]] = !{!"llvm.loop.vectorize.enable", i1 true}
// COMPILED:    check: OK (1 outputs match the reference)
func.func @subsample(%x: tensor<1x4x9x9x8xf32>) -> tensor<1x4x5x5x8xf32> {
  %y = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 9, 9>, axes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<1x4x9x9x8xf32>) -> tensor<1x4x5x5x8xf32>
  func.return %y : tensor<1x4x5x5x8xf32>
}

// CHECK-LABEL: func.func private @wide_k{{[0-9]+}}_slice
// CHECK-NOT:   llvm.loop_hints
// CHECK:       func.return
func.func @wide(%x: tensor<1x4x9x9x16xf32>) -> tensor<1x4x5x5x16xf32> {
  %y = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 9, 9>, axes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<1x4x9x9x16xf32>) -> tensor<1x4x5x5x16xf32>
  func.return %y : tensor<1x4x5x5x16xf32>
}

// CHECK-LABEL: func.func private @odd_k{{[0-9]+}}_slice
// CHECK-NOT:   llvm.loop_hints
// CHECK:       func.return
func.func @odd(%x: tensor<1x4x9x9x7xf32>) -> tensor<1x4x5x5x7xf32> {
  %y = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 9, 9>, axes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<1x4x9x9x7xf32>) -> tensor<1x4x5x5x7xf32>
  func.return %y : tensor<1x4x5x5x7xf32>
}
