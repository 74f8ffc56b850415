// User errors of the autodiff pass: one diagnostic, no traceback.

// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f}' %s 2>&1 | filecheck %s --check-prefix=NORULE
// NORULE-NOT: Traceback
// NORULE: {{^.*}}errors.mlir:[[# @LINE + 24]]:3: error: autodiff: nograd.cube has no gradient rule, but the gradient of @f flows through it
// NORULE-NEXT: {{^.*}}errors.mlir:[[# @LINE + 24]]:3: note: the gradient reaches it through this use
// NORULE-NOT: Traceback

// An op without a rule off the path to the wrt arguments is fine.
// RUN: graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f wrt=y}' %s 2>&1 | filecheck %s --check-prefix=OFFPATH
// OFFPATH-LABEL: func.func @f_grad
// OFFPATH-NOT: Traceback

// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f wrt=nope}' %s 2>&1 | filecheck %s --check-prefix=NAME
// NAME: graph-opt: error: autodiff: @f has no argument %nope (its arguments: %x, %y, %n)
// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f wrt=n}' %s 2>&1 | filecheck %s --check-prefix=INT
// INT: graph-opt: error: autodiff: cannot differentiate @f with respect to %n of type tensor<3xi32>: only float tensors have gradients
// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=g}' %s 2>&1 | filecheck %s --check-prefix=FUNC
// FUNC: graph-opt: error: autodiff: no function @g in the module
// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f wrt=7}' %s 2>&1 | filecheck %s --check-prefix=INDEX
// INDEX: graph-opt: error: autodiff: @f has 3 arguments; wrt index 7 is out of range
// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f seed=zeros}' %s 2>&1 | filecheck %s --check-prefix=SEED
// SEED: graph-opt: error: autodiff: seed must be 'head' or 'ones', got 'zeros'
// RUN: not graph-opt --load-plugin %S/Inputs/no_rule_plugin.py -p 'autodiff{func=f train=true}' %s 2>&1 | filecheck %s --check-prefix=TRAIN
// TRAIN: graph-opt: error: autodiff: a training step needs @f to return one float loss with one element, but it returns tensor<3xf32>

func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<3xf32> {
  %t = graph.tanh %x : tensor<3xf32>
  %c = nograd.cube %t : tensor<3xf32>
  %s = graph.mul %c, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %s : tensor<3xf32>
}
