// RUN: graph-opt -p convert-memref-to-llvm %s | filecheck %s
// RUN: graph-opt -p 'convert-memref-to-llvm{bounds-check=true}' %s | filecheck %s --check-prefix=CHECKED

// CHECK-LABEL: llvm.mlir.global internal constant @w(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>)
"memref.global"() <{sym_name = "w", sym_visibility = "private", type = memref<2xf32>, initial_value = dense<[1.0, 2.0]> : tensor<2xf32>, constant}> : () -> ()

// CHECK-LABEL: func.func @access
func.func @access(%a: memref<4x8xf32>, %b: memref<3xi1>, %ws: memref<64xi8>, %i: index, %j: index) {
  // The alloca is hoisted to the entry block.
  // CHECK: %[[N:.*]] = llvm.mlir.constant(6) : i64
  // CHECK-NEXT: llvm.alloca %[[N]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
  // CHECK: %[[I:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
  // CHECK-NEXT: %[[M:.*]] = llvm.mul %[[I]], %{{.*}} overflow<nsw> : i64
  // CHECK-NEXT: %[[J:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
  // CHECK-NEXT: %[[OFF:.*]] = llvm.add %[[M]], %[[J]] overflow<nsw> : i64
  // CHECK-NEXT: %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<4x8xf32> to !llvm.ptr
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %[[A]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.load %[[P]] : !llvm.ptr -> f32
  // CHECKED: llvm.icmp "ult"
  // CHECKED: llvm.select
  // CHECKED: llvm.mlir.addressof @graphopt_bounds_error
  %x = memref.load %a[%i, %j] : memref<4x8xf32>
  // Constant indices are a constant offset from the address of the dynamic
  // part, which the accesses of one block share.
  // CHECK: %[[R:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: %[[R3:.*]] = llvm.getelementptr inbounds %[[R]][3] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.store %{{.*}}, %[[R3]] : f32, !llvm.ptr
  // CHECK-NEXT: %[[R5:.*]] = llvm.getelementptr inbounds %[[R]][5] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.store %{{.*}}, %[[R5]] : f32, !llvm.ptr
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  memref.store %x, %a[%i, %c3] : memref<4x8xf32>
  memref.store %x, %a[%i, %c5] : memref<4x8xf32>
  // An i1 element is a byte.
  // CHECK: %[[BYTE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i8
  // CHECK-NEXT: llvm.trunc %[[BYTE]] : i8 to i1
  %c0 = arith.constant 0 : index
  %f = memref.load %b[%c0] : memref<3xi1>
  %t = memref.alloca() : memref<6xf32>
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
  memref.store %x, %t[%c0] : memref<6xf32>
  // CHECK: llvm.getelementptr inbounds %{{.*}}[32] : (!llvm.ptr) -> !llvm.ptr, i8
  %c32 = arith.constant 32 : index
  %v = memref.view %ws[%c32][] : memref<64xi8> to memref<2xf32>
  // CHECK: llvm.mlir.addressof @w : !llvm.ptr
  %g = memref.get_global @w : memref<2xf32>
  // CHECK: llvm.call_intrinsic "llvm.memcpy.p0.p0.i64"
  "memref.copy"(%g, %v) : (memref<2xf32>, memref<2xf32>) -> ()
  func.return
}

// loop.prefetch: llvm.prefetch (read or write, the locality, the data cache) of the
// element's address, checked as a load's with bounds-check=true.
// CHECK-LABEL: func.func @prefetch
// CHECKED-LABEL: func.func @prefetch
func.func @prefetch(%w: memref<4x32xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  // CHECK-DAG: %[[READ:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-DAG: %[[LOC:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-DAG: %[[DATA:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[16] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.prefetch.p0"(%[[P]], %[[READ]], %[[LOC]], %[[DATA]]) : (!llvm.ptr, i32, i32, i32) -> ()
  // CHECKED: llvm.icmp "ult"
  // CHECKED: llvm.select
  // CHECKED: llvm.call_intrinsic "llvm.prefetch.p0"
  loop.prefetch %w[%i, %c16], locality 2 : memref<4x32xf32>
  func.return
}

// A write prefetch: llvm.prefetch's rw operand is 1.
// CHECK-LABEL: func.func @prefetch_write
func.func @prefetch_write(%w: memref<4x32xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  // CHECK-DAG: %[[WRITE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-DAG: %[[LOC:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[16] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.prefetch.p0"(%[[P]], %[[WRITE]], %[[LOC]], %[[WRITE]]) : (!llvm.ptr, i32, i32, i32) -> ()
  loop.prefetch %w[%i, %c16], write, locality 3 : memref<4x32xf32>
  func.return
}
// CHECKED: llvm.mlir.global common @graphopt_bounds_error
