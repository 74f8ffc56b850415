"""lowering.op_builder builds the op IRDL's constructor builds (same operands,
uses, results, properties in the same order, attributes, successors), and the
kernel emitter's direct path shares CSE and folds with its ``emit`` path."""

from __future__ import annotations

from xdsl.dialects import arith, llvm, memref, scf, vector
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IndexType, MemRefType, VectorType, f32, i64
from xdsl.ir import Block, Region
from xdsl.utils.test_value import create_ssa_value

from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.op_builder import attach, build

INDEX = IndexType()
VT = VectorType(f32, [8])


def _same(a, b) -> None:
    assert type(a) is type(b)
    assert list(a.operands) == list(b.operands)
    assert [r.type for r in a.results] == [r.type for r in b.results]
    assert [r.op for r in a.results] == [a] * len(a.results) and [r.index for r in a.results] == list(range(len(a.results)))
    assert list(a.properties.items()) == list(b.properties.items())
    assert a.attributes == b.attributes and a.location == b.location
    assert list(a.successors) == list(b.successors) and len(a.regions) == len(b.regions)
    for i, v in enumerate(a.operands):
        assert any(u.operation is a and u.index == i for u in v.uses)
    assert str(a) == str(b)


def test_build_equals_irdl_constructor():
    i, j = create_ssa_value(INDEX), create_ssa_value(INDEX)
    x, v = create_ssa_value(f32), create_ssa_value(VT)
    m = create_ssa_value(MemRefType(f32, [4, 8]))
    mask = DenseArrayBase.from_list(i64, [1, 0, 3, 2, 5, 4, 7, 6])
    pairs = [
        (arith.AddiOp(i, j), (arith.AddiOp, (i, j), (INDEX,))),
        (arith.MuliOp(i, j), (arith.MuliOp, (i, j), (INDEX,))),
        (arith.RemUIOp(i, j), (arith.RemUIOp, (i, j), (INDEX,))),
        (arith.AddfOp(v, v), (arith.AddfOp, (v, v), (VT,))),
        (arith.ConstantOp(FloatAttr(2.0, f32), f32), (arith.ConstantOp, (), (f32,), {"value": FloatAttr(2.0, f32)})),
        (vector.FMAOp(v, v, v), (vector.FMAOp, (v, v, v), (VT,))),
        (vector.BroadcastOp(x, VT), (vector.BroadcastOp, (x,), (VT,))),
        (vector.ShuffleOp(v, v, mask, result_type=VT), (vector.ShuffleOp, (v, v), (VT,), {"mask": mask})),
        (vector.LoadOp(m, [i, j], VT), (vector.LoadOp, (m, i, j), (VT,))),
        (vector.StoreOp(v, m, [i, j]), (vector.StoreOp, (v, m, i, j))),
        (memref.LoadOp.get(m, [i, j]), (memref.LoadOp, (m, i, j), (f32,))),
        (memref.StoreOp.get(x, m, [i, j]), (memref.StoreOp, (x, m, i, j))),
        (scf.YieldOp(i), (scf.YieldOp, (i,))),
        (llvm.AddOp(create_ssa_value(i64), create_ssa_value(i64)), None),
    ]
    for irdl, args in pairs:
        if args is None:  # operands of their own: built from the same ones
            a, b = irdl.operands
            args = (llvm.AddOp, (a, b), (i64,), {"overflowFlags": irdl.properties["overflowFlags"]})
        _same(build(*args), irdl)
    body = Block(arg_types=[INDEX])
    loop = build(scf.ForOp, (i, j, j), (), regions=[Region(body)])
    assert loop.body.block is body and loop.body.parent is loop
    br = build(llvm.BrOp, (), successors=(body,))
    assert list(br.successors) == [body] and body.uses.get_length() == 1


def test_attach_links_as_block_insertion_does():
    i = create_ssa_value(INDEX)
    fast, slow = Block(), Block()
    ops = [[arith.AddiOp(i, i) for _ in range(4)] for _ in range(2)]
    for block, (a, b, c, d), put in ((fast, ops[0], "attach"), (slow, ops[1], "xdsl")):
        if put == "attach":
            attach(block, a), attach(block, c), attach(block, b, c), attach(block, d, a)
        else:
            block.add_op(a), block.add_op(c), block.insert_op_before(b, c), block.insert_op_before(d, a)
    order = [[ops[k].index(op) for op in block.ops] for k, block in enumerate((fast, slow))]
    assert order[0] == order[1] == [3, 0, 1, 2]
    assert [op.parent for op in fast.ops] == [fast] * 4
    listed = list(fast.ops)
    assert [op.prev_op for op in listed] == [None, *listed[:-1]]
    assert fast.first_op is listed[0] and fast.last_op is listed[-1]


def test_emitter_direct_path_shares_cse_and_folds_with_emit():
    m = create_ssa_value(MemRefType(f32, [4, 8]))
    entry = Block(arg_types=[INDEX])
    em = KernelEmitter(entry, {})
    n = entry.args[0]
    slow = em.emit(arith.AddiOp(n, em.index(3))).results[0]
    assert em.idx_add(n, em.index(3)) is slow  # the direct path finds the op emit() made
    assert em.constant_of[em.idx_mul(em.index(6), 7)] == 42  # folded, never built
    before = len(list(entry.ops))
    a = em.splat(em.scalar_constant(1.0, f32), VT)
    assert em.fma(a, a, a) is em.fma(a, a, a) and em.addf(a, a) is em.addf(a, a)
    assert em.shuffle(a, a, [1, 0] * 4, VT) is em.shuffle(a, a, [1, 0] * 4, VT)
    assert len(list(entry.ops)) == before + 5  # constant, broadcast, fma, addf, shuffle
    # Effects are never merged: two vector loads of a written buffer stay two.
    assert em.vload(m, [n, n], VT) is not em.vload(m, [n, n], VT)
    shuffle = [op for op in entry.ops if isinstance(op, vector.ShuffleOp)][0]
    assert shuffle.properties["mask"] == DenseArrayBase.from_list(i64, [1, 0] * 4)
