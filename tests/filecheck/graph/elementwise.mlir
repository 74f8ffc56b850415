// RUN: %roundtrip
// RUN: %roundtrip-generic
// RUN: graph-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Elementwise graph ops: unary (same type in and out) and binary (numpy
// broadcasting, written with a functional type).

// CHECK-LABEL: func.func @neg
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.neg %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "neg"
// GENERIC:       "graph.neg"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @neg(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.neg %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @exp
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.exp %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "exp"
// GENERIC:       "graph.exp"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @exp(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.exp %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @log
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.log %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "log"
// GENERIC:       "graph.log"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @log(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.log %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @sqrt
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.sqrt %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "sqrt"
// GENERIC:       "graph.sqrt"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @sqrt(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.sqrt %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @tanh
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.tanh %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "tanh"
// GENERIC:       "graph.tanh"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @tanh(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.tanh %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.sigmoid %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "sigmoid"
// GENERIC:       "graph.sigmoid"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @sigmoid(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.sigmoid %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[X]] : tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "relu"
// GENERIC:       "graph.relu"(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @relu(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.relu %x : tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// Unary ops on other element types and ranks.
// CHECK-LABEL: func.func @unary_types
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf64>, %[[B:.*]]: tensor<2x3xi32>, %[[C:.*]]: tensor<f32>, %[[D:.*]]: tensor<7xi64>)
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[A]] : tensor<4xf64>
// CHECK-NEXT:    %[[N:.*]] = graph.neg %[[B]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[N]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[S:.*]] = graph.sigmoid %[[C]] : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = graph.relu %[[D]] : tensor<7xi64>
// CHECK-NEXT:    func.return %[[E]], %[[R]], %[[S]], %[[M]] : tensor<4xf64>, tensor<2x3xi32>, tensor<f32>, tensor<7xi64>
func.func @unary_types(%a: tensor<4xf64>, %b: tensor<2x3xi32>, %c: tensor<f32>, %d: tensor<7xi64>) -> (tensor<4xf64>, tensor<2x3xi32>, tensor<f32>, tensor<7xi64>) {
  %e = graph.exp %a : tensor<4xf64>
  %n = graph.neg %b : tensor<2x3xi32>
  %r = graph.relu %n : tensor<2x3xi32>
  %s = graph.sigmoid %c : tensor<f32>
  %m = graph.relu %d : tensor<7xi64>
  func.return %e, %r, %s, %m : tensor<4xf64>, tensor<2x3xi32>, tensor<f32>, tensor<7xi64>
}

// CHECK-LABEL: func.func @add
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.add %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "add"
// GENERIC:       "graph.add"(%{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @add(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.add %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @sub
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.sub %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "sub"
// GENERIC:       "graph.sub"(%{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @sub(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.sub %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @mul
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.mul %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "mul"
// GENERIC:       "graph.mul"(%{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @mul(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.mul %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @div
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.div %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "div"
// GENERIC:       "graph.div"(%{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @div(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.div %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @maximum
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.maximum %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "maximum"
// GENERIC:       "graph.maximum"(%{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @maximum(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = graph.maximum %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// Broadcasting: rank promotion, size-1 dims on either side, 0-d operands.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>, %[[C:.*]]: tensor<8x1xf32>, %[[D:.*]]: tensor<1x16xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT:    %[[R0:.*]] = graph.add %[[A]], %[[B]] : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    %[[R1:.*]] = graph.sub %[[B]], %[[A]] : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    %[[R2:.*]] = graph.mul %[[C]], %[[D]] : (tensor<8x1xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    %[[R3:.*]] = graph.div %[[S]], %[[A]] : (tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    %[[R4:.*]] = graph.maximum %[[S]], %[[S]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]]
// GENERIC-LABEL: "func.func"() <{sym_name = "broadcast"
// GENERIC:       "graph.mul"(%{{.*}}, %{{.*}}) : (tensor<8x1xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
func.func @broadcast(%a: tensor<8x16xf32>, %b: tensor<16xf32>, %c: tensor<8x1xf32>, %d: tensor<1x16xf32>, %s: tensor<f32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>) {
  %r0 = graph.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r1 = graph.sub %b, %a : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %r2 = graph.mul %c, %d : (tensor<8x1xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  %r3 = graph.div %s, %a : (tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %r4 = graph.maximum %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %r0, %r1, %r2, %r3, %r4 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>
}

// Binary ops on integer and f64 tensors.
// CHECK-LABEL: func.func @binary_types
// CHECK-SAME:    (%[[A:.*]]: tensor<4x1xi32>, %[[B:.*]]: tensor<3xi32>, %[[C:.*]]: tensor<2xf64>, %[[D:.*]]: tensor<5x2xi64>)
// CHECK-NEXT:    %[[R0:.*]] = graph.add %[[A]], %[[B]] : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
// CHECK-NEXT:    %[[R1:.*]] = graph.maximum %[[R0]], %[[B]] : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
// CHECK-NEXT:    %[[R2:.*]] = graph.div %[[C]], %[[C]] : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
// CHECK-NEXT:    %[[R3:.*]] = graph.mul %[[D]], %[[D]] : (tensor<5x2xi64>, tensor<5x2xi64>) -> tensor<5x2xi64>
// CHECK-NEXT:    func.return %[[R1]], %[[R2]], %[[R3]]
func.func @binary_types(%a: tensor<4x1xi32>, %b: tensor<3xi32>, %c: tensor<2xf64>, %d: tensor<5x2xi64>) -> (tensor<4x3xi32>, tensor<2xf64>, tensor<5x2xi64>) {
  %r0 = graph.add %a, %b : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %r1 = graph.maximum %r0, %b : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %r2 = graph.div %c, %c : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %r3 = graph.mul %d, %d : (tensor<5x2xi64>, tensor<5x2xi64>) -> tensor<5x2xi64>
  func.return %r1, %r2, %r3 : tensor<4x3xi32>, tensor<2xf64>, tensor<5x2xi64>
}
