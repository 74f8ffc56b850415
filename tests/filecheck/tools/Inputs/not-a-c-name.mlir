func.func @"my.model"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
