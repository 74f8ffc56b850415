// Functions with no results, empty tensors and i1 inputs compile and match
// the reference; a dynamic shape is one clear error.
// RUN: graph-run %s --entry nothing --check | filecheck %s --check-prefix=NOTHING
// NOTHING: check: OK (0 outputs match the reference)
// RUN: graph-run %s --entry empty --check | filecheck %s --check-prefix=EMPTY
// EMPTY: output 0: (0, 4) float32 (empty)
// EMPTY-NEXT: check: OK
// RUN: graph-run %s --entry select --check | filecheck %s --check-prefix=SELECT
// SELECT: check: OK (1 outputs match the reference)
// RUN: not graph-run %s --entry dynamic 2>&1 | filecheck %s --check-prefix=DYN
// RUN: not graph-opt -p lower-graph-to-loop %s 2>&1 | filecheck %s --check-prefix=DYN
// DYN: error: {{.*}}@dynamic: argument 0 (%x) has a dynamic shape (tensor<?x4xf32>); only static shapes can be compiled
// DYN-NOT: Traceback

func.func @nothing() {
  func.return
}

func.func @empty(%x: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %y = graph.exp %x : tensor<0x4xf32>
  func.return %y : tensor<0x4xf32>
}

func.func @select(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %x : tensor<?x4xf32>
}
