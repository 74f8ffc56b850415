"""KernelEmitter makes no op it can avoid: index arithmetic on constants
folds, equal pure ops are one, one-trip loops are straight code -- and what
depends on a one-trip index (a load of a buffer the kernel writes) is still
emitted after the stores it must see."""

from __future__ import annotations

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import MemRefType, f32
from xdsl.ir import Block

from graphopt.lowering.kernel_emitter import KernelEmitter


def emitter(*shapes: list[int]) -> tuple[KernelEmitter, Block]:
    entry = Block(arg_types=[MemRefType(f32, s) for s in shapes])
    return KernelEmitter(entry, {}), entry


def test_index_arithmetic_on_constants_folds() -> None:
    em, entry = emitter([4])
    nine = em.idx_add(em.index(8), em.index(1))
    assert em.constant_of[nine] == 9 and nine is em.index(9)
    assert em.constant_of[em.idx_mul(em.index(3), 256)] == 768
    assert em.constant_of[em.idx_div(em.index(17), 4)] == 4
    assert em.constant_of[em.idx_rem(em.index(17), 4)] == 1
    assert em.constant_of[em.emit(arith.SubiOp(em.index(2), em.index(5))).results[0]] == -3
    assert not any(isinstance(op, arith.AddiOp | arith.MuliOp | arith.DivUIOp | arith.RemUIOp | arith.SubiOp)
                   for op in entry.ops)
    # The dropped ops left no uses behind.
    assert all(not op.results[0].uses for op in entry.ops)


def test_identities_and_cse() -> None:
    em, entry = emitter([16])
    seen = []

    def body(i):
        assert em.idx_add(i, em.index(0)) is i and em.idx_mul(i, 1) is i
        a, b = em.idx_mul(i, 4), em.idx_mul(i, 4)
        assert a is b
        assert em.idx_add(em.index(2), a) is em.idx_add(a, em.index(2))
        seen.append(a)

    em.loop(16, body)
    (loop,) = [op for op in entry.ops if isinstance(op, scf.ForOp)]
    assert sum(isinstance(op, arith.MuliOp) for op in loop.body.walk()) == 1
    assert sum(isinstance(op, arith.AddiOp) for op in loop.body.walk()) == 1


def test_one_trip_loops_are_straight() -> None:
    em, entry = emitter([1, 8], [1, 8])
    src, dst = entry.args
    em.loop(1, lambda i: em.loop(8, lambda j: em.store(em.load(src, [i, j]), dst, [i, j])))
    (acc,) = em.reduce([1], [em.scalar_constant(0.0, f32)], lambda ivs, accs: [em.load(src, [ivs[0], ivs[0]])])
    loops = [op for op in entry.walk() if isinstance(op, scf.ForOp)]
    assert [em.constant_of.get(op.ub) for op in loops] == [8]
    assert isinstance(acc.owner, memref.LoadOp)
    # The reduction's one index is the constant 0.
    assert [em.constant_of.get(v) for v in acc.owner.indices] == [0, 0]


def test_one_trip_index_keeps_loads_after_stores() -> None:
    """A tile written in a loop and read back at a one-trip index: the read
    stays in the loop after the write, where the one-trip loop kept it (at
    the shared constant 0 it would be hoisted out, above every write)."""
    em, entry = emitter([4], [1], [4])
    src, tile, out = entry.args

    def row(i):
        em.loop(1, lambda c: em.store(em.load(src, [i]), tile, [c]))
        em.loop(1, lambda c: em.store(em.load(tile, [c]), out, [i]))

    em.loop(4, row)
    (loop,) = [op for op in entry.ops if isinstance(op, scf.ForOp)]
    accesses = [(type(op), op.memref) for op in loop.body.block.ops if isinstance(op, memref.LoadOp | memref.StoreOp)]
    assert accesses == [
        (memref.LoadOp, src), (memref.StoreOp, tile), (memref.LoadOp, tile), (memref.StoreOp, out)
    ]
    assert not any(isinstance(op, memref.LoadOp) for op in entry.ops)
