// RUN: graph-opt -p fuse-ops -t dot %s | filecheck %s
// RUN: graph-opt -t dot %s | filecheck %s --check-prefix=PLAIN

// -t dot: one digraph per function, one cluster per fused group labelled
// with its name and pattern, edges labelled with tensor types.
// CHECK-LABEL: digraph "block"
// CHECK:         [[X:arg[0-9]+]] [label="%x : 1x2x6x6xf32", shape=ellipse];
// CHECK:         subgraph cluster_0 {
// CHECK-NEXT:      label="conv2d_add_relu\npattern(out_ewise_fusable)";
// CHECK-NEXT:      [[CONV:op[0-9]+]] [label="graph.conv2d"];
// CHECK-NEXT:      [[ADD:op[0-9]+]] [label="graph.add"];
// CHECK-NEXT:      [[RELU:op[0-9]+]] [label="graph.relu"];
// CHECK-NEXT:    }
// CHECK-NEXT:    [[SUM:op[0-9]+]] [label="graph.reduce_sum"];
// CHECK-NEXT:    [[RET:ret[0-9]+]] [label="return", shape=ellipse];
// CHECK-DAG:     [[X]] -> [[CONV]] [label="1x2x6x6xf32"];
// CHECK-DAG:     [[CONV]] -> [[ADD]] [label="1x2x4x4xf32"];
// CHECK-DAG:     [[RELU]] -> [[SUM]] [label="1x2x4x4xf32"];
// CHECK-DAG:     [[SUM]] -> [[RET]] [label="1x2xf32"];
// CHECK:       }
// PLAIN-LABEL: digraph "block"
// PLAIN-NOT:     subgraph
// PLAIN:         [label="graph.conv2d"]
func.func @block(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2xf32> {
  %b = graph.constant splat 0.5 : tensor<2x1x1xf32>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %a = graph.add %c, %b : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = graph.relu %a : tensor<1x2x4x4xf32>
  %s = graph.reduce_sum %r {axes = array<i64: 2, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  func.return %s : tensor<1x2xf32>
}
