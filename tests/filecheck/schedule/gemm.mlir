// RUN: graph-opt %avx512 -O2 -p lower-graph-to-loop %s | filecheck %s
// RUN: graph-opt %avx2 -O2 -p lower-graph-to-loop %s | filecheck %s --check-prefix=AVX2
// The GEMM schedule: large enough f32 matmuls get a register-tiled FMA
// micro-kernel, with the fused epilogue applied to the tile before the
// store.  The tile is the target's: with AVX-512 8 rows x 32 columns of C in
// 16 vector<16xf32> accumulators (of 32 registers), with AVX2 6 rows x 16
// columns in 12 vector<8xf32> (of 16: BLIS's Haswell sgemm tile).

// CHECK-LABEL: func.func private @dense_k0_matmul_add_relu
// CHECK-SAME: (%[[A:.*]]: memref<20x40xf32>, %[[B:.*]]: memref<40x48xf32>, %[[BIAS:.*]]: memref<48xf32>, %[[OUT:.*]]: memref<20x48xf32>)
// CHECK:       %[[TILE:.*]] = memref.alloca() : memref<8x32xf32>
// CHECK:       %[[PANEL:.*]] = memref.alloca() : memref<40x32xf32>
// A panel of B is copied to the stack, then each row tile runs over all of K.
// CHECK:       vector.load %[[B]][%{{.*}}, %{{.*}}] : memref<40x48xf32>, vector<16xf32>
// CHECK-NEXT:  vector.store %{{.*}}, %[[PANEL]]
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, {{.*}}) {
// CHECK-NEXT:    %[[B0:.*]] = vector.load %[[PANEL]][%[[K]], %{{.*}}]
// CHECK-NEXT:    %[[B1:.*]] = vector.load %[[PANEL]][%[[K]], %{{.*}}]
// CHECK-NEXT:    %[[A0:.*]] = memref.load %[[A]][%{{.*}}, %[[K]]]
// CHECK-NEXT:    %[[AV:.*]] = vector.broadcast %[[A0]] : f32 to vector<16xf32>
// CHECK-NEXT:    vector.fma %[[AV]], %[[B0]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:    vector.fma %[[AV]], %[[B1]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-14: vector.fma
// CHECK:         scf.yield
// CHECK-COUNT-16: vector.store %{{.*}}, %[[TILE]]
// The epilogue runs on vectors of a tile row: a vector of the bias, relu,
// one store of 16 consecutive output columns.
// CHECK:       scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK:         %[[T:.*]] = vector.load %[[TILE]][%[[R]], %{{.*}}] : memref<8x32xf32>, vector<16xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[T]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:    %[[RL:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:    vector.store %[[RL]], %[[OUT]]
// The 4 rows left over (20 = 2 x 8 + 4) get a 4-row micro-kernel.
// CHECK:       scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// The last 16 columns (48 = 32 + 16) are copied into the panel, zero-padded,
// and run the same micro-kernel: every column is summed in the same order.
// CHECK:       vector.store %{{.*}}, %[[PANEL]]
// CHECK:       %[[BV:.*]] = memref.load %[[B]]
// CHECK-NEXT:  memref.store %[[BV]], %[[PANEL]]
// CHECK:       vector.load %[[PANEL]]
// CHECK:       vector.fma
// Its epilogue stores the 16 valid columns element by element.
// CHECK:       %[[T2:.*]] = memref.load %[[TILE]]
// CHECK-NEXT:  %[[B2:.*]] = memref.load %[[BIAS]]
// CHECK-NEXT:  %[[S2:.*]] = arith.addf %[[T2]], %[[B2]] : f32
// Relu as numpy's maximum: x if x > 0 or x is NaN, else 0.
// CHECK-NEXT:  %[[GT:.*]] = arith.cmpf ogt, %[[S2]], %{{.*}} : f32
// CHECK-NEXT:  %[[NAN:.*]] = arith.cmpf uno, %[[S2]], %[[S2]] : f32
// CHECK-NEXT:  %[[KEEP:.*]] = arith.ori %[[GT]], %[[NAN]] : i1
// CHECK-NEXT:  %[[R2:.*]] = arith.select %[[KEEP]], %[[S2]], %{{.*}} : f32
// CHECK-NEXT:  memref.store %[[R2]], %[[OUT]]

// With AVX2, 6 x 16 tiles: 48 columns are 3 full panels, 20 rows 3 tiles and 2 left over.
// AVX2-LABEL: func.func private @dense_k0_matmul_add_relu
// AVX2-SAME: (%[[A:.*]]: memref<20x40xf32>, %[[B:.*]]: memref<40x48xf32>, %[[BIAS:.*]]: memref<48xf32>, %[[OUT:.*]]: memref<20x48xf32>)
// AVX2:       %[[TILE:.*]] = memref.alloca() : memref<6x16xf32>
// AVX2:       %[[PANEL:.*]] = memref.alloca() : memref<40x16xf32>
// AVX2:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// AVX2-NEXT:    %[[B0:.*]] = vector.load %[[PANEL]][%[[K]], %{{.*}}] : memref<40x16xf32>, vector<8xf32>
// AVX2-NEXT:    %[[B1:.*]] = vector.load %[[PANEL]][%[[K]], %{{.*}}] : memref<40x16xf32>, vector<8xf32>
// AVX2-NEXT:    %[[A0:.*]] = memref.load %[[A]][%{{.*}}, %[[K]]]
// AVX2-NEXT:    %[[AV:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// AVX2-NEXT:    vector.fma %[[AV]], %[[B0]], %{{.*}} : vector<8xf32>
// AVX2-NEXT:    vector.fma %[[AV]], %[[B1]], %{{.*}} : vector<8xf32>
// AVX2-COUNT-10: vector.fma
// AVX2:         scf.yield
// AVX2-COUNT-12: vector.store %{{.*}}, %[[TILE]]
// AVX2:         %[[T:.*]] = vector.load %[[TILE]][%{{.*}}, %{{.*}}] : memref<6x16xf32>, vector<8xf32>
// AVX2-NEXT:    %[[S:.*]] = arith.addf %[[T]], %{{.*}} : vector<8xf32>
// AVX2-NEXT:    arith.maximumf %[[S]], %{{.*}} : vector<8xf32>
// AVX2:       scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// AVX2:       func.return
func.func @dense(%a: tensor<20x40xf32>, %b: tensor<40x48xf32>, %c: tensor<48xf32>) -> tensor<20x48xf32> {
  %m = graph.matmul %a, %b : (tensor<20x40xf32>, tensor<40x48xf32>) -> tensor<20x48xf32>
  %s = graph.add %m, %c : (tensor<20x48xf32>, tensor<48xf32>) -> tensor<20x48xf32>
  %r = graph.relu %s : tensor<20x48xf32>
  func.return %r : tensor<20x48xf32>
}

// A constant B is packed at compile time into zero-padded panels [ceil(N/NR), K, NR].
// The unpacked original is no global: the kernel reads only the packed copy.
// CHECK-NOT: sym_name = "packed_cst
// CHECK: sym_name = "packed_packed{{[0-9]+}}", type = memref<1x40x32xf32>
// AVX2: sym_name = "packed_packed{{[0-9]+}}", type = memref<2x40x16xf32>
// CHECK-LABEL: func.func private @packed_k{{[0-9]+}}_matmul
// CHECK-SAME: (%[[A:.*]]: memref<256x40xf32>, %[[P:.*]]: memref<1x40x32xf32>, %[[OUT:.*]]: memref<256x20xf32>)
// CHECK:       %[[C20:.*]] = arith.constant 20 : index
// CHECK:       vector.load %[[P]]
// CHECK:       vector.fma
// Only the 20 valid columns of the padded panel are stored.
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[C20]] step
func.func @packed(%a: tensor<256x40xf32>) -> tensor<256x20xf32> {
  %wt = graph.constant dense<[[-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75], [1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5], [0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25], [0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0], [0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25], [0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5], [-0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1], [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75], [1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5], [0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25], [0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0], [0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25], [0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5], [-0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1], [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75], [1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5], [0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25], [0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0], [0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25], [0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5], [-0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1], [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75], [1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5], [0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25], [0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0], [0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25], [0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5], [-0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1], [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75], [1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5], [0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25], [0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0], [0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25], [0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5], [-0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1], [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75], [1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5], [0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25], [0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0], [0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, -0.5, -0.25]]> : tensor<40x20xf32>
  %m = graph.matmul %a, %wt : (tensor<256x40xf32>, tensor<40x20xf32>) -> tensor<256x20xf32>
  func.return %m : tensor<256x20xf32>
}

