// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// fused.group binds its inputs to block arguments, carries a name and a fuse
// pattern, and returns what fused.yield yields.

// CHECK-LABEL: func.func @one_group
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = fused.group "matmul_relu" pattern(out_ewise_fusable) (%[[A:.*]] = %[[X]] : tensor<8x16xf32>, %[[B:.*]] = %[[W]] : tensor<16x4xf32>) -> (tensor<8x4xf32>) {
// CHECK-NEXT:      %[[M:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:      %[[Y:.*]] = graph.relu %[[M]] : tensor<8x4xf32>
// CHECK-NEXT:      fused.yield %[[Y]] : tensor<8x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<8x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "one_group"
// GENERIC:       "fused.group"(%{{.*}}, %{{.*}}) <{name = "matmul_relu", pattern = #fused.pattern<out_ewise_fusable>}> ({
// GENERIC-NEXT:  ^{{.*}}(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16x4xf32>):
// GENERIC:         "fused.yield"(%{{.*}}) : (tensor<8x4xf32>) -> ()
// GENERIC-NEXT:  }) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
func.func @one_group(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %r = fused.group "matmul_relu" pattern(out_ewise_fusable) (%a = %x : tensor<8x16xf32>, %b = %w : tensor<16x4xf32>) -> (tensor<8x4xf32>) {
    %m = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %y = graph.relu %m : tensor<8x4xf32>
    fused.yield %y : tensor<8x4xf32>
  }
  func.return %r : tensor<8x4xf32>
}

// Several results, the same input bound twice, a discardable attribute.
// CHECK-LABEL: func.func @two_results
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = fused.group "exp_neg" pattern(elemwise) (%[[A:.*]] = %[[X]] : tensor<4xf32>, %[[B:.*]] = %[[X]] : tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[A]] : tensor<4xf32>
// CHECK-NEXT:      %[[N:.*]] = graph.neg %[[B]] : tensor<4xf32>
// CHECK-NEXT:      fused.yield %[[E]], %[[N]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    } {tag = 1 : i64}
// CHECK-NEXT:    func.return %[[R0]], %[[R1]] : tensor<4xf32>, tensor<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "two_results"
// GENERIC:       }) {tag = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
func.func @two_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = fused.group "exp_neg" pattern(elemwise) (%a = %x : tensor<4xf32>, %b = %x : tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %e = graph.exp %a : tensor<4xf32>
    %n = graph.neg %b : tensor<4xf32>
    fused.yield %e, %n : tensor<4xf32>, tensor<4xf32>
  } {tag = 1 : i64}
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// Every fuse pattern keyword; groups chained one after another.
// CHECK-LABEL: func.func @patterns
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[G0:.*]] = fused.group "g0" pattern(elemwise) (%{{.*}} = %[[X]] : tensor<4x8xf32>) -> (tensor<4x8xf32>)
// CHECK:         %[[G1:.*]] = fused.group "g1" pattern(broadcast) (%{{.*}} = %[[G0]] : tensor<4x8xf32>, %{{.*}} = %[[B]] : tensor<8xf32>) -> (tensor<4x8xf32>)
// CHECK:         %[[G2:.*]] = fused.group "g2" pattern(injective) (%{{.*}} = %[[G1]] : tensor<4x8xf32>) -> (tensor<8x4xf32>)
// CHECK:         %[[G3:.*]] = fused.group "g3" pattern(comm_reduce) (%{{.*}} = %[[G2]] : tensor<8x4xf32>) -> (tensor<8xf32>)
// CHECK:         %[[G4:.*]] = fused.group "g4" pattern(opaque) () -> (tensor<8xf32>)
// CHECK:           %[[C:.*]] = graph.constant splat 1.000000e+00 : tensor<8xf32>
// CHECK-NEXT:      fused.yield %[[C]] : tensor<8xf32>
// CHECK:         func.return %[[G3]], %[[G4]] : tensor<8xf32>, tensor<8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "patterns"
// GENERIC:       pattern = #fused.pattern<elemwise>
// GENERIC:       pattern = #fused.pattern<broadcast>
// GENERIC:       pattern = #fused.pattern<injective>
// GENERIC:       pattern = #fused.pattern<comm_reduce>
// GENERIC:       pattern = #fused.pattern<opaque>
func.func @patterns(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %g0 = fused.group "g0" pattern(elemwise) (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    %t = graph.tanh %a : tensor<4x8xf32>
    fused.yield %t : tensor<4x8xf32>
  }
  %g1 = fused.group "g1" pattern(broadcast) (%a = %g0 : tensor<4x8xf32>, %c = %b : tensor<8xf32>) -> (tensor<4x8xf32>) {
    %s = graph.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    fused.yield %s : tensor<4x8xf32>
  }
  %g2 = fused.group "g2" pattern(injective) (%a = %g1 : tensor<4x8xf32>) -> (tensor<8x4xf32>) {
    %t = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    fused.yield %t : tensor<8x4xf32>
  }
  %g3 = fused.group "g3" pattern(comm_reduce) (%a = %g2 : tensor<8x4xf32>) -> (tensor<8xf32>) {
    %r = graph.reduce_sum %a {axes = array<i64: -1>} : (tensor<8x4xf32>) -> tensor<8xf32>
    fused.yield %r : tensor<8xf32>
  }
  %g4 = fused.group "g4" pattern(opaque) () -> (tensor<8xf32>) {
    %c = graph.constant splat 1.0 : tensor<8xf32>
    fused.yield %c : tensor<8xf32>
  }
  func.return %g3, %g4 : tensor<8xf32>, tensor<8xf32>
}

// A group with no inputs and no results.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT:    fused.group "noop" pattern(opaque) () -> () {
// CHECK-NEXT:      fused.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "empty"
// GENERIC:       "fused.yield"() : () -> ()
func.func @empty() {
  fused.group "noop" pattern(opaque) () -> () {
    fused.yield
  }
  func.return
}
