// RUN: not graph-opt -p 'plan-devices{groups="dev1:cpu0"}' %s 2>&1 | filecheck %s --check-prefix=UNMAPPED
// UNMAPPED: {{^.*}}errors.mlir:[[# @LINE + 9]]:3: error: plan-devices: graph.add is in device group 'dev9', which the 'groups' option does not map (mapped: dev1)
// UNMAPPED-NOT: Traceback

// RUN: not graph-opt -p 'plan-devices{groups="dev1"}' %s 2>&1 | filecheck %s --check-prefix=MAP
// MAP: graph-opt: error: plan-devices: bad group mapping 'dev1', expected GROUP:DEVICE
// MAP-NOT: Traceback

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %p = graph.mul %a, %a {device_group = "dev1"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = graph.add %p, %a {device_group = "dev9"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