// Small matmuls keep the row form.
// CHECK-LABEL: func.func private @small_k0_matmul
// CHECK-NOT:   vector.fma
// CHECK:       func.return
func.func @small(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %m = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  func.return %m : tensor<8x4xf32>
}

// A pointwise conv is, per image, w[O, C] @ x[C, H*W]: A elements come from the
// weight, B vectors from the image's pixels.  The image fits in L2, so it is
// copied whole into panels of 32 pixels (49 = 32 + 17: the last panel
// zero-padded, copied first), and the row tiles (8 output channels) run
// outermost, each over every panel (the one full panel is no loop).  The
// epilogue stores 16 consecutive pixels of a channel from pixel p at
// (p / 7, p % 7), running across rows of the image: p = 0 and p = 16 here,
// folded to constants.
// CHECK-LABEL: func.func private @pointwise_k0_conv2d
// CHECK-SAME: (%[[X:.*]]: memref<1x32x7x7xf32>, %[[W:.*]]: memref<48x32x1x1xf32>, %[[OUT:.*]]: memref<1x48x7x7xf32>)
// CHECK:       %[[TILE:.*]] = memref.alloca() : memref<8x32xf32>
// CHECK:       %[[PANELS:.*]] = memref.alloca() : memref<2x32x32xf32>
// CHECK:       %[[XS:.*]] = memref.load %[[X]]
// CHECK-NEXT:  memref.store %[[XS]], %[[PANELS]]
// CHECK:       vector.load %[[X]]
// CHECK-NEXT:  vector.store %{{.*}}, %[[PANELS]]
// CHECK:       scf.for %[[IB:.*]] = %{{.*}} to %{{.*}} step
// CHECK:         %[[JB:.*]] = arith.constant 0 : index
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           vector.load %[[PANELS]][%[[JB]], %{{.*}}, %{{.*}}]
// CHECK:           memref.load %[[W]]
// CHECK:           vector.fma
// CHECK:           scf.yield
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK:         scf.for
// CHECK:           %[[V0:.*]] = vector.load %[[TILE]]
// CHECK-NEXT:      vector.store %[[V0]], %[[OUT]][%{{.*}}, %{{.*}}, %[[JB]], %[[JB]]]
// CHECK-NEXT:      %[[V1:.*]] = vector.load %[[TILE]]
// CHECK-NEXT:      vector.store %[[V1]], %[[OUT]][%{{.*}}, %{{.*}}, %[[C2]], %[[C2]]]
func.func @pointwise(%x: tensor<1x32x7x7xf32>, %w: tensor<48x32x1x1xf32>) -> tensor<1x48x7x7xf32> {
  %0 = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x7x7xf32>, tensor<48x32x1x1xf32>) -> tensor<1x48x7x7xf32>
  func.return %0 : tensor<1x48x7x7xf32>
}
