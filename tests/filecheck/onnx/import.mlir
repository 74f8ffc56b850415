// graph-import: names become SSA name hints, node names become locations,
// initializers become constants; a constant Gemm weight is transposed at import.
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/make_model.py conv %t/conv.onnx
// RUN: graph-import %t/conv.onnx --print-debuginfo | filecheck %s
// RUN: graph-import %t/conv.onnx -o %t/conv.mlir && graph-opt %t/conv.mlir | filecheck %s --check-prefix=ROUND
// RUN: graph-opt %t/conv.onnx -O2 | filecheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @main(%input: tensor<1x3x9x9xf32>
// CHECK: %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<4x3x3x3xf32> loc("conv1")
// CHECK: %[[C:.*]] = graph.conv2d %input, %[[W]] {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>{{.*}} loc("conv1")
// CHECK: %[[B:.*]] = graph.constant splat 5.000000e-01 : tensor<4x1x1xf32> loc("conv1")
// CHECK: graph.add %[[C]], %[[B]]
// CHECK: graph.relu {{.*}} loc("relu1")
// CHECK: graph.max_pool2d {{.*}}ceil_mode{{.*}} loc("pool1")
// CHECK: graph.reshape {{.*}} -> tensor<1x36xf32> loc("flatten")
// CHECK-NOT: graph.transpose
// CHECK: %[[FC:.*]] = graph.constant dense<{{.*}}> : tensor<36x10xf32> loc("fc")
// CHECK: graph.matmul %{{.*}}, %[[FC]] {{.*}} -> tensor<1x10xf32> loc("fc")

// ROUND-LABEL: func.func @main
// ROUND: graph.conv2d
// ROUND: graph.matmul

// OPT-LABEL: func.func @main
// OPT: fused.group "conv2d_add_relu"
// OPT-NOT: graph.transpose
