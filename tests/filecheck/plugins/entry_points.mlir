// Installed plugins (entry-point group graphopt.plugins) reach graph-opt and
// graph-run; a broken one is a warning naming it, and neither --help,
// --version nor the working plugin is lost.
// RUN: env PYTHONPATH=%S/Inputs/entry_points graph-opt --help 2>&1 | filecheck %s --check-prefix=HELP
// RUN: env PYTHONPATH=%S/Inputs/entry_points graph-opt --version 2>&1 | filecheck %s --check-prefix=VERSION
// RUN: env PYTHONPATH=%S/Inputs/entry_points graph-opt --list-passes 2>&1 | filecheck %s --check-prefix=LIST
// RUN: env PYTHONPATH=%S/Inputs/entry_points graph-opt -p ep-relu-cleanup,dce %s 2>&1 | filecheck %s
// RUN: env PYTHONPATH=%S/Inputs/entry_points graph-run %s -p ep-relu-cleanup --check 2>&1 | filecheck %s --check-prefix=EXEC
// A --load-plugin that fails does not hide the help or the version either.
// RUN: graph-opt --load-plugin %S/Inputs/no_such_plugin.py --version 2>&1 | filecheck %s --check-prefix=VERSION-MISSING
// RUN: graph-run --load-plugin %S/Inputs/no_such_plugin.py --help 2>&1 | filecheck %s --check-prefix=HELP-GRAPH-EXEC

// HELP: graph-opt: warning: plugin entry point 'broken' (graphopt_test_broken_plugin) failed to import: ImportError: this plugin needs a package that is not installed; the plugin is skipped
// HELP: usage: graph-opt

// LIST: warning: plugin entry point 'broken'
// LIST: ep-relu-cleanup

// VERSION: warning: plugin entry point 'broken'
// VERSION: graph-opt {{[0-9.]+}} (xDSL

// CHECK: warning: plugin entry point 'broken'
// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT: %[[R:.*]] = graph.relu
// CHECK-NEXT: func.return %[[R]]

// EXEC: warning: plugin entry point 'broken'
// EXEC: check: OK

// VERSION-MISSING: graph-opt: warning: plugin file '{{.*}}no_such_plugin.py' does not exist
// VERSION-MISSING: graph-opt {{[0-9.]+}}

// HELP-GRAPH-EXEC: usage: graph-run
func.func @relu_relu(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = graph.relu %x : tensor<8x16xf32>
  %b = graph.relu %a : tensor<8x16xf32>
  func.return %b : tensor<8x16xf32>
}
