// RUN: graph-opt -p lower-loop-to-llvm -t llvm %s | filecheck %s
// RUN: graph-opt -p 'lower-loop-to-llvm{max-inline-constant-bytes=4}' -t llvm %s | filecheck %s --check-prefix=HIDDEN

// Symbol names are quoted (@"main"); pointers are opaque, so an access is a
// getelementptr of the element type and a load, with no bitcast.

builtin.module {
  "memref.global"() <{sym_name = "w", sym_visibility = "private", type = memref<2xf32>, initial_value = dense<[3.0, 4.0]> : tensor<2xf32>, constant}> : () -> ()
  // CHECK: @"w" = internal constant [8 x i8] c"\00\00\40\40\00\00\80\40", align 64
  // HIDDEN-NOT: @"w" =

  // CHECK-LABEL: define internal void @"k_scale"
  // CHECK-SAME:    (ptr %[[A:[a-z0-9]*]], ptr %{{.*}}, ptr %{{.*}}) noinline
  // CHECK:         %[[I:.*]] = phi i64 [0, %{{.*}}], [%[[NEXT:.*]], %{{.*}}]
  // CHECK:         %[[P:.*]] = getelementptr inbounds float, ptr %[[A]], i64 %[[I]]
  // CHECK-NEXT:    load float, ptr %[[P]]
  // CHECK-NOT:     bitcast
  // CHECK:         store float %{{.*}}, ptr %{{.*}}
  // CHECK-NEXT:    %[[NEXT]] = add i64 %[[I]], 1
  func.func private @k_scale(%a: memref<2xf32>, %w: memref<2xf32>, %o: memref<2xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %x = memref.load %a[%i] : memref<2xf32>
      %y = memref.load %w[%i] : memref<2xf32>
      %p = arith.mulf %x, %y : f32
      memref.store %p, %o[%i] : memref<2xf32>
    }
    func.return
  }

  // CHECK-LABEL: define void @"main"(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}})
  // CHECK: call void @"k_scale"(ptr %{{.*}}, ptr @"w", ptr %{{.*}})
  // CHECK-NEXT: ret void
  // HIDDEN-LABEL: define void @"main"(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}}, ptr noalias %{{.*}})
  func.func @main(%x: memref<2xf32>, %y: memref<2xf32>, %ws: memref<0xi8>) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<2xf32>], outputs = ["y" : tensor<2xf32>], workspace = 0>} {
    %w = memref.get_global @w : memref<2xf32>
    func.call @k_scale(%x, %w, %y) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    func.return
  }
}
