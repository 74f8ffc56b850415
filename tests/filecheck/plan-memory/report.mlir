// plan-memory{report=true} prints the plan's numbers to stderr.
// RUN: graph-opt -p 'plan-memory{report=true}' %s -o /dev/null 2>&1 | filecheck %s
// RUN: graph-opt -p 'plan-memory{report=true strategy=nnvm inplace=false}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=NNVM
// RUN: graph-opt -p 'plan-memory{report=true hill-climb=50}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=CLIMB

// CHECK:      plan-memory @chain: strategy greedy ({{.*}}), in-place on
// CHECK-NEXT:   workspace:        1024 bytes
// CHECK-NEXT:   lower bound:      1024 bytes (without in-place: 2048 bytes)
// CHECK-NEXT:   naive:            3072 bytes
// CHECK-NEXT:   nnvm:             1024 bytes
// CHECK-NEXT:   overhead:         0.0% above the lower bound
// CHECK-NEXT:   naive/workspace:  3.00x
// CHECK-NEXT:   planning time:    {{[0-9]+\.[0-9]+}} ms

// NNVM:      plan-memory @chain: strategy nnvm, in-place off
// NNVM-NEXT:   workspace:        2048 bytes
// NNVM-NEXT:   lower bound:      1024 bytes (without in-place: 2048 bytes)
// NNVM-NEXT:   naive:            3072 bytes
// NNVM-NEXT:   nnvm:             2048 bytes
// NNVM-NEXT:   overhead:         0.0% above the lower bound

// CLIMB: workspace: {{ *}}1024 bytes

// Bare elementwise ops: each one may write over its input (NNVM's in-place).
func.func @chain(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = graph.exp %x : tensor<16x16xf32>
  %b = graph.relu %a : tensor<16x16xf32>
  %c = graph.tanh %b : tensor<16x16xf32>
  %d = graph.neg %c : tensor<16x16xf32>
  func.return %d : tensor<16x16xf32>
}
