// Too large on purpose: 4 PB, more than any machine's memory; graph-run
// refuses it before it allocates anything (the README shows the error).
func.func @f(%x: tensor<100000x100000x100000xf32>) -> tensor<100000x100000x100000xf32> {
  %y = graph.relu %x : tensor<100000x100000x100000xf32>
  func.return %y : tensor<100000x100000x100000xf32>
}
