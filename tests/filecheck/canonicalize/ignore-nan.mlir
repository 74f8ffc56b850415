// canonicalize-graph{ignore-nan=true} applies x * 0 -> 0 and x - x -> 0 to
// floats (fast-math); without the option, as canonicalize does, they keep
// NaN and inf and stay.  A bad option value is one diagnostic.
// RUN: graph-opt -p 'canonicalize-graph{ignore-nan=true}' %s | filecheck %s --check-prefix=FAST
// RUN: graph-opt -p canonicalize-graph %s | filecheck %s --check-prefix=EXACT
// RUN: not graph-opt -p 'canonicalize-graph{ignore-nan=maybe}' %s 2>&1 | filecheck %s --check-prefix=BAD

// FAST-LABEL: func.func @float_zero_algebra
// FAST-NOT:     graph.mul
// FAST-NOT:     graph.sub
// FAST:         %[[M:.*]] = graph.constant splat 0.000000e+00 : tensor<3xf32>
// FAST-NEXT:    %[[S:.*]] = graph.constant splat 0.000000e+00 : tensor<3xf32>
// FAST-NEXT:    func.return %[[M]], %[[S]]
// EXACT-LABEL: func.func @float_zero_algebra
// EXACT:        graph.mul
// EXACT:        graph.sub
func.func @float_zero_algebra(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %z = graph.constant splat 0.0 : tensor<3xf32>
  %m = graph.mul %z, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = graph.sub %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %m, %s : tensor<3xf32>, tensor<3xf32>
}

// The neutral elements are exact in both modes.
// FAST-LABEL: func.func @neutral
// FAST-SAME:  (%[[X:.*]]: tensor<3xf32>)
// FAST-NEXT:    func.return %[[X]]
// EXACT-LABEL: func.func @neutral
// EXACT-SAME:  (%[[X:.*]]: tensor<3xf32>)
// EXACT-NEXT:   func.return %[[X]]
func.func @neutral(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = graph.constant splat 1.0 : tensor<3xf32>
  %m = graph.mul %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %m : tensor<3xf32>
}

// BAD: option 'ignore-nan' of pass 'canonicalize-graph' expects true or false, got 'maybe'
