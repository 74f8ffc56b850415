// RUN: graph-opt -p fuse-ops %s | filecheck %s

// An intermediate that is also returned is external: it may end a group but
// never be fused away, so fusion stops there.
// CHECK-LABEL: func.func @returned_intermediate
// CHECK-NEXT:    %[[E:.*]] = fused.group "neg_exp" pattern(elemwise)
// CHECK:         %[[R:.*]] = fused.group "sqrt_add" pattern(elemwise) (%{{.*}} = %[[E]] : tensor<8xf32>
// CHECK:         func.return %[[R]], %[[E]]
func.func @returned_intermediate(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = graph.neg %x : tensor<8xf32>
  %e = graph.exp %n : tensor<8xf32>
  %s = graph.sqrt %e : tensor<8xf32>
  %r = graph.add %s, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %r, %e : tensor<8xf32>, tensor<8xf32>
}

// An intermediate read by two consumers that never re-join (here a matmul
// and an elementwise chain ending in another output) has no post-dominator:
// it is materialised, and each consumer starts its own group.
// CHECK-LABEL: func.func @two_consumers
// CHECK-NEXT:    %[[T:.*]] = graph.tanh
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[T]], %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = fused.group "relu_neg" pattern(elemwise) (%{{.*}} = %[[T]] : tensor<4x4xf32>)
// CHECK:         func.return %[[M]], %[[R]]
func.func @two_consumers(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %t = graph.tanh %x : tensor<4x4xf32>
  %m = graph.matmul %t, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = graph.relu %t : tensor<4x4xf32>
  %n = graph.neg %r : tensor<4x4xf32>
  func.return %m, %n : tensor<4x4xf32>, tensor<4x4xf32>
}

// Two graph outputs sharing a producer: the producer is read by two
// returned values, so it has no post-dominator and stays its own kernel;
// each output's chain is a group of its own.
// CHECK-LABEL: func.func @shared_producer
// CHECK-NEXT:    %[[P:.*]] = graph.add
// CHECK-NEXT:    %[[A:.*]] = fused.group "exp_neg" pattern(elemwise) (%{{.*}} = %[[P]] : tensor<4x8xf32>)
// CHECK:         %[[B:.*]] = fused.group "tanh_relu" pattern(elemwise) (%{{.*}} = %[[P]] : tensor<4x8xf32>)
// CHECK:         func.return %[[A]], %[[B]]
func.func @shared_producer(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %e = graph.exp %p : tensor<4x8xf32>
  %a = graph.neg %e : tensor<4x8xf32>
  %t = graph.tanh %p : tensor<4x8xf32>
  %r = graph.relu %t : tensor<4x8xf32>
  func.return %a, %r : tensor<4x8xf32>, tensor<4x8xf32>
}

// The same value returned twice, and an output that is also read further.
// CHECK-LABEL: func.func @output_read_further
// CHECK-NEXT:    %[[E:.*]] = fused.group "relu_exp" pattern(elemwise)
// CHECK:         %[[N:.*]] = graph.neg %[[E]]
// CHECK-NEXT:    func.return %[[E]], %[[N]], %[[E]]
func.func @output_read_further(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r = graph.relu %x : tensor<8xf32>
  %e = graph.exp %r : tensor<8xf32>
  %n = graph.neg %e : tensor<8xf32>
  func.return %e, %n, %e : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
