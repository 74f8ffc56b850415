// A comment line that must end at its line break.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>  // a trailing comment
  %z = graph.relu %y : tensor<4xf32>
  func.return %z : tensor<4xf32>
}
