func.func @f(%x: tensor<1xf32>) -> tensor<f32> {
  %y = graph.broadcast_to %x : (tensor<1xf32>) -> tensor<100000x100000x100000xf32>
  %s = graph.reduce_sum %y {axes = array<i64: 0, 1, 2>} : (tensor<100000x100000x100000xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
