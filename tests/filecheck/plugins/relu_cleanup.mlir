// RUN: graph-opt --load-plugin %plugins/relu_cleanup.py -p relu-cleanup,dce %s | filecheck %s
// RUN: graph-opt --load-plugin=%plugins/relu_cleanup.py -p relu-cleanup %s 2>&1 | filecheck %s --check-prefix=NOTB

// NOTB-NOT: Traceback

// CHECK-LABEL: func.func @relu_relu
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:   %[[R:.*]] = graph.relu %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:   func.return %[[R]] : tensor<8x16xf32>
func.func @relu_relu(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = graph.relu %x : tensor<8x16xf32>
  %b = graph.relu %a : tensor<8x16xf32>
  %c = graph.relu %b : tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NOT: graph.mul
// CHECK: func.return %[[X]] : tensor<8x16xf32>
func.func @mul_one(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %one = graph.constant splat 1.0 : tensor<16xf32>
  %c = graph.mul %one, %x : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}

// The product broadcasts x up, so dropping the multiply would change the type.
// CHECK-LABEL: func.func @mul_one_broadcasting
// CHECK: graph.mul
func.func @mul_one_broadcasting(%x: tensor<16xf32>) -> tensor<8x16xf32> {
  %one = graph.constant splat 1.0 : tensor<8x16xf32>
  %c = graph.mul %x, %one : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @mul_two
// CHECK: graph.mul
func.func @mul_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = graph.constant splat 2.0 : tensor<4xf32>
  %c = graph.mul %x, %two : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
