func.func @f(%x: tensor<1xf32>) -> tensor<100000x100000x100000xf32> {
  %y = graph.broadcast_to %x : (tensor<1xf32>) -> tensor<100000x100000x100000xf32>
  func.return %y : tensor<100000x100000x100000xf32>
}
