// A plugin without register(registry), and one whose register() raises.
// RUN: not graph-opt --load-plugin %S/Inputs/no_register_plugin.py %s 2>&1 | filecheck %s
// RUN: not graph-opt --load-plugin %S/Inputs/failing_register_plugin.py %s 2>&1 | filecheck %s --check-prefix=RAISES

// CHECK-NOT: Traceback
// CHECK: graph-opt: error: plugin '{{.*}}no_register_plugin.py' has no function register(registry)
// CHECK-NOT: Traceback

// RAISES-NOT: Traceback
// RAISES: graph-opt: error: plugin '{{.*}}failing_register_plugin.py' failed to register: ValueError: cannot register: missing configuration
// RAISES-NOT: Traceback

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
