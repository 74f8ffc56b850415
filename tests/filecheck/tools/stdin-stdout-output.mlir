// '-' is stdin, '-o -' is stdout, and '-o FILE' is written atomically and only
// on success: a failing run leaves an existing file untouched and creates none.
// RUN: graph-opt - < %s | filecheck %s
// RUN: graph-opt < %s -o - | filecheck %s
// RUN: graph-opt %s -o %t.good.mlir && filecheck %s < %t.good.mlir
// CHECK: func.func @f

// A diagnostic on stdin names <stdin>.
// RUN: not graph-opt - < %S/Inputs/unknown_op.mlir 2>&1 | filecheck %s --check-prefix=STDIN
// STDIN: <stdin>:2:{{[0-9]+}}: error: Operation graph.frobnicate is not registered

// RUN: echo precious > %t.keep
// RUN: not graph-opt %S/Inputs/unknown_op.mlir -o %t.keep
// RUN: filecheck %s --check-prefix=KEEP < %t.keep
// KEEP: precious
// RUN: rm -f %t.new
// RUN: not graph-opt %S/Inputs/unknown_op.mlir -o %t.new
// RUN: %python -c "import os, sys; sys.exit(os.path.exists(r'%t.new'))"
// A pass that fails, and a failing chunk of a split file, leave it alone too.
// RUN: not graph-opt %s -p 'autodiff{func=nope}' -o %t.keep
// RUN: not graph-opt --split-input-file %S/../graph/invalid.mlir -o %t.keep
// RUN: filecheck %s --check-prefix=KEEP < %t.keep
// No temporary files are left beside it.
// RUN: %python -c "import glob, sys; sys.exit(len(glob.glob(r'%T/.*keep*')))"

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// An empty input (or one of comments only) is an empty module, as in mlir-opt.
// RUN: %python -c "open(r'%t.empty.mlir', 'w').write('// nothing here\n')"
// RUN: graph-opt %t.empty.mlir | filecheck %s --check-prefix=EMPTY
// EMPTY: builtin.module {
// EMPTY-NEXT: }
