// RUN: graph-opt -p convert-cf-to-llvm %s | filecheck %s

// CHECK-LABEL: func.func @loop
func.func @loop(%n: i64, %x: f32) -> f32 {
  // CHECK: %[[Z:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
  // CHECK: llvm.br ^[[H:.*]](%[[Z]], %{{.*}} : i64, f32)
  %c0 = arith.constant 0 : index
  cf.br ^h(%c0, %x : index, f32)
// The target block's index argument becomes i64; its users see a cast.
// CHECK: ^[[H]](%[[I:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK-NEXT: %{{.*}} = builtin.unrealized_conversion_cast %[[I]] : i64 to index
^h(%i: index, %acc: f32):
  %ii = arith.index_cast %i : index to i64
  %c = arith.cmpi slt, %ii, %n : i64
  // CHECK: llvm.cond_br %{{.*}}, ^[[B:.*]], ^[[E:.*]]
  cf.cond_br %c, ^b, ^e
^b:
  %c1 = arith.constant 1 : index
  %next = arith.addi %i, %c1 : index
  %s = arith.addf %acc, %x : f32
  cf.br ^h(%next, %s : index, f32)
^e:
  func.return %acc : f32
}
