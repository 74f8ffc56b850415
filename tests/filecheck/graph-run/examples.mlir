// Every example compiles and matches the reference interpreter.
// RUN: graph-run %examples/mlp.mlir --random-inputs --seed 3 --check 2>&1 | filecheck %s --check-prefix=MLP
// MLP: output 0: (4, 10) float32
// MLP: check: OK (1 outputs match the reference)
// MLP-NOT: Traceback
