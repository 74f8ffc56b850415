// RUN: %roundtrip
// RUN: %roundtrip-generic

builtin.module {
  // CHECK-LABEL: func.func private @k_rowsum
  // CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4xf32>)
  func.func private @k_rowsum(%a: memref<4x8xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    // CHECK: loop.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
    loop.for %i = %c0 to %c4 step %c1 {
      // CHECK-NEXT: %[[R:.*]] = loop.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
      %r = loop.for %j = %c0 to %c8 step %c1 iter_args(%acc = %z) -> (f32) {
        // CHECK-NEXT: %[[X:.*]] = loop.load %[[A]][%[[I]], %[[J]]] : memref<4x8xf32>
        %x = loop.load %a[%i, %j] : memref<4x8xf32>
        // CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
        %s = arith.addf %acc, %x : f32
        // CHECK-NEXT: loop.yield %[[S]] : f32
        loop.yield %s : f32
      }
      // CHECK: loop.store %[[R]], %[[OUT]][%[[I]]] : memref<4xf32>
      loop.store %r, %out[%i] : memref<4xf32>
    // CHECK-NEXT: } {unroll = 2 : i64}
    } {unroll = 2 : i64}
    func.return
  }

  // CHECK-LABEL: func.func @scalar_memref
  func.func @scalar_memref(%m: memref<f32>, %v: f32) {
    // CHECK: loop.store %{{.*}}, %{{.*}}[] : memref<f32>
    loop.store %v, %m[] : memref<f32>
    // CHECK: loop.load %{{.*}}[] : memref<f32>
    %x = loop.load %m[] : memref<f32>
    func.return
  }

  // CHECK-LABEL: func.func @main
  // CHECK-SAME: (%[[IN:.*]]: memref<4x8xf32>, %[[O:.*]]: memref<4xf32>, %[[WS:.*]]: memref<256xi8>)
  // CHECK-SAME: attributes {loop.abi = #loop.abi<inputs = ["in" : tensor<4x8xf32>], outputs = ["o" : tensor<4xf32>], workspace = 256>}
  func.func @main(%in: memref<4x8xf32>, %o: memref<4xf32>, %ws: memref<256xi8>) attributes {loop.abi = #loop.abi<inputs = ["in" : tensor<4x8xf32>], outputs = ["o" : tensor<4xf32>], workspace = 256>} {
    // CHECK: %[[V:.*]] = loop.view %[[WS]][128] : memref<256xi8> -> memref<4x8xf32>
    %v = loop.view %ws[128] : memref<256xi8> -> memref<4x8xf32>
    // CHECK: func.call @k_rowsum(%[[V]], %[[O]])
    func.call @k_rowsum(%v, %o) : (memref<4x8xf32>, memref<4xf32>) -> ()
    func.return
  }
}
