// An integer splat out of range for its element type is a parse error at
// the literal.
// RUN: not graph-opt %S/Inputs/splat_out_of_range.mlir 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: {{.*}}splat_out_of_range.mlir:2:{{[0-9]+}}: error: {{.*}}5000000000{{.*}}out of range
// CHECK-NOT: Traceback
