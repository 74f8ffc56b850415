// RUN: graph-opt -p lower-loop-to-llvm -t llvm %s | filecheck %s

// A loop with a scalar maxnumf (a max reduction) is kept from LLVM's
// LoopVectorize: its latch branch carries vectorize.enable false (LLVM 22's
// vectoriser aborts on such loops at some trip counts), even when the
// lowering asked for vectorisation (a short innermost loop's
// vectorize.enable gives way).  Other loops get no metadata.

builtin.module {
  // CHECK-LABEL: define internal void @"k_rowmax"
  // CHECK:         call double @"llvm.maxnum.f64"
  // CHECK:         br label %{{.*}}, !llvm.loop ![[L:[0-9]+]]
  func.func private @k_rowmax(%a: memref<6xf64>, %o: memref<1xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %ninf = arith.constant 0xfff0000000000000 : f64
    %m = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %ninf) -> (f64) {
      %x = memref.load %a[%i] : memref<6xf64>
      %y = arith.maxnumf %acc, %x : f64
      scf.yield %y : f64
    }
    memref.store %m, %o[%c0] : memref<1xf64>
    func.return
  }

  // CHECK-LABEL: define internal void @"k_rowmax_marked"
  // CHECK:         br label %{{.*}}, !llvm.loop ![[M:[0-9]+]]
  func.func private @k_rowmax_marked(%a: memref<8xf32>, %o: memref<1xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xff800000 : f32
    %m = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %ninf) -> (f32) {
      %x = memref.load %a[%i] : memref<8xf32>
      %y = arith.maxnumf %acc, %x : f32
      scf.yield %y : f32
    } {llvm.loop_hints = ["vectorize.enable"]}
    memref.store %m, %o[%c0] : memref<1xf32>
    func.return
  }

  // CHECK-LABEL: define internal void @"k_sum"
  // CHECK-NOT:     !llvm.loop
  // CHECK:         ret void
  // CHECK-NOT:     !llvm.loop
  // CHECK-LABEL: define void @"main"
  func.func private @k_sum(%a: memref<6xf64>, %o: memref<1xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %zero = arith.constant 0.0 : f64
    %m = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %x = memref.load %a[%i] : memref<6xf64>
      %y = arith.addf %acc, %x : f64
      scf.yield %y : f64
    }
    memref.store %m, %o[%c0] : memref<1xf64>
    func.return
  }

  func.func @main(%a: memref<6xf64>, %o: memref<1xf64>) {
    func.call @k_rowmax(%a, %o) : (memref<6xf64>, memref<1xf64>) -> ()
    func.call @k_sum(%a, %o) : (memref<6xf64>, memref<1xf64>) -> ()
    func.return
  }

  func.func @main8(%a: memref<8xf32>, %o: memref<1xf32>) {
    func.call @k_rowmax_marked(%a, %o) : (memref<8xf32>, memref<1xf32>) -> ()
    func.return
  }
}

// CHECK: ![[L]] = distinct !{![[L]], ![[H:[0-9]+]]}
// CHECK: ![[H]] = !{!"llvm.loop.vectorize.enable", i1 false}
// CHECK: ![[M]] = distinct !{![[M]], ![[H2:[0-9]+]]}
// CHECK: ![[H2]] = !{!"llvm.loop.vectorize.enable", i1 false}
// CHECK-NOT: i1 true
