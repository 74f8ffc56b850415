// graph-run on .onnx: inputs from a test_data_set directory (checked against
// its output_N.pb) or from an .npz keyed by ONNX input names.
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/make_model.py testdata %t/model.onnx
// RUN: graph-run %t/model.onnx --inputs %t/test_data_set_0 -O2 | filecheck %s
// CHECK: output 0: (1, 10) float32
// CHECK: check: OK (1 outputs match output_N.pb)
// RUN: graph-run %t/model.onnx --inputs %t/test_data_set_0.npz --check | filecheck %s --check-prefix=NPZ
// NPZ: output 0: (1, 10) float32
// NPZ: check: OK (1 outputs match the reference)

// A wrong expected output fails with a message naming the output.
// RUN: %python %S/Inputs/make_model.py wrong-output %t/model2.onnx
// RUN: not graph-run %t/model2.onnx --inputs %t/wrong_set 2>&1 | filecheck %s --check-prefix=WRONG
// WRONG: graph-run: error: output_N.pb check failed: output 0: {{[0-9]+}} of 10 elements differ

// A light model of the onnx package, as the README runs it.
// RUN: %python %S/Inputs/make_model.py light_squeezenet %t/squeezenet.onnx
// RUN: graph-run %t/squeezenet.onnx -O2 | filecheck %s --check-prefix=LIGHT
// LIGHT: output 0: (1, 1000, 1, 1) float32
