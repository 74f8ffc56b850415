// CHECK: only one-dimensional scf.parallel loops without reductions; this one has 2 dimension(s)
func.func private @two_dims(%o: memref<4x4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  "scf.parallel"(%c0, %c0, %c4, %c4, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    memref.store %v, %o[%i, %j] : memref<4x4xf32>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return
}
