// RUN: %roundtrip
// RUN: %roundtrip-generic

// The loop level is upstream scf/memref/arith plus the driver ABI.
builtin.module {
  // CHECK-LABEL: func.func private @k_rowsum
  // CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4xf32>)
  func.func private @k_rowsum(%a: memref<4x8xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    // CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
    scf.for %i = %c0 to %c4 step %c1 {
      // CHECK-NEXT: %[[R:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %z) -> (f32) {
        // CHECK-NEXT: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[J]]] : memref<4x8xf32>
        %x = memref.load %a[%i, %j] : memref<4x8xf32>
        // CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
        %s = arith.addf %acc, %x : f32
        // CHECK-NEXT: scf.yield %[[S]] : f32
        scf.yield %s : f32
      }
      // CHECK: memref.store %[[R]], %[[OUT]][%[[I]]] : memref<4xf32>
      memref.store %r, %out[%i] : memref<4xf32>
    }
    func.return
  }

  // CHECK-LABEL: func.func @main
  // CHECK-SAME: (%[[IN:.*]]: memref<4x8xf32>, %[[O:.*]]: memref<4xf32>, %[[WS:.*]]: memref<256xi8>)
  // CHECK-SAME: attributes {loop.abi = #loop.abi<inputs = ["in" : tensor<4x8xf32>], outputs = ["" : tensor<4xf32>], workspace = 256>}
  func.func @main(%in: memref<4x8xf32>, %o: memref<4xf32>, %ws: memref<256xi8>) attributes {loop.abi = #loop.abi<inputs = ["in" : tensor<4x8xf32>], outputs = ["" : tensor<4xf32>], workspace = 256>} {
    %c128 = arith.constant 128 : index
    // CHECK: %[[V:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<256xi8> to memref<4x8xf32>
    %v = memref.view %ws[%c128][] : memref<256xi8> to memref<4x8xf32>
    // CHECK: func.call @k_rowsum(%[[V]], %[[O]])
    func.call @k_rowsum(%v, %o) : (memref<4x8xf32>, memref<4xf32>) -> ()
    func.return
  }
}
