// The residual add as a fused epilogue: the last group may write its output
// over %a, the residual, because it reads %a only at the output index and
// for the last time.  NNVM's rules do not cover a fused kernel.
// RUN: graph-opt -p 'plan-memory{check=true}' %s | filecheck %s
// RUN: graph-opt -p 'plan-memory{inplace=false check=true}' %s | filecheck %s --check-prefix=NOINPLACE
// RUN: graph-opt -p 'plan-memory{strategy=naive check=true}' %s | filecheck %s --check-prefix=NAIVE
// RUN: graph-opt -p 'plan-memory{strategy=nnvm check=true}' %s | filecheck %s --check-prefix=NNVM
// RUN: graph-opt -p 'plan-memory,lower-graph-to-loop' %s | filecheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func @residual(
// CHECK-SAME:    memory.workspace = 2048 : i64
// CHECK:       %[[A:.*]] = fused.group "mm_relu"
// CHECK:       } {memory.offsets = array<i64: 0>}
// CHECK:       %[[B:.*]] = fused.group "mm_relu"
// CHECK:       } {memory.offsets = array<i64: 1024>}
// CHECK:       fused.group "mm_add_relu"
// CHECK:       } {memory.offsets = array<i64: 0>}
// CHECK:       graph.matmul {{.*}} {memory.offsets = array<i64: -1>}

// NOINPLACE-LABEL: func.func @residual(
// NOINPLACE-SAME:    memory.workspace = 3072 : i64

// NAIVE-LABEL: func.func @residual(
// NAIVE-SAME:    memory.workspace = 3072 : i64
// NAIVE:       } {memory.offsets = array<i64: 0>}
// NAIVE:       } {memory.offsets = array<i64: 1024>}
// NAIVE:       } {memory.offsets = array<i64: 2048>}

// NNVM-LABEL: func.func @residual(
// NNVM-SAME:    memory.workspace = 3072 : i64

// The driver takes its views where the plan says; the in-place output reuses offset 0.
// LOWER-LABEL: func.func @residual(
// LOWER-SAME:    workspace = 2048
// LOWER:       %[[A:.*]] = arith.constant 0 : index
// LOWER-NEXT:  memref.view %{{.*}}[%[[A]]][] : memref<2048xi8> to memref<16x16xf32>
// LOWER:       %[[B:.*]] = arith.constant 1024 : index
// LOWER-NEXT:  memref.view %{{.*}}[%[[B]]][] : memref<2048xi8> to memref<16x16xf32>
// LOWER:       %[[C:.*]] = arith.constant 0 : index
// LOWER-NEXT:  memref.view %{{.*}}[%[[C]]][] : memref<2048xi8> to memref<16x16xf32>
func.func @residual(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = fused.group "mm_relu" pattern(out_ewise_fusable) (%p = %x : tensor<16x16xf32>, %q = %w : tensor<16x16xf32>) -> (tensor<16x16xf32>) {
    %0 = graph.matmul %p, %q : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = graph.relu %0 : tensor<16x16xf32>
    fused.yield %1 : tensor<16x16xf32>
  }
  %b = fused.group "mm_relu" pattern(out_ewise_fusable) (%p = %a : tensor<16x16xf32>, %q = %w : tensor<16x16xf32>) -> (tensor<16x16xf32>) {
    %0 = graph.matmul %p, %q : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = graph.relu %0 : tensor<16x16xf32>
    fused.yield %1 : tensor<16x16xf32>
  }
  %c = fused.group "mm_add_relu" pattern(out_ewise_fusable) (%p = %b : tensor<16x16xf32>, %q = %w : tensor<16x16xf32>, %r = %a : tensor<16x16xf32>) -> (tensor<16x16xf32>) {
    %0 = graph.matmul %p, %q : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = graph.add %0, %r : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %2 = graph.relu %1 : tensor<16x16xf32>
    fused.yield %2 : tensor<16x16xf32>
  }
  %d = graph.matmul %c, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  func.return %d : tensor<16x16xf32>
}

// The matmul group reads %a at other indices: %a may not be overwritten, so
// the output gets its own region.
// CHECK-LABEL: func.func @not_elementwise(
// CHECK-SAME:    memory.workspace = 2048 : i64
// CHECK:       graph.relu {{.*}} {memory.offsets = array<i64: 0>}
// CHECK:       } {memory.offsets = array<i64: 1024>}
// CHECK:       graph.exp {{.*}} {memory.offsets = array<i64: -1>}
func.func @not_elementwise(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = graph.relu %x : tensor<16x16xf32>
  %b = fused.group "mm_add" pattern(out_ewise_fusable) (%p = %a : tensor<16x16xf32>, %q = %w : tensor<16x16xf32>) -> (tensor<16x16xf32>) {
    %0 = graph.matmul %p, %q : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = graph.add %0, %p : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    fused.yield %1 : tensor<16x16xf32>
  }
  %c = graph.exp %b : tensor<16x16xf32>
  func.return %c : tensor<16x16xf32>
}
