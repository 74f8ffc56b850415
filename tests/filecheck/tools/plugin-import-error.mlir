// A plugin whose module fails to import: one diagnostic naming the plugin and
// the exception, exit status 1, no traceback.
// RUN: not graph-opt --load-plugin %S/Inputs/broken_plugin.py %s 2>&1 | filecheck %s

// A plugin with a syntax error, written on the fly.
// RUN: %python -c "open(r'%t.syntax_error.py', 'w').write('def register(:')"
// RUN: not graph-opt --load-plugin %t.syntax_error.py %s 2>&1 | filecheck %s --check-prefix=SYNTAX

// A module name that cannot be imported.
// RUN: not graph-opt --load-plugin graphopt_no_such_plugin_module %s 2>&1 | filecheck %s --check-prefix=MODULE

// CHECK-NOT: Traceback
// CHECK: graph-opt: error: plugin '{{.*}}Inputs{{/|\\}}broken_plugin.py' failed to import: RuntimeError: this plugin is broken on purpose
// CHECK-NOT: Traceback

// SYNTAX-NOT: Traceback
// SYNTAX: graph-opt: error: plugin '{{.*}}syntax_error.py' failed to import: SyntaxError: invalid syntax
// SYNTAX-NOT: Traceback

// MODULE-NOT: Traceback
// MODULE: graph-opt: error: plugin 'graphopt_no_such_plugin_module' failed to import: ModuleNotFoundError: No module named 'graphopt_no_such_plugin_module'
// MODULE-NOT: Traceback

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
