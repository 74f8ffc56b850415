// A UTF-8 byte-order mark is accepted, and CR-only (old Mac) and CRLF line
// endings are line breaks: a '//' comment ends at the CR, and locations
// count those lines.
// RUN: %python -c "open(r'%t.bom.mlir', 'wb').write(b'\xef\xbb\xbf' + open(r'%S/Inputs/cr_source.mlir', 'rb').read())"
// RUN: graph-opt %t.bom.mlir | filecheck %s
// RUN: %python -c "open(r'%t.cr.mlir', 'wb').write(open(r'%S/Inputs/cr_source.mlir', 'rb').read().replace(b'\n', b'\r'))"
// RUN: graph-opt %t.cr.mlir | filecheck %s
// RUN: graph-run %t.cr.mlir --check | filecheck %s --check-prefix=EXEC
// RUN: %python -c "open(r'%t.crlf.mlir', 'wb').write(b'\xef\xbb\xbf' + open(r'%S/Inputs/cr_source.mlir', 'rb').read().replace(b'\n', b'\r\n'))"
// RUN: graph-opt %t.crlf.mlir | filecheck %s
// CHECK: func.func @f
// CHECK: graph.exp
// CHECK: graph.relu
// RUN: graph-run %t.bom.mlir --check | filecheck %s --check-prefix=EXEC
// RUN: %python -c "open(r'%t.bad.mlir', 'wb').write(open(r'%S/Inputs/unknown_op.mlir', 'rb').read().replace(b'\n', b'\r'))"
// RUN: not graph-opt %t.bad.mlir 2>&1 | filecheck %s --check-prefix=LINE
// RUN: %python -c "open(r'%t.bombad.mlir', 'wb').write(b'\xef\xbb\xbf' + open(r'%S/Inputs/unknown_op.mlir', 'rb').read())"
// RUN: not graph-opt %t.bombad.mlir 2>&1 | filecheck %s --check-prefix=LINE
// LINE: bad.mlir:2:25: error: Operation graph.frobnicate is not registered
// EXEC-NOT: error
// EXEC: check: OK
