// A huge splat is legitimate IR: it verifies and prints without being
// expanded.  plan-memory on tensors whose byte size overflows int64 is one
// diagnostic at the producer, not an internal error.
// RUN: graph-opt %s | filecheck %s --check-prefix=SPLAT
// RUN: not graph-opt %s -p plan-memory 2>&1 | filecheck %s
// SPLAT: graph.constant splat 1.000000e+00 : tensor<100000000000x100000000000xf32>
// CHECK-NOT: internal error
// CHECK: overflow.mlir:[[# @LINE + 7]]:3: error: plan-memory: @f: %a (graph.exp, tensor<4611686018427387904x4xf32>) needs 73786976294838206464 bytes, more than int64 workspace offsets can address

func.func @huge() -> tensor<100000000000x100000000000xf32> {
  %c = graph.constant dense<1.0> : tensor<100000000000x100000000000xf32>
  func.return %c : tensor<100000000000x100000000000xf32>
}
func.func @f(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %a = graph.exp %x : tensor<4611686018427387904x4xf32>
  %b = graph.exp %a : tensor<4611686018427387904x4xf32>
  func.return %b : tensor<4611686018427387904x4xf32>
}
