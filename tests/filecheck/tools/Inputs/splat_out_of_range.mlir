func.func @c() -> tensor<3xi32> {
  %c = graph.constant splat 5000000000 : tensor<3xi32>
  func.return %c : tensor<3xi32>
}
