// A huge splat is legitimate IR: it verifies and prints without being
// expanded.  A type whose byte size overflows every array is refused where it
// is written; values that each fit but are alive at once in a workspace
// larger than int64 offsets can address are one plan-memory diagnostic, not
// an internal error.
// RUN: graph-opt %s | filecheck %s --check-prefix=SPLAT
// RUN: not graph-opt %s -p plan-memory 2>&1 | filecheck %s
// SPLAT: graph.constant splat 1.000000e+00 : tensor<100000x100000xf32>
// CHECK-NOT: internal error
// CHECK: overflow.mlir:[[# @LINE + 6]]:1: error: plan-memory: the workspace of @f needs 9223372036854775808 bytes, more than any array can hold (at most 9223372036854775807 bytes)

func.func @huge() -> tensor<100000x100000xf32> {
  %c = graph.constant dense<1.0> : tensor<100000x100000xf32>
  func.return %c : tensor<100000x100000xf32>
}
func.func @f(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %a = graph.exp %x : tensor<1152921504606846976xf32>
  %b = graph.exp %a : tensor<1152921504606846976xf32>
  %c = graph.add %a, %b : (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32>
  func.return %c : tensor<1152921504606846976xf32>
}
