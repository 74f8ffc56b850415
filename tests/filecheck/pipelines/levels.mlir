// Named pipelines: -O0 .. -O3, `default`, and -p after -O.
// RUN: graph-opt -O0 %s | filecheck %s --check-prefix=NOOPT
// RUN: graph-opt -O1 %s | filecheck %s --check-prefix=OPT
// RUN: graph-opt -O2 %s | filecheck %s --check-prefix=FUSED
// RUN: graph-opt -O3 %s | filecheck %s --check-prefix=FUSED
// RUN: graph-opt -p default %s | filecheck %s --check-prefix=FUSED
// RUN: graph-opt -p 'O1' %s | filecheck %s --check-prefix=OPT
// RUN: graph-opt -O2 -p decompose %s | filecheck %s --check-prefix=THEN
// RUN: graph-opt -O1 --pass-statistics %s 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// Untouched at -O0.
// NOOPT-LABEL: func.func @f
// NOOPT: graph.mul
// NOOPT: graph.neg
// NOOPT: graph.neg
// NOOPT: graph.exp
// NOOPT: graph.exp

// -O1: folded, simplified, merged, swept; nothing fused.
// OPT-LABEL: func.func @f
// OPT-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// OPT-NOT:  fused.group
// OPT-NOT:  graph.mul
// OPT-NOT:  graph.neg
// OPT:      %[[E:.*]] = graph.exp %[[X]]
// OPT-NOT:  graph.exp
// OPT-NOT:  fused.group
// OPT:      %[[S:.*]] = graph.add %[[E]], %[[E]]
// OPT-NOT:  fused.group
// OPT:      %[[P:.*]] = graph.softmax %[[S]]
// OPT-NOT:  fused.group
// OPT:      func.return %[[P]]

// -O2 (= default) and -O3: the same, then exp and add fuse into one group.
// FUSED-LABEL: func.func @f
// FUSED-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// FUSED-NOT:  graph.mul
// FUSED-NOT:  graph.neg
// FUSED:      %[[G:.*]] = fused.group "{{.*}}" pattern(elemwise) (%[[A:.*]] = %[[X]] : tensor<4x8xf32>)
// FUSED-NEXT:   %[[E:.*]] = graph.exp %[[A]]
// FUSED-NEXT:   %[[S:.*]] = graph.add %[[E]], %[[E]]
// FUSED-NEXT:   fused.yield %[[S]]
// FUSED-NOT:  graph.exp
// FUSED:      %[[P:.*]] = graph.softmax %[[G]]
// FUSED:      func.return %[[P]]

// -O2 -p decompose: O2 first, then decompose the softmax.
// THEN-LABEL: func.func @f
// THEN-NOT: graph.softmax
// THEN:     graph.reduce_max

// STATS:      ===- Pass statistics -===
// STATS-NEXT: pass{{.*}}before{{.*}}after{{.*}}erased{{.*}}created
// STATS-NEXT: fold-constants {{.*}} folded=1
// STATS-NEXT: canonicalize
// STATS-NEXT: cse
// STATS-NEXT: dce

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %half = graph.constant splat 0.5 : tensor<8xf32>
  %two = graph.constant splat 2.0 : tensor<8xf32>
  %one = graph.mul %half, %two : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = graph.mul %x, %one : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %n = graph.neg %y : tensor<4x8xf32>
  %m = graph.neg %n : tensor<4x8xf32>
  %a = graph.exp %m : tensor<4x8xf32>
  %b = graph.exp %m : tensor<4x8xf32>
  %dead = graph.tanh %a : tensor<4x8xf32>
  %s = graph.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = graph.softmax %s {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %p : tensor<4x8xf32>
}
