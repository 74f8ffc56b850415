// Bad optimization levels and pipeline names: one diagnostic, no traceback.
// RUN: not graph-opt -O7 %s 2>&1 | filecheck %s --check-prefix=LEVEL
// RUN: not graph-opt -Ofast %s 2>&1 | filecheck %s --check-prefix=FAST
// RUN: not graph-opt -p 'default,O9' %s 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not graph-opt -p 'decompose{ops=conv2d}' %s 2>&1 | filecheck %s --check-prefix=DECOMP
// RUN: not graph-run %s -O5 2>&1 | filecheck %s --check-prefix=RUNERR
// RUN: not graph-run %s -p O2,nope 2>&1 | filecheck %s --check-prefix=RUNNAME

// LEVEL-NOT: Traceback
// LEVEL: graph-opt: error: invalid optimization level '-O7': expected 0, 1, 2 or 3 (-O0 .. -O3)
// LEVEL-NOT: Traceback

// FAST-NOT: Traceback
// FAST: graph-opt: error: invalid optimization level '-Ofast'
// FAST-NOT: Traceback

// NAME-NOT: Traceback
// NAME: graph-opt: error: unknown pass 'O9' (graph-opt --list-passes lists them)
// NAME-NOT: Traceback

// DECOMP-NOT: Traceback
// DECOMP: graph-opt: error: decompose: unknown op 'conv2d' in ops; expected some of softmax, log_softmax, layer_norm, batch_norm, gelu
// DECOMP-NOT: Traceback

// RUNERR-NOT: Traceback
// RUNERR: graph-run: error: invalid optimization level '-O5'
// RUNERR-NOT: Traceback

// RUNNAME-NOT: Traceback
// RUNNAME: graph-run: error: unknown pass 'nope' (graph-opt --list-passes lists them)
// RUNNAME-NOT: Traceback

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
