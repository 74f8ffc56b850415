// ONNX names stay the model's interface: inputs "input:0", "1x", "a/b" and
// "a_b" (the last two sanitise to the same SSA name), outputs "out.0" and
// "out/1". graph-import keeps them as graph.name argument and result
// attributes; the lowering records them in #loop.abi; graph-run takes them in
// an .npz and in --input NAME=FILE, also from the imported .mlir.
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/make_model.py names %t/names.onnx
// RUN: graph-import %t/names.onnx | filecheck %s
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[IN:[^:]*]]: tensor<2x3xf32> {graph.name = "input:0"},
// CHECK-SAME: %[[ONEX:[^:]*]]: tensor<2x3xf32> {graph.name = "1x"},
// CHECK-SAME: %[[AB1:[^:]*]]: tensor<2x3xf32> {graph.name = "a/b"},
// CHECK-SAME: %[[AB2:[^:]*]]: tensor<2x3xf32> {graph.name = "a_b"})
// CHECK-SAME: -> (tensor<2x3xf32> {graph.name = "out.0"}, tensor<2x3xf32> {graph.name = "out/1"})
// CHECK: %[[S:.*]] = graph.add %[[IN]], %[[ONEX]]
// CHECK: %[[M:.*]] = graph.mul %[[S]], %[[AB1]]
// CHECK: graph.sub %[[M]], %[[AB2]]
// CHECK: graph.relu %[[AB1]]

// The names survive printing and parsing, and reach the driver's ABI.
// RUN: graph-import %t/names.onnx -o %t/names.mlir
// RUN: graph-opt %t/names.mlir -O2 -p lower-graph-to-loop | filecheck %s --check-prefix=ABI
// ABI-LABEL: func.func @main(
// ABI-SAME: loop.abi = #loop.abi<inputs = ["input:0" : tensor<2x3xf32>, "1x" : tensor<2x3xf32>, "a/b" : tensor<2x3xf32>, "a_b" : tensor<2x3xf32>], outputs = ["out.0" : tensor<2x3xf32>, "out/1" : tensor<2x3xf32>]

// graph-run: an .npz keyed by ONNX names (a/b is 2, a_b is 1, so out/1 is 2).
// RUN: graph-run %t/names.onnx --inputs %t/names.npz --check --output %t/npz_out.npz | filecheck %s --check-prefix=NPZ
// RUN: graph-run %t/names.mlir --inputs %t/names.npz --check | filecheck %s --check-prefix=NPZ
// NPZ: output 0: (2, 3) float32
// NPZ-NEXT: output 1: (2, 3) float32 min=2 max=2 mean=2
// NPZ-NEXT: check: OK (2 outputs match the reference)

// --input NAME=FILE, from .npy or TensorProto .pb files, gives the same outputs.
// RUN: graph-run %t/names.onnx --input input:0=%t/in_0.npy --input 1x=%t/in_1.pb --input a/b=%t/in_2.npy --input a_b=%t/in_3.pb --output %t/named_out.npz --check | filecheck %s --check-prefix=NAMED
// NAMED: output 1: (2, 3) float32 min=2 max=2 mean=2
// NAMED-NEXT: check: OK (2 outputs match the reference)
// RUN: %python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); assert all((a[k] == b[k]).all() for k in a.files), 'differ'" %t/npz_out.npz %t/named_out.npz
// Only a_b given (ones), a/b drawn at random: out/1 is relu of the random a/b.
// RUN: graph-run %t/names.mlir --input a_b=%t/in_3.npy --random-inputs --check | filecheck %s --check-prefix=SOME
// SOME: check: OK (2 outputs match the reference)

// Errors: one line, exit status 1, no traceback.
// RUN: not graph-run %t/names.onnx --input a-b=%t/in_3.npy 2>&1 | filecheck %s --check-prefix=MISSPELT
// MISSPELT: graph-run: error: --input 'a-b={{.*}}in_3.npy': @main has no input named 'a-b' (it has input:0, 1x, a/b, a_b); did you mean 'a_b'?
// MISSPELT-NOT: Traceback
// RUN: not graph-run %t/names.onnx --input a_b=%t/in_3.npy 2>&1 | filecheck %s --check-prefix=PARTIAL
// PARTIAL: graph-run: error: @main: no array for input(s) input:0, 1x, a/b: give each with --input NAME=FILE, or add --inputs FILE or --random-inputs for the rest
// RUN: not graph-run %t/names.onnx --input a_b 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC: graph-run: error: invalid --input 'a_b': expected NAME=FILE
// RUN: not graph-run %t/names.onnx --input a_b=%t/in_3.npy --input a_b=%t/in_2.npy --random-inputs 2>&1 | filecheck %s --check-prefix=TWICE
// TWICE: graph-run: error: --input 'a_b={{.*}}in_2.npy': input 'a_b' of @main is given twice
// RUN: not graph-run %t/names.onnx --input a_b=%t/nope.npy --random-inputs 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: graph-run: error: --input 'a_b': cannot open '{{.*}}nope.npy': no such file
// RUN: %python -c "import numpy as np, sys; d = dict(np.load(sys.argv[1])); d['a_b_'] = d.pop('a_b'); np.savez(sys.argv[2], **d)" %t/names.npz %t/renamed.npz
// RUN: not graph-run %t/names.onnx --inputs %t/renamed.npz 2>&1 | filecheck %s --check-prefix=NPZ-MISSING
// NPZ-MISSING: graph-run: error: '{{.*}}renamed.npz' has no array for argument 3 (tried a_b, arg3; it holds input:0, 1x, a/b, a_b_); did you mean 'a_b_'?

// graph-compile: C identifiers for the parameters, the ONNX names in comments.
// RUN: graph-compile %t/names.mlir -O1 -o %t/libnames.so
// RUN: filecheck %s --check-prefix=HEADER < %t/libnames.h
// HEADER: /* @main: 4 input(s), 2 output(s).
// HEADER-NEXT: *   input_0: input "input:0", 2 x 3 f32, dense row-major
// HEADER-NEXT: *   _1x: input "1x", 2 x 3 f32, dense row-major
// HEADER-NEXT: *   a_b_1: input "a/b", 2 x 3 f32, dense row-major
// HEADER-NEXT: *   a_b: input, 2 x 3 f32, dense row-major
// HEADER-NEXT: *   out_0: output "out.0", 2 x 3 f32, dense row-major
// HEADER-NEXT: *   out_1: output "out/1", 2 x 3 f32, dense row-major
// HEADER: void main(const float *input_0, const float *_1x, const float *a_b_1, const float *a_b, float *out_0, float *out_1, void *workspace);
