// Bad options are reported without a traceback.
// RUN: not graph-opt -p 'plan-memory{strategy=best}' %s 2>&1 | filecheck %s
// RUN: not graph-opt -p 'plan-memory{hill-climb=-1}' %s 2>&1 | filecheck %s --check-prefix=CLIMB

// CHECK: plan-memory: unknown strategy 'best'; expected one of naive, nnvm, greedy
// CHECK-NOT: Traceback
// CLIMB: plan-memory: hill-climb must be >= 0, got -1

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
