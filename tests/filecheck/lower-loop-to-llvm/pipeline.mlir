// RUN: graph-opt -p lower-loop-to-llvm %s | filecheck %s

// The whole named pipeline: every op becomes llvm, no cast is left.
// CHECK-NOT: unrealized_conversion_cast

builtin.module {
  // CHECK-LABEL: llvm.func internal @k_rowsum
  // CHECK-SAME: (%[[A:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
  func.func private @k_rowsum(%a: memref<4x8xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    // CHECK-DAG: %[[C0:.*]] = llvm.mlir.constant(0) : i64
    // CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1) : i64
    // CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4) : i64
    // CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8) : i64
    // CHECK-DAG: %[[Z:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
    // CHECK: llvm.br ^[[H1:.*]](%[[C0]] : i64)
    // CHECK-NEXT: ^[[H1]](%[[I:.*]]: i64):
    // CHECK-NEXT: %[[CI:.*]] = llvm.icmp "slt" %[[I]], %[[C4]] : i64
    // CHECK-NEXT: llvm.cond_br %[[CI]], ^[[B1:.*]], ^[[E1:.*]]
    // CHECK-NEXT: ^[[B1]]:
    // CHECK-NEXT: llvm.br ^[[H2:.*]](%[[C0]], %[[Z]] : i64, f32)
    // CHECK-NEXT: ^[[H2]](%[[J:.*]]: i64, %[[ACC:.*]]: f32):
    // CHECK-NEXT: %[[CJ:.*]] = llvm.icmp "slt" %[[J]], %[[C8]] : i64
    // CHECK-NEXT: llvm.cond_br %[[CJ]], ^[[B2:.*]], ^[[E2:.*]]
    // CHECK-NEXT: ^[[B2]]:
    // CHECK: %[[M:.*]] = llvm.mul %[[I]], %{{.*}} overflow<nsw> : i64
    // CHECK-NEXT: %[[OFF:.*]] = llvm.add %[[M]], %[[J]] overflow<nsw> : i64
    // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %[[A]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // CHECK-NEXT: %[[X:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
    // CHECK-NEXT: %[[S:.*]] = llvm.fadd %[[ACC]], %[[X]] : f32
    // CHECK-NEXT: %[[JN:.*]] = llvm.add %[[J]], %[[C1]] : i64
    // CHECK-NEXT: llvm.br ^[[H2]](%[[JN]], %[[S]] : i64, f32)
    // CHECK-NEXT: ^[[E2]]:
    // CHECK-NEXT: %[[Q:.*]] = llvm.getelementptr inbounds %[[OUT]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // CHECK-NEXT: llvm.store %[[ACC]], %[[Q]] : f32, !llvm.ptr
    // CHECK-NEXT: %[[IN:.*]] = llvm.add %[[I]], %[[C1]] : i64
    // CHECK-NEXT: llvm.br ^[[H1]](%[[IN]] : i64)
    // CHECK-NEXT: ^[[E1]]:
    // CHECK-NEXT: llvm.return
    scf.for %i = %c0 to %c4 step %c1 {
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %z) -> (f32) {
        %x = memref.load %a[%i, %j] : memref<4x8xf32>
        %s = arith.addf %acc, %x : f32
        scf.yield %s : f32
      }
      memref.store %r, %out[%i] : memref<4xf32>
    }
    func.return
  }

  // CHECK-LABEL: llvm.func internal @k_misc
  func.func private @k_misc(%a: memref<4xf32>, %b: memref<4xi1>) {
    // CHECK: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %t = memref.alloca() : memref<4xf32>
      %x = memref.load %a[%i] : memref<4xf32>
      // CHECK: llvm.call @atanf(%{{.*}}) : (f32) -> f32
      %y = math.atan %x : f32
      // CHECK: llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%{{.*}}) : (f32) -> i32
      %k = arith.fptosi %y : f32 to i32
      %kf = arith.sitofp %k : i32 to f32
      memref.store %kf, %t[%i] : memref<4xf32>
      // CHECK: %[[CMP:.*]] = llvm.fcmp "olt" %{{.*}}, %{{.*}} : f32
      %c = arith.cmpf olt, %x, %y : f32
      // CHECK: %[[WIDE:.*]] = llvm.zext %[[CMP]] : i1 to i8
      // CHECK: llvm.store %[[WIDE]], %{{.*}} : i8, !llvm.ptr
      memref.store %c, %b[%i] : memref<4xi1>
    }
    func.return
  }

  // CHECK: llvm.mlir.global internal constant @small(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>)
  // CHECK-SAME: !llvm.array<2 x f32>
  "memref.global"() <{sym_name = "small", sym_visibility = "private", type = memref<2xf32>, initial_value = dense<[1.0, 2.0]> : tensor<2xf32>, constant}> : () -> ()

  // CHECK-LABEL: llvm.func @main
  // CHECK-SAME: (%[[IN:.*]]: !llvm.ptr, %[[O:.*]]: !llvm.ptr, %[[WS:.*]]: !llvm.ptr)
  // CHECK-SAME: attributes {loop.abi = #loop.abi<inputs = ["in" : tensor<4x8xf32>], outputs = ["o" : tensor<4xf32>], workspace = 256>}
  func.func @main(%in: memref<4x8xf32>, %o: memref<4xf32>, %ws: memref<256xi8>) attributes {loop.abi = #loop.abi<inputs = ["in" : tensor<4x8xf32>], outputs = ["o" : tensor<4xf32>], workspace = 256>} {
    // CHECK: %[[V:.*]] = llvm.getelementptr inbounds %[[WS]][128] : (!llvm.ptr) -> !llvm.ptr, i8
    %c128 = arith.constant 128 : index
    %v = memref.view %ws[%c128][] : memref<256xi8> to memref<4x8xf32>
    // CHECK: llvm.call @k_rowsum(%[[V]], %[[O]]) : (!llvm.ptr, !llvm.ptr) -> ()
    func.call @k_rowsum(%v, %o) : (memref<4x8xf32>, memref<4xf32>) -> ()
    // CHECK-NEXT: llvm.return
    func.return
  }
  // CHECK: llvm.func @atanf(f32) -> f32
}
