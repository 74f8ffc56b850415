// Deep nesting is one located "nesting too deep" diagnostic, never a
// RecursionError: 3,000 nested modules, 2,000 nested scf.for, 5,000 nested
// attribute arrays.  Moderate nesting still works.
// RUN: %python %S/Inputs/deep_nesting.py modules 3000 %t.modules.mlir
// RUN: not graph-opt %t.modules.mlir 2>&1 | filecheck %s --check-prefix=MODULES
// MODULES: modules.mlir:65:1: error: nesting too deep: more than 64 nested operations
// MODULES-NOT: Recursion
// RUN: %python %S/Inputs/deep_nesting.py loops 2000 %t.loops.mlir
// RUN: not graph-opt %t.loops.mlir 2>&1 | filecheck %s --check-prefix=LOOPS
// RUN: not graph-run %t.loops.mlir 2>&1 | filecheck %s --check-prefix=LOOPS
// LOOPS: loops.mlir:68:{{[0-9]+}}: error: nesting too deep: more than 64 nested operations
// LOOPS-NOT: Recursion
// RUN: %python %S/Inputs/deep_nesting.py attrs 5000 %t.attrs.mlir
// RUN: not graph-opt %t.attrs.mlir 2>&1 | filecheck %s --check-prefix=ATTRS
// ATTRS: attrs.mlir:1:{{[0-9]+}}: error: nesting too deep: more than 64 nested attributes
// ATTRS-NOT: Recursion
// RUN: %python %S/Inputs/deep_nesting.py loops 60 %t.ok.mlir
// RUN: graph-opt %t.ok.mlir | filecheck %s --check-prefix=OK
// OK: scf.for %i59
