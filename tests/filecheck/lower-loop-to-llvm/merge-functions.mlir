// RUN: graph-opt -p merge-functions %s | filecheck %s

// Internal functions equal up to integer constants become one function that
// takes the differing constants as parameters (a stride used twice is one
// parameter), each member a thunk calling it with its own.  Functions that
// differ in structure, in a float constant, an alloca size or a divisor,
// functions with a loop marked for LLVM's unrolling and exported functions
// are left as they are.

// CHECK-LABEL: llvm.func internal @k_rows8_merged
// CHECK-SAME:    (%[[A:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[N:.*]]: i64, %[[OFF:.*]]: i32)
// CHECK:         llvm.alloca %{{.*}} x f32
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[N]] : i64
// CHECK:         llvm.mul %{{.*}}, %[[N]] overflow<nsw> : i64
// CHECK:         llvm.getelementptr inbounds %{{.*}}[%[[OFF]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK:         llvm.return

// CHECK-LABEL: llvm.func internal @k_rows8
// CHECK-SAME:    (%[[A8:.*]]: !llvm.ptr, %[[O8:.*]]: !llvm.ptr)
// CHECK-DAG:     %[[N8:.*]] = llvm.mlir.constant(8) : i64
// CHECK-DAG:     %[[OFF8:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         llvm.call @k_rows8_merged(%[[A8]], %[[O8]], %[[N8]], %[[OFF8]])
// CHECK-NEXT:    llvm.return

// CHECK-LABEL: llvm.func internal @k_rows16
// CHECK-SAME:    (%[[A16:.*]]: !llvm.ptr, %[[O16:.*]]: !llvm.ptr)
// CHECK-DAG:     %[[N16:.*]] = llvm.mlir.constant(16) : i64
// CHECK-DAG:     %[[OFF16:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK:         llvm.call @k_rows8_merged(%[[A16]], %[[O16]], %[[N16]], %[[OFF16]])
// CHECK-NEXT:    llvm.return

// CHECK-NOT:   _merged
// CHECK-LABEL: llvm.func internal @k_mul8
// CHECK-NOT:     llvm.call
// CHECK:         llvm.fmul
// CHECK-LABEL: llvm.func internal @k_one
// CHECK-NOT:     llvm.call
// CHECK:         llvm.mlir.constant(1.000000e+00 : f32)
// CHECK-LABEL: llvm.func internal @k_alloca8
// CHECK-NOT:     llvm.call
// CHECK:         llvm.mlir.constant(8) : i64
// CHECK-LABEL: llvm.func internal @k_div2
// CHECK-NOT:     llvm.call
// CHECK:         llvm.udiv
// CHECK-LABEL: llvm.func internal @k_unroll8
// CHECK-NOT:     llvm.call
// CHECK-LABEL: llvm.func internal @k_unroll16
// CHECK-NOT:     llvm.call
// CHECK-LABEL: llvm.func @main8
// CHECK-NOT:     llvm.call
// CHECK-LABEL: llvm.func @main16
// CHECK-NOT:     llvm.call
// CHECK:         llvm.return
// CHECK-NEXT:  }
// CHECK-NEXT: }

builtin.module {
  llvm.func internal @k_rows8(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_rows16(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(16) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[8] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_mul8(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fmul %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_one(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(1.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_alloca8(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(8) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_div2(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(2) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_unroll8(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32) {llvm.loop_hints = ["llvm-unroll"]}
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func internal @k_unroll16(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(16) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32) {llvm.loop_hints = ["llvm-unroll"]}
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func @main8(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(8) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
  llvm.func @main16(%a: !llvm.ptr, %out: !llvm.ptr) {
    %z = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %n = llvm.mlir.constant(16) : i64
    %rows = llvm.mlir.constant(4) : i64
    %c1 = llvm.mlir.constant(1) : i64
    %c0 = llvm.mlir.constant(0) : i64
    %size = llvm.mlir.constant(4) : i64
    %div = llvm.mlir.constant(1) : i64
    %buf = llvm.alloca %size x f32 : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %0 = llvm.icmp "slt" %i, %rows : i64
    llvm.cond_br %0, ^bb2, ^bb6
  ^bb2:
    llvm.br ^bb3(%c0, %z : i64, f32)
  ^bb3(%j: i64, %acc: f32):
    %1 = llvm.icmp "slt" %j, %n : i64
    llvm.cond_br %1, ^bb4, ^bb5
  ^bb4:
    %2 = llvm.mul %i, %n overflow<nsw> : i64
    %3 = llvm.add %2, %j overflow<nsw> : i64
    %q = llvm.udiv %3, %div : i64
    %4 = llvm.getelementptr inbounds %a[%q] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %4 : !llvm.ptr -> f32
    %y = llvm.fadd %acc, %x : f32
    %5 = llvm.add %j, %c1 : i64
    llvm.br ^bb3(%5, %y : i64, f32)
  ^bb5:
    %6 = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %7 = llvm.getelementptr inbounds %6[4] : (!llvm.ptr) -> !llvm.ptr, f32
    llvm.store %acc, %7 : f32, !llvm.ptr
    %8 = llvm.getelementptr inbounds %buf[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %acc, %8 : f32, !llvm.ptr
    %9 = llvm.add %i, %c1 : i64
    llvm.br ^bb1(%9 : i64)
  ^bb6:
    llvm.return
  }
}
