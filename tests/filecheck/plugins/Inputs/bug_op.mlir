func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  %b = bug.op %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
