// Empty dense constants of every element type compile (they need no global),
// and so does the empty constant fold-constants makes from a zero-size slice
// of a constant: -O0 and -O1 both run and match the reference.
// RUN: graph-run %s --entry consts --check -O0 | filecheck %s --check-prefix=EXEC
// RUN: graph-run %s --entry consts --check -O1 | filecheck %s --check-prefix=EXEC
// RUN: graph-run %s --entry folded --check -O0 | filecheck %s --check-prefix=EXEC
// RUN: graph-run %s --entry folded --check -O2 | filecheck %s --check-prefix=EXEC
// RUN: graph-opt %s -p fold-constants | filecheck %s --check-prefix=FOLD
// RUN: graph-opt %s -O3 -t llvm | filecheck %s --check-prefix=LLVM
// EXEC-NOT: Traceback
// EXEC: check: OK
// FOLD-LABEL: func.func @folded
// FOLD: graph.constant dense<> : tensor<3x0xf32>
// LLVM: define
// LLVM-NOT: error

func.func @consts(%x: tensor<2x0xf32>) -> (tensor<2x0xf32>, tensor<2x0xi32>, tensor<0xi64>, tensor<2x0xi1>, tensor<0x3xf64>) {
  %a = graph.constant dense<> : tensor<2x0xf32>
  %b = graph.constant dense<> : tensor<2x0xi32>
  %c = graph.constant dense<> : tensor<0xi64>
  %d = graph.constant dense<> : tensor<2x0xi1>
  %e = graph.constant dense<> : tensor<0x3xf64>
  %s = graph.add %x, %a : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x0xf32>
  %i = graph.add %b, %b : (tensor<2x0xi32>, tensor<2x0xi32>) -> tensor<2x0xi32>
  func.return %s, %i, %c, %d, %e : tensor<2x0xf32>, tensor<2x0xi32>, tensor<0xi64>, tensor<2x0xi1>, tensor<0x3xf64>
}

func.func @folded(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %c = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %s = graph.slice %c {starts = array<i64: 1>, ends = array<i64: 1>, axes = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3x0xf32>
  %y = graph.add %s, %x : (tensor<3x0xf32>, tensor<3x0xf32>) -> tensor<3x0xf32>
  func.return %y : tensor<3x0xf32>
}
