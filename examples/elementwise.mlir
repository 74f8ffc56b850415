// An 8-op elementwise/broadcast chain (bias add, scale, relu, sub, square,
// maximum, add, divide).  fuse-ops makes it ONE kernel: no intermediate goes
// through memory.  benchmarks/fusion.py runs it at 2^22 elements.
// Run it:   graph-run examples/elementwise.mlir --random-inputs --check
// Fuse it:  graph-opt -p 'fuse-ops{summary=true}' examples/elementwise.mlir
func.func @chain(%x: tensor<64x64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>, %d: tensor<64xf32>) -> tensor<64x64xf32> {
  %half = graph.constant splat 0.5 : tensor<64x64xf32>
  %zero = graph.constant splat 0.0 : tensor<64x64xf32>
  %one = graph.constant splat 1.0 : tensor<64x64xf32>
  %t0 = graph.add %x, %b : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %t1 = graph.mul %t0, %half : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t2 = graph.maximum %t1, %zero : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t3 = graph.sub %t2, %c : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %t4 = graph.mul %t3, %t3 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t5 = graph.maximum %t4, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t6 = graph.add %t5, %one : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t7 = graph.div %t6, %d : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  func.return %t7 : tensor<64x64xf32>
}
