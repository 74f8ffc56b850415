// RUN: graph-opt --split-input-file --print-diagnostics %s | filecheck %s

// Errors in the custom syntax of fused.group, reported at the offending token.

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:32
// CHECK: unknown fuse pattern 'fancy'
func.func @bad_pattern(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group "g" pattern(fancy) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    fused.yield %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:65
// CHECK: unknown fuse pattern 'fancy', expected one of elemwise, broadcast, injective, comm_reduce, out_ewise_fusable, opaque
func.func @bad_pattern_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fused.group"(%x) <{name = "g", pattern = #fused.pattern<fancy>}> ({
  ^bb0(%a: tensor<4xf32>):
    "fused.yield"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid-parse.mlir:[[# @LINE + 3]]:20
// CHECK: expected the group's name as a string
func.func @unnamed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = fused.group pattern(elemwise) (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    fused.yield %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
