// RUN: graph-opt -p 'plan-devices{groups="g:cpu1" default=cpu0}' %s | filecheck %s

// A constant with no group is placed on its first placed consumer's device
// (the backward walk), so no copy is needed for it; one value read on two
// devices is copied once per device.
// CHECK-LABEL: func.func @backward
// CHECK:      %[[K:.*]] = graph.constant splat 2.000000e+00 {placed_on = "cpu1"}
// CHECK:      %[[XC:.*]] = graph.copy %{{.*}} {placed_on = "cpu1", device = "cpu1"}
// CHECK:      %[[M:.*]] = graph.mul %[[XC]], %[[K]] {device_group = "g", placed_on = "cpu1"}
// CHECK-NOT:  graph.copy
// CHECK:      graph.add %[[XC]], %[[M]] {device_group = "g", placed_on = "cpu1"}
// CHECK:      %[[R:.*]] = graph.copy %{{.*}} {placed_on = "cpu0", device = "cpu0"}
// CHECK:      graph.sub %{{.*}}, %[[R]] {placed_on = "cpu0"}
func.func @backward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = graph.constant splat 2.0 : tensor<4xf32>
  %m = graph.mul %x, %k {device_group = "g"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = graph.add %x, %m {device_group = "g"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = graph.sub %x, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
