// Plugins that misbehave get one error naming them, never a silent exit 0,
// a silently replaced builtin or an unlocated internal error.
// RUN: not graph-opt --load-plugin %S/Inputs/exit_plugin.py %s 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: not graph-run --load-plugin %S/Inputs/exit_plugin.py %s 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: not graph-opt --load-plugin %S/Inputs/cse_plugin.py %s 2>&1 | filecheck %s --check-prefix=CSE
// RUN: not graph-opt --load-plugin %S/Inputs/graph_dialect_plugin.py %s 2>&1 | filecheck %s --check-prefix=DIALECT
// RUN: not graph-opt --load-plugin %S/Inputs/same_pass_a.py --load-plugin %S/Inputs/same_pass_b.py %s 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not graph-opt --load-plugin %S/Inputs/raising_plugin.py %s 2>&1 | filecheck %s --check-prefix=VERIFIER
// RUN: not graph-opt --load-plugin %S/Inputs/raising_plugin.py -p bug-pass %S/Inputs/relu.mlir 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not graph-run --load-plugin %S/Inputs/raising_plugin.py -p bug-pass %S/Inputs/relu.mlir 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not graph-opt --load-plugin %S/Inputs/raising_plugin.py -O2 -t llvm %S/Inputs/bug_op.mlir 2>&1 | filecheck %s --check-prefix=RULE
// RUN: not graph-run --load-plugin %S/Inputs/raising_plugin.py %S/Inputs/bug_op.mlir 2>&1 | filecheck %s --check-prefix=RULE
// RUN: not graph-opt --load-plugin %S/Inputs/raising_plugin.py -p 'autodiff{func=f}' %S/Inputs/bug_op.mlir 2>&1 | filecheck %s --check-prefix=GRAD

// EXIT: error: plugin '{{.*}}exit_plugin.py' called sys.exit(0) while it was imported
// CSE: error: plugin '{{.*}}cse_plugin.py' registers pass 'cse', which xDSL already defines
// DIALECT: error: plugin '{{.*}}graph_dialect_plugin.py' registers dialect 'graph', which graph-opt already defines
// TWICE: error: plugin '{{.*}}same_pass_b.py' registers pass 'my-cleanup', which plugin '{{.*}}same_pass_a.py' already defines
// RULE: bug_op.mlir:3:3: error: the compute rule for 'bug.op' of plugin '{{.*}}raising_plugin.py' raised IndexError: {{.*}} on bug.op
// RULE-NOT: internal error
// GRAD: bug_op.mlir:3:3: error: the gradient rule for 'bug.op' of plugin '{{.*}}raising_plugin.py' raised RuntimeError: no gradient today on bug.op
// VERIFIER: misbehaving.mlir:[[# @LINE + 5]]:3: error: bug.op: the verifier of plugin '{{.*}}raising_plugin.py' raised ZeroDivisionError
// PASS: relu.mlir:3:3: error: pass 'bug-pass' of plugin '{{.*}}raising_plugin.py' raised KeyError: 'graph.relu' on graph.relu
// EXIT-NOT: Traceback
// CSE-NOT: internal error
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = bug.op %x {fail} : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
