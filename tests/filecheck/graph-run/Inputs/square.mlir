func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = toy.square %x : tensor<3xf32>
  func.return %s : tensor<3xf32>
}
