// A kernel placed on one device that reads (and could be planned in place
// over) a buffer of another device without a copy is refused.
// RUN: not graph-opt -p plan-memory %s 2>&1 | filecheck %s
// CHECK: {{^.*}}cross-device-error.mlir:[[# @LINE + 7]]:3: error: plan-memory: graph.add on cpu1 reads a value on cpu0 without a copy; run plan-devices to insert copies
// CHECK-NEXT: {{^.*}}cross-device-error.mlir:[[# @LINE + 4]]:3: note: the value is produced here, on cpu0
// CHECK-NOT: Traceback

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %p = graph.exp %a {placed_on = "cpu0"} : tensor<4xf32>
  %q = graph.exp %p {placed_on = "cpu0"} : tensor<4xf32>
  %s = graph.add %p, %q {placed_on = "cpu1"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
