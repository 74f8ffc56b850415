"""The loop dialect: builders, verifiers, ABI attribute, memory effects."""

import pytest
from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IndexType, MemRefType, ModuleOp, TensorType, f32, i8
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind, get_effects
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.loop import (
    DriverABIAttr,
    ForOp,
    LoadOp,
    StoreOp,
    ViewOp,
    build_for,
    get_driver_abi,
    index_constant,
    set_driver_abi,
)


def make_func(arg_types):
    block = Block(arg_types=arg_types)
    fn = func.FuncOp("f", (arg_types, []), Region(block))
    return fn, block


def test_build_for_rowsum_verifies():
    a_t, o_t = MemRefType(f32, [4, 8]), MemRefType(f32, [4])
    fn, block = make_func([a_t, o_t])
    a, out = block.args
    b = Builder(InsertPoint.at_end(block))

    def outer(bi, i, _):
        zero = bi.insert(arith.ConstantOp(FloatAttr(0.0, f32))).result

        def inner(bj, j, args):
            x = bj.insert(LoadOp(a, [i, j])).res
            return [bj.insert(arith.AddfOp(args[0], x)).result]

        r = build_for(bi, 0, 8, 1, [zero], inner)
        bi.insert(StoreOp(r.results[0], out, [i]))

    loop = build_for(b, 0, 4, body=outer)
    b.insert(func.ReturnOp())
    ModuleOp([fn]).verify()
    assert isinstance(loop, ForOp) and not loop.results
    inner_loop = next(op for op in loop.body.block.ops if isinstance(op, ForOp))
    assert inner_loop.results[0].type == f32
    assert inner_loop.induction_var.type == IndexType()
    assert len(inner_loop.region_iter_args) == 1


def test_index_constant():
    fn, block = make_func([])
    v = index_constant(Builder(InsertPoint.at_end(block)), 7)
    assert v.type == IndexType()


def test_yield_type_mismatch():
    fn, block = make_func([IndexType(), f32])
    lb, z = block.args
    loop = ForOp.build_loop(lb, lb, lb, [z], lambda b, iv, args: [iv])
    block.add_ops([loop, func.ReturnOp()])
    with pytest.raises(VerifyException, match="loop.yield value #0 has type index"):
        loop.verify()


def test_load_store_checks():
    fn, block = make_func([MemRefType(f32, [4, 4]), IndexType()])
    m, i = block.args
    load = LoadOp(m, [i])
    block.add_ops([load, func.ReturnOp()])
    with pytest.raises(VerifyException, match="expects 2 indices"):
        load.verify()


def test_view_fits():
    fn, block = make_func([MemRefType(i8, [64])])
    ok = ViewOp(block.args[0], 32, MemRefType(f32, [8]))
    bad = ViewOp(block.args[0], 36, MemRefType(f32, [8]))
    block.add_ops([ok, bad, func.ReturnOp()])
    ok.verify()
    assert ok.byte_offset == 32
    with pytest.raises(VerifyException, match="does not fit"):
        bad.verify()


def test_memory_effects():
    fn, block = make_func([MemRefType(f32, [4]), IndexType(), f32])
    m, i, v = block.args
    load, store = LoadOp(m, [i]), StoreOp(v, m, [i])
    view_fn, vblock = make_func([MemRefType(i8, [64])])
    view = ViewOp(vblock.args[0], 0, MemRefType(f32, [4]))
    assert {e.kind for e in get_effects(load)} == {MemoryEffectKind.READ}
    assert {e.kind for e in get_effects(store)} == {MemoryEffectKind.WRITE}
    assert get_effects(view) == set()
    loop = ForOp.build_loop(i, i, i, [], lambda b, iv, a: b.insert(StoreOp(v, m, [iv])) and None)
    assert {e.kind for e in get_effects(loop)} == {MemoryEffectKind.WRITE}


def test_driver_abi_helpers():
    fn, _ = make_func([])
    assert get_driver_abi(fn) is None
    t = TensorType(f32, [4])
    set_driver_abi(fn, DriverABIAttr([("x", t), ("", t)], [("y", t)], 4096))
    abi = get_driver_abi(fn)
    assert abi is not None
    assert (abi.num_inputs, abi.num_outputs, abi.workspace_bytes.data) == (2, 1, 4096)
    text = '#loop.abi<inputs = ["x" : tensor<4xf32>, "" : tensor<4xf32>], outputs = ["y" : tensor<4xf32>], workspace = 4096>'
    assert text in str(fn)
