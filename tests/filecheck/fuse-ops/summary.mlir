// RUN: graph-opt -p 'fuse-ops{summary=true}' %s -o /dev/null 2>&1 | filecheck %s
// RUN: graph-opt -p fuse-ops --pass-statistics %s -o /dev/null 2>&1 | filecheck %s --check-prefix=STATS

// The summary: groups, kernels before -> after, and the intermediate bytes
// no longer written and read (2 x the sizes of the fused intermediates).
// @mlp: matmul+add+relu saves 2 x (4x32 + 4x32) f32 = 2 x 1024 bytes,
// matmul+add 2 x 4x10 f32 = 2 x 160; softmax stays alone.
// CHECK:      fuse-ops summary @mlp: 2 groups, kernels 6 -> 3, intermediate bytes saved 2368 (2 x 1184)
// CHECK-NEXT:   group matmul_add_relu pattern(out_ewise_fusable): 3 ops, 3 inputs, 2 x 1024 bytes
// CHECK-NEXT:   group matmul_add pattern(out_ewise_fusable): 2 ops, 3 inputs, 2 x 160 bytes
// CHECK:      fuse-ops summary @nothing: 0 groups, kernels 2 -> 2, intermediate bytes saved 0 (2 x 0)
// STATS: fuse-ops {{.*}} groups=2 ops-fused=5
func.func @mlp(%x: tensor<4x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x10xf32>, %b2: tensor<10xf32>) -> tensor<4x10xf32> {
  %h0 = graph.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %h1 = graph.add %h0, %b1 : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %h = graph.relu %h1 : tensor<4x32xf32>
  %l0 = graph.matmul %h, %w2 : (tensor<4x32xf32>, tensor<32x10xf32>) -> tensor<4x10xf32>
  %l = graph.add %l0, %b2 : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %p = graph.softmax %l {axis = -1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  func.return %p : tensor<4x10xf32>
}

func.func @nothing(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %m = graph.matmul %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %s = graph.softmax %m {axis = -1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  func.return %s : tensor<4x16xf32>
}
