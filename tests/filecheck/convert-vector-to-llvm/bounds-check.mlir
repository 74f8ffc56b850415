// RUN: graph-opt -p 'convert-vector-to-llvm{bounds-check=true}' %s | filecheck %s
// RUN: graph-opt -p convert-vector-to-llvm %s | filecheck %s --check-prefix=UNCHECKED

// A checked vector access: every index inside its dimension, and the whole
// vector inside the memref (its linear offset below 4 * 32 - 16 + 1 = 113;
// it may run on into the next row); outside, the access is one at element 0
// and the flag byte is set.
// CHECK-LABEL: func.func @access
// UNCHECKED-LABEL: func.func @access
// UNCHECKED-NOT: llvm.icmp
func.func @access(%a: memref<4x32xf32>, %i: index, %j: index) {
  // CHECK-DAG: %[[END:.*]] = llvm.mlir.constant(113) : i64
  // CHECK-DAG: %[[ROWS:.*]] = llvm.mlir.constant(4) : i64
  // CHECK-DAG: %[[COLS:.*]] = llvm.mlir.constant(32) : i64
  // CHECK: %[[OFF:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i64
  // CHECK-NEXT: %[[OKI:.*]] = llvm.icmp "ult" %{{.*}}, %[[ROWS]] : i64
  // CHECK-NEXT: %[[OKJ:.*]] = llvm.icmp "ult" %{{.*}}, %[[COLS]] : i64
  // CHECK-NEXT: %[[OK2:.*]] = llvm.and %[[OKI]], %[[OKJ]]
  // CHECK-NEXT: %[[FITS:.*]] = llvm.icmp "ult" %[[OFF]], %[[END]] : i64
  // CHECK-NEXT: %[[OK:.*]] = llvm.and %[[OK2]], %[[FITS]]
  // CHECK-NEXT: llvm.select %[[OK]], %[[OFF]], %{{.*}} : i1, i64
  // CHECK: llvm.mlir.addressof @graphopt_bounds_error
  // CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
  %v = vector.load %a[%i, %j] : memref<4x32xf32>, vector<16xf32>
  // CHECK: llvm.icmp "ult" %{{.*}}, %[[END]] : i64
  // A store out of bounds writes the scratch global of its 64 bytes, no
  // element of the memref.
  // CHECK: %[[SOK:.*]] = llvm.and
  // CHECK: %[[AT:.*]] = llvm.getelementptr
  // CHECK-NEXT: %[[SINK:.*]] = llvm.mlir.addressof @graphopt_bounds_sink64 : !llvm.ptr
  // CHECK-NEXT: %[[P:.*]] = llvm.select %[[SOK]], %[[AT]], %[[SINK]] : i1, !llvm.ptr
  // CHECK-NEXT: llvm.store %{{.*}}, %[[P]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
  vector.store %v, %a[%j, %i] : memref<4x32xf32>, vector<16xf32>
  func.return
}
// CHECK-DAG: llvm.mlir.global common @graphopt_bounds_error
// CHECK-DAG: llvm.mlir.global internal @graphopt_bounds_sink64() {{.*}} : !llvm.array<64 x i8>
