// Bad ONNX input: one line naming the op type, node and opset (or the file
// and value), a non-zero exit, never a traceback.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_model.py unsupported %t/bad.onnx
// RUN: not graph-import %t/bad.onnx 2>&1 | filecheck %s --check-prefix=BADOP
// RUN: not graph-opt %t/bad.onnx 2>&1 | filecheck %s --check-prefix=BADOP
// RUN: not graph-run %t/bad.onnx 2>&1 | filecheck %s --check-prefix=BADOP
// BADOP: bad.onnx: node 'head' (Hardmax, opset 13): unsupported op 'Hardmax'
// BADOP-NOT: Traceback

// RUN: %python %S/Inputs/make_model.py corrupt %t/corrupt.onnx
// RUN: not graph-import %t/corrupt.onnx 2>&1 | filecheck %s --check-prefix=CORRUPT
// CORRUPT: graph-import: error: {{.*}}corrupt.onnx: not a valid ONNX model (corrupt or truncated file
// CORRUPT-NOT: Traceback

// RUN: %python %S/Inputs/make_model.py truncated %t/truncated.onnx
// RUN: not graph-import %t/truncated.onnx 2>&1 | filecheck %s --check-prefix=TRUNCATED
// TRUNCATED: graph-import: error: {{.*}}truncated.onnx: not a valid ONNX model (corrupt or truncated file
// TRUNCATED-NOT: Traceback

// RUN: %python %S/Inputs/make_model.py external %t/external.onnx
// RUN: not graph-import %t/external.onnx 2>&1 | filecheck %s --check-prefix=EXTERNAL
// EXTERNAL: graph-import: error: {{.*}}external.onnx: initializer 'conv1.weight' stores its data in external file 'external.onnx.data', which cannot be found
// EXTERNAL-NOT: Traceback

// RUN: not graph-import %t/missing.onnx 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: graph-import: error: cannot open '{{.*}}missing.onnx': no such file
// A failing import leaves an existing -o file as it was.
// RUN: echo "kept" > %t/kept.mlir
// RUN: not graph-import %t/missing.onnx -o %t/kept.mlir
// RUN: filecheck %s --check-prefix=KEPT < %t/kept.mlir
// KEPT: kept

// A dynamic dimension must be given; a wrong --input-shape is an error too.
// RUN: %python %S/Inputs/make_model.py dynamic %t/dynamic.onnx
// RUN: not graph-import %t/dynamic.onnx 2>&1 | filecheck %s --check-prefix=DYNAMIC
// DYNAMIC: graph-import: error: {{.*}}dynamic.onnx: input 'input' has a dynamic dimension 'batch' on axis 0; set it with --input-shape input=D0xD1x...
// RUN: graph-import %t/dynamic.onnx --input-shape input=1x3x9x9 | filecheck %s --check-prefix=SHAPED
// SHAPED: func.func @main(%input: tensor<1x3x9x9xf32> {graph.name = "input"}) -> (tensor<1x10xf32> {graph.name = "logits"})
// RUN: not graph-import %t/dynamic.onnx --input-shape input=1x3x9 2>&1 | filecheck %s --check-prefix=RANK
// RANK: graph-import: error: {{.*}}--input-shape input=1x3x9 has rank 3, the input has rank 4
// RUN: not graph-import %t/dynamic.onnx --input-shape nope=1 2>&1 | filecheck %s --check-prefix=NAME
// NAME: graph-import: error: {{.*}}--input-shape names 'nope', which is not an input of the model (inputs: input)
// RUN: not graph-import %t/dynamic.onnx --input-shape input=axb 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC: graph-import: error: invalid --input-shape 'input=axb': expected NAME=D0xD1x...
// graph-opt and graph-run take the same option.
// RUN: graph-opt %t/dynamic.onnx --input-shape input=1x3x9x9 | filecheck %s --check-prefix=OPT-SHAPED
// OPT-SHAPED: func.func @main(%input: tensor<1x3x9x9xf32> {graph.name = "input"}) -> (tensor<1x10xf32> {graph.name = "logits"})
// RUN: not graph-opt %t/dynamic.onnx 2>&1 | filecheck %s --check-prefix=OPT-DYNAMIC
// OPT-DYNAMIC: error: {{.*}}input 'input' has a dynamic dimension 'batch' on axis 0; set it with --input-shape
// RUN: graph-run %t/dynamic.onnx --input-shape input=1x3x9x9 --check | filecheck %s --check-prefix=RUN-SHAPED
// RUN-SHAPED: output 0: (1, 10) float32
// RUN-SHAPED: check: OK
