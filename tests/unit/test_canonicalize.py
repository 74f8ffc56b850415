"""Canonicalization patterns: results equal numpy, types never change."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Commutative
from xdsl.transforms.canonicalize import CanonicalizePass

from graphopt.dialects import graph
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from graphopt.transforms import canonicalize_patterns
from graphopt.rules import CANONICALIZATION
from graphopt.dialects.graph import BinaryBroadcastOp, GraphCanonicalization
from graphopt.dialects.traits import NeutralElement
from graphopt.transforms.canonicalize_graph import CanonicalizeGraphPass
from graphopt.transforms.canonicalize_patterns import trait_patterns

RNG = np.random.default_rng(5)


def inputs_for(module):
    fn = module.body.block.first_op
    out = []
    for t in fn.function_type.inputs.data:
        shape = tuple(t.get_shape())
        dt = t.element_type
        if str(dt).startswith("i"):
            out.append(RNG.integers(-5, 5, shape).astype(np.int32 if str(dt) == "i32" else np.int64))
        else:
            out.append(RNG.standard_normal(shape).astype(np.float32))
    return out


def graph_ops(module):
    return [op.name for op in module.walk() if op.name.startswith("graph.")]


def test_patterns_register_on_first_lookup() -> None:
    assert CANONICALIZATION.lookup_all(graph.AddOp)
    assert CANONICALIZATION.lookup_all(graph.TransposeOp)


def test_traits_give_the_algebraic_patterns() -> None:
    """The generic patterns come from the op's traits, on every lookup path."""
    (canon,) = graph.AddOp.get_traits_of_type(GraphCanonicalization)
    names = {type(p).__name__ for p in canon.get_patterns(graph.AddOp)}
    assert names == {"TraitCanonicalization"}
    names = {type(p).__name__ for p in trait_patterns(graph.AddOp)}
    assert names == {"NeutralOperand"}
    names = {type(p).__name__ for p in trait_patterns(graph.MulOp)}
    assert names == {"NeutralOperand", "AbsorbingOperand"}
    assert trait_patterns(graph.ExpOp) == ()


@pytest.mark.parametrize(
    "build, remaining",
    [
        (lambda b, x: b.add(x, b.splat((8,), 0.0)), []),
        (lambda b, x: b.mul(b.splat((4, 8), 1.0), x), []),
        (lambda b, x: b.div(x, b.splat((), 1.0)), []),
        (lambda b, x: b.sub(x, b.splat((1, 8), 0.0)), []),
        (lambda b, x: b.neg(b.neg(x)), []),
        (lambda b, x: b.relu(b.relu(x)), ["graph.relu"]),
        (lambda b, x: b.transpose(b.transpose(x, [1, 0]), [1, 0]), []),
        (lambda b, x: b.reshape(b.reshape(x, (32,)), (8, 4)), ["graph.reshape"]),
        (lambda b, x: b.mul(x, b.splat((4, 8), 0.0)), ["graph.constant", "graph.mul"]),
        (lambda b, x: b.sub(x, x), ["graph.sub"]),
        (lambda b, x: b.add(x, b.splat((2, 4, 8), 0.0)), ["graph.constant", "graph.add"]),
    ],
)
def test_pattern_results(build, remaining) -> None:
    b = GraphBuilder("f")
    x = b.input((4, 8))
    module = b.build(build(b, x))
    out_type = module.body.block.first_op.function_type.outputs.data[0]
    x_val = inputs_for(module)
    want = interpret(module, *x_val)
    CanonicalizePass().apply(Context(), module)
    module.verify()
    assert module.body.block.first_op.function_type.outputs.data[0] == out_type
    assert graph_ops(module) == remaining
    np.testing.assert_array_equal(interpret(module, *x_val)[0], want[0])


def test_integer_zero_algebra() -> None:
    b = GraphBuilder("f")
    i = b.input((3, 4), np.int64)
    module = b.build(b.mul(i, b.splat((4,), 0, dtype=i.type.element_type)), b.sub(i, i))
    x = inputs_for(module)
    want = interpret(module, *x)
    CanonicalizePass().apply(Context(), module)
    assert [n for n in graph_ops(module) if n != "graph.constant"] == []
    for g, w in zip(interpret(module, *x), want):
        np.testing.assert_array_equal(g, w)


