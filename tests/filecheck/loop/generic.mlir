// RUN: graph-opt %s --print-op-generic | filecheck %s

// CHECK-LABEL: "func.func"() <{sym_name = "g"
func.func @g(%m: memref<4xf32>, %ws: memref<64xi8>, %lb: index, %z: f32) {
  // CHECK: %[[R:.*]] = "loop.for"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) ({
  // CHECK-NEXT: ^{{.*}}(%[[I:.*]]: index, %[[ACC:.*]]: f32):
  %r = loop.for %i = %lb to %lb step %lb iter_args(%acc = %z) -> (f32) {
    // CHECK-NEXT: %[[X:.*]] = "loop.load"(%{{.*}}, %[[I]]) : (memref<4xf32>, index) -> f32
    %x = loop.load %m[%i] : memref<4xf32>
    // CHECK-NEXT: "loop.store"(%[[X]], %{{.*}}, %[[I]]) : (f32, memref<4xf32>, index) -> ()
    loop.store %x, %m[%i] : memref<4xf32>
    // CHECK-NEXT: "loop.yield"(%[[ACC]]) : (f32) -> ()
    loop.yield %acc : f32
  // CHECK-NEXT: }) : (index, index, index, f32) -> f32
  }
  // CHECK: "loop.view"(%{{.*}}) <{offset = 16 : i64}> : (memref<64xi8>) -> memref<2x2xf32>
  %v = loop.view %ws[16] : memref<64xi8> -> memref<2x2xf32>
  func.return
}
