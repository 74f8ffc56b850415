// A file whose extension the tools do not know (.mlir: textual IR, .onnx: an
// ONNX model, -: stdin) is read as textual IR when its content parses; when
// it does not, one error names the file and the accepted formats, with the
// first parse error as a note for text -- the same in graph-opt, graph-run,
// graph-compile and graphopt.compile.

// It parses: every tool takes it.
// RUN: cp %s %t.txt && cp %s %t-noext
// RUN: graph-opt %t.txt | filecheck %s --check-prefix=PARSED
// RUN: graph-opt %t-noext | filecheck %s --check-prefix=PARSED
// PARSED-LABEL: func.func @f(
// PARSED: graph.exp
// RUN: graph-run %t.txt | filecheck %s --check-prefix=RUN-OK
// RUN-OK: output 0: (4,) float32
// RUN: graph-compile %t.txt -o %t.so --header %t.h
// RUN: %python -c "import graphopt; print(list(graphopt.compile(r'%t.txt')))" | filecheck %s --check-prefix=API
// API: ['f']

// Binary content: the format error, not a parse error at some column.
// RUN: cp %S/Inputs/binary.mlir %t.bin
// RUN: not graph-opt %t.bin 2>&1 | filecheck %s --check-prefix=BIN -DTOOL=graph-opt
// RUN: not graph-run %t.bin 2>&1 | filecheck %s --check-prefix=BIN -DTOOL=graph-run
// RUN: not graph-compile %t.bin -o %t.so 2>&1 | filecheck %s --check-prefix=BIN -DTOOL=graph-compile
// BIN: [[TOOL]]: error: cannot read '{{.*}}.bin': '.bin' is not a known input format, and the file is binary, not textual IR (accepted: .mlir for textual IR, .onnx for an ONNX model, - for textual IR on stdin)
// BIN-NOT: Unexpected character
// BIN-NOT: internal error

// Text that is not IR: the format error, and where parsing stopped.
// RUN: %python -c "open(r'%t.notes', 'w').write('Shopping list\n- milk\n')"
// RUN: not graph-opt %t.notes 2>&1 | filecheck %s --check-prefix=TEXT -DTOOL=graph-opt
// RUN: not graph-run %t.notes 2>&1 | filecheck %s --check-prefix=TEXT -DTOOL=graph-run
// RUN: not graph-compile %t.notes -o %t.so 2>&1 | filecheck %s --check-prefix=TEXT -DTOOL=graph-compile
// TEXT: [[TOOL]]: error: cannot read '{{.*}}.notes': '.notes' is not a known input format, and the file does not parse as textual IR (accepted: .mlir for textual IR, .onnx for an ONNX model, - for textual IR on stdin)
// TEXT-NEXT: {{.*}}.notes:{{[0-9]+}}:{{[0-9]+}}: note: as textual IR: {{.+}}
// TEXT-NOT: internal error
// RUN: rm -rf %t.d && mkdir %t.d && %python -c "open(r'%t.d/shopping', 'w').write('Shopping list\n')"
// RUN: not graph-opt %t.d/shopping 2>&1 | filecheck %s --check-prefix=NOEXT
// NOEXT: graph-opt: error: cannot read '{{.*}}shopping': it has no extension the tools know, and the file does not parse as textual IR (accepted: .mlir

// With --split-input-file, the note names the line in the file.
// RUN: %python -c "open(r'%t.split', 'w').write('func.func @f() {\n  func.return\n}\n// -----\nfunc.func @g(\n  bogus\n}\n')"
// RUN: not graph-opt --split-input-file %t.split 2>&1 | filecheck %s --check-prefix=SPLIT
// SPLIT: error: cannot read '{{.*}}.split': '.split' is not a known input format, and the file does not parse as textual IR
// SPLIT-NEXT: {{.*}}.split:6:3: note: as textual IR:

// graphopt.compile raises the same words (an ArgumentError).
// RUN: not %python -c "import graphopt; graphopt.compile(r'%t.bin')" 2>&1 | filecheck %s --check-prefix=PY
// PY: graphopt.errors.ArgumentError: cannot read '{{.*}}.bin': '.bin' is not a known input format, and the file is binary, not textual IR (accepted: .mlir

// A .mlir file is textual IR by its extension: its parse errors are shown
// as they are, and so are those of any file read with -f mlir.
// RUN: cp %S/Inputs/binary.mlir %t.mlir
// RUN: not graph-opt %t.mlir 2>&1 | filecheck %s --check-prefix=MLIR
// RUN: not graph-opt -f mlir %t.bin 2>&1 | filecheck %s --check-prefix=MLIR
// MLIR: {{.*}}:1:1: error: Unexpected character

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