def test_float_zero_algebra_keeps_nan() -> None:
    b = GraphBuilder("f")
    x = b.input((3,))
    module = b.build(b.mul(x, b.splat((3,), 0.0)), b.sub(x, x))
    CanonicalizePass().apply(Context(), module)
    vals = np.array([np.nan, np.inf, 1.0], np.float32)
    prod, diff = interpret(module, vals)
    assert np.isnan(prod[:2]).all() and np.isnan(diff[:2]).all()


def test_fast_math_option() -> None:
    b = GraphBuilder("f")
    x = b.input((3,))
    module = b.build(b.mul(x, b.splat((3,), 0.0)))
    CanonicalizeGraphPass(ignore_nan=True).apply(Context(), module)
    assert graph_ops(module) == ["graph.constant"]


@pytest.mark.parametrize(
    "build, want, remaining",
    [
        # inference dropout is the identity; training dropout stays
        (lambda b, x: b.dropout(x, rate=0.5, seed=3), lambda x: x, []),
        (lambda b, x: b.dropout(x, rate=0.5, seed=3, training=True), None, ["graph.dropout"]),
        # full slices, however written; a reversal of the same shape stays
        (lambda b, x: b.slice(x, [-4, -100], [4, 1000]), lambda x: x, []),
        (lambda b, x: b.slice(x, [-8], [2**62], axes=[-1], steps=[1]), lambda x: x, []),
        (lambda b, x: b.slice(x, [-1], [-1000], axes=[0], steps=[-1]), lambda x: x[::-1], ["graph.slice"]),
        # a pad by zero is the identity whatever its value; a real pad stays
        (lambda b, x: b.pad(x, [0, 0, 0, 0], value=5.0), lambda x: x, []),
        (lambda b, x: b.pad(x, [0, 1, 0, 0], value=5.0), lambda x: np.pad(x, ((0, 0), (1, 0)), constant_values=5.0), ["graph.pad"]),
    ],
)
def test_identity_patterns(build, want, remaining) -> None:
    b = GraphBuilder("f")
    x = b.input((4, 8))
    module = b.build(build(b, x))
    x_val = inputs_for(module)
    before = interpret(module, *x_val)[0]
    CanonicalizePass().apply(Context(), module)
    module.verify()
    assert graph_ops(module) == remaining
    after = interpret(module, *x_val)[0]
    np.testing.assert_array_equal(after, before)
    if want is not None:
        np.testing.assert_array_equal(after, want(x_val[0]))


def test_size_one_reversal_is_the_identity() -> None:
    b = GraphBuilder("f")
    y = b.input((1, 8))
    module = b.build(b.slice(y, [-1, 0], [-100, 8], steps=[-1, 1]))
    CanonicalizePass().apply(Context(), module)
    assert graph_ops(module) == []
    v = RNG.standard_normal((1, 8)).astype(np.float32)
    np.testing.assert_array_equal(interpret(module, v)[0], v)


@irdl_op_definition
class PlusOp(BinaryBroadcastOp):
    """A plugin-style op that is addition only by its declared facts."""

    name = "test.plus"
    traits = traits_def(Commutative(), NeutralElement(0))
    NUMPY_FN = staticmethod(np.add)


def test_a_plugin_op_gets_the_patterns_its_traits_call_for() -> None:
    b = GraphBuilder("f")
    x = b.input((4,))
    kept = b.apply(PlusOp(x, b.splat((4,), 1.0)))
    module = b.build(b.apply(PlusOp(b.splat((4,), 0.0), x)), kept)
    CanonicalizePass().apply(Context(), module)
    fn = module.body.block.first_op
    ret = fn.body.block.last_op
    assert ret.operands[0] is fn.body.block.args[0]
    assert [op.name for op in fn.body.block.ops if op.name == "test.plus"] == ["test.plus"]
