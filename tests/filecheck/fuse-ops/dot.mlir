// RUN: graph-opt -p fuse-ops -t dot %s | filecheck %s
// RUN: graph-opt -t dot %s | filecheck %s --check-prefix=PLAIN

// -t dot: one digraph per function in one font; every kernel is a cluster
// (a fused group, or a single op, which lowers to a kernel of its own),
// labelled like the kernel it lowers to; op boxes show the SSA name, the
// attributes that differ from the defaults and the constants they use; no
// constant node; edges labelled with tensor types; a legend with the
// kernel count.
// CHECK-LABEL: digraph "block"
// CHECK-NEXT:    graph [rankdir=TB, fontname="[[FONT:[A-Za-z]+]]"
// CHECK-NEXT:    node [{{.*}}fontname="[[FONT]]"
// CHECK-NEXT:    edge [fontname="[[FONT]]"
// CHECK:         [[X:arg[0-9]+]] [label="%x\n1x2x6x6xf32", shape=ellipse
// CHECK:         subgraph cluster_k0 {
// CHECK-NEXT:      label="k0 conv2d_add_relu\nout_ewise_fusable"; style="rounded,filled"; fillcolor="[[PURPLE:#[0-9a-f]+]]"
// CHECK-NEXT:      [[CONV:op[0-9]+]] [label="%c = graph.conv2d\nstrides 2,1  padding 1,1,1,1"];
// CHECK-NEXT:      [[ADD:op[0-9]+]] [label="%a = graph.add\nrhs: splat 0.5 : 2x1x1xf32"];
// CHECK-NEXT:      [[RELU:op[0-9]+]] [label="%r_1 = graph.relu"];
// CHECK-NEXT:    }
// CHECK-NEXT:    subgraph cluster_k1 {
// CHECK-NEXT:      label="k1 reduce_sum\ncomm_reduce"; style="rounded,filled"; fillcolor="[[PINK:#[0-9a-f]+]]"
// CHECK-NEXT:      [[SUM:op[0-9]+]] [label="%s = graph.reduce_sum\naxes 2,3"];
// CHECK-NEXT:    }
// CHECK-NEXT:    [[RET:ret[0-9]+]] [label="return", shape=ellipse
// CHECK-NOT:     shape=note
// CHECK-DAG:     [[X]] -> [[CONV]] [label="1x2x6x6xf32"];
// CHECK-DAG:     [[CONV]] -> [[ADD]] [label="1x2x3x6xf32"];
// CHECK-DAG:     [[RELU]] -> [[SUM]] [label="1x2x3x6xf32"];
// CHECK-DAG:     [[SUM]] -> [[RET]] [label="1x2xf32"];
// CHECK:         legend [shape=plaintext{{.*}}<B>@block</B>{{.*}}2 kernels (1 fused group, 1 single op){{.*}}BGCOLOR="[[PINK]]"{{.*}}comm_reduce{{.*}}BGCOLOR="[[PURPLE]]"{{.*}}out_ewise_fusable
// CHECK-NEXT:  }

// Before fuse-ops every op is a kernel, singletons included.
// PLAIN-LABEL: digraph "block"
// PLAIN:         subgraph cluster_k0 {
// PLAIN-NEXT:      label="k0 conv2d\nout_ewise_fusable"
// PLAIN:         subgraph cluster_k3 {
// PLAIN-NEXT:      label="k3 reduce_sum\ncomm_reduce"
// PLAIN:         4 kernels (0 fused groups, 4 single ops)
func.func @block(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2xf32> {
  %b = graph.constant splat 0.5 : tensor<2x1x1xf32>
  %c = graph.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x6xf32>
  %a = graph.add %c, %b : (tensor<1x2x3x6xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x6xf32>
  %r = graph.relu %a : tensor<1x2x3x6xf32>
  %s = graph.reduce_sum %r {axes = array<i64: 2, 3>} : (tensor<1x2x3x6xf32>) -> tensor<1x2xf32>
  func.return %s : tensor<1x2xf32>
}

// A constant that only the return uses is drawn as a node of its own.
// CHECK-LABEL: digraph "const_out"
// CHECK:         [[C:const[0-9]+]] [label="%0 = constant\ndense 2xf32", shape=note];
// CHECK:         [[C]] -> {{ret[0-9]+}} [label="2xf32"];
// CHECK:         0 kernels
func.func @const_out() -> tensor<2xf32> {
  %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
