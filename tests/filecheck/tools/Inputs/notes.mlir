// A pass error with a note at a secondary location, checked with annotations.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{the value is produced here, on cpu0}}
  %p = graph.exp %a {placed_on = "cpu0"} : tensor<4xf32>
  %q = graph.exp %p {placed_on = "cpu0"} : tensor<4xf32>
  // expected-error @+1 {{plan-memory: graph.add on cpu1 reads a value on cpu0 without a copy}}
  %s = graph.add %p, %q {placed_on = "cpu1"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
