"""Reference semantics of every core graph op against direct numpy, and the
result-type inference and error messages of the ops' builders."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import (
    BinaryBroadcastOp,
    broadcast_shapes,
    element_type_of,
    f32,
    f64,
    i1,
    i32,
    tensor,
)
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from op_check import RandomArrays, assert_matches, build_module

rand = RandomArrays(20240607)


def run(build: Callable[..., object], *inputs: np.ndarray) -> list[np.ndarray]:
    """Build a one-function module over ``inputs`` and run it on them."""
    return interpret(build_module(lambda b, args: build(b, *args), inputs), *inputs)


def run1(build: Callable[..., object], *inputs: np.ndarray) -> np.ndarray:
    (out,) = run(build, *inputs)
    return out


def result_type(build: Callable[..., object], *types: TensorType) -> TensorType:
    """The result type a builder infers for arguments of ``types``."""
    b = GraphBuilder("f")
    args = [b.input(t.get_shape(), t.element_type) for t in types]
    value = build(b, *args)
    assert isinstance(value.type, TensorType)
    return value.type


def assert_same(got: np.ndarray, want: np.ndarray, rtol: float = 1e-6, atol: float = 0.0) -> None:
    assert_matches(got, want, rtol, atol)


def raises(message: str):
    """``pytest.raises(VerifyException)`` whose message is ``message`` (a
    module-level verify appends the annotated module after a blank line)."""
    return pytest.raises(VerifyException, match="^" + re.escape(message) + "(\n|$)")


# --------------------------------------------------------------------------
# elementwise, unary
# --------------------------------------------------------------------------

UNARY: list[tuple[str, Callable[[np.ndarray], np.ndarray]]] = [
    ("neg", np.negative),
    ("exp", np.exp),
    ("tanh", np.tanh),
    ("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x))),
    ("relu", lambda x: np.maximum(x, 0)),
]


@pytest.mark.parametrize("name,fn", UNARY, ids=[n for n, _ in UNARY])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4)])
def test_unary(name: str, fn, dtype, shape) -> None:
    x = rand(shape, dtype)
    got = run1(lambda b, a: getattr(b, name)(a), x)
    want = fn(x.astype(np.float64)).astype(dtype)
    assert_same(got, want, rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-7)


@pytest.mark.parametrize("name,fn", [("log", np.log), ("sqrt", np.sqrt)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_positive_domain(name: str, fn, dtype) -> None:
    x = (np.abs(rand((4, 9), dtype)) + 0.1).astype(dtype)
    assert_same(run1(lambda b, a: getattr(b, name)(a), x), fn(x))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_neg_and_relu(dtype) -> None:
    x = np.array([[-3, 0, 5], [7, -1, 2]], dtype=dtype)
    assert_same(run1(lambda b, a: b.neg(a), x), -x)
    assert_same(run1(lambda b, a: b.relu(a), x), np.maximum(x, 0).astype(dtype))


def test_unary_special_values() -> None:
    x = np.array([0.0, -1.0, np.inf, -np.inf, np.nan], np.float32)
    log = run1(lambda b, a: b.log(a), x)
    np.testing.assert_array_equal(log[:1], [-np.inf])
    assert np.isnan(log[1]) and log[2] == np.inf and np.isnan(log[3]) and np.isnan(log[4])
    relu = run1(lambda b, a: b.relu(a), x)
    np.testing.assert_array_equal(relu[:4], [0.0, 0.0, np.inf, 0.0])
    assert np.isnan(relu[4])


def test_sigmoid_saturates_without_overflow() -> None:
    x = np.array([-1000.0, -100.0, 0.0, 100.0, 1000.0], np.float32)
    with np.errstate(all="raise"):
        got = run1(lambda b, a: b.sigmoid(a), x)
    np.testing.assert_allclose(got, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-30)
    assert got.dtype == np.float32


@pytest.mark.parametrize("name", ["neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu"])
def test_unary_result_type(name: str) -> None:
    t = tensor((2, 3), f64)
    assert result_type(lambda b, a: getattr(b, name)(a), t) == t


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid"])
def test_float_only_unary_rejects_integers(name: str) -> None:
    b = GraphBuilder()
    x = b.input((4,), np.int32)
    getattr(b, name)(x)
    with raises(f"graph.{name}: operand #0 has element type i32, expected one of f32, f64"):
        b.build()


# --------------------------------------------------------------------------
# elementwise, binary with broadcasting
# --------------------------------------------------------------------------

BINARY: list[tuple[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]] = [
    ("add", np.add),
    ("sub", np.subtract),
    ("mul", np.multiply),
    ("div", np.divide),
    ("maximum", np.maximum),
]

BROADCAST_CASES = [
    ((4, 3), (4, 3)),
    ((4, 3), (3,)),  # rank promotion of the rhs
    ((3,), (4, 3)),  # rank promotion of the lhs
    ((4, 1), (1, 3)),  # size-1 dims on both sides
    ((4, 1), (3,)),
    ((1, 3), (4, 1)),
    ((2, 1, 3), (4, 1)),  # rank promotion and size-1 dims together
    ((), (2, 3)),  # 0-d lhs
    ((2, 3), ()),  # 0-d rhs
    ((), ()),  # both 0-d
    ((1,), ()),
    ((0, 3), (1, 3)),  # empty tensors broadcast too
    ((1,), (0,)),
]


@pytest.mark.parametrize("name,fn", BINARY, ids=[n for n, _ in BINARY])
@pytest.mark.parametrize("lhs,rhs", BROADCAST_CASES, ids=[f"{l}-{r}" for l, r in BROADCAST_CASES])
def test_binary_broadcasting(name: str, fn, lhs, rhs) -> None:
    a, c = rand(lhs), rand(rhs)
    if name == "div":
        c = np.where(np.abs(c) < 0.1, np.float32(1.0), c).astype(np.float32)
    got = run1(lambda b, x, y: getattr(b, name)(x, y), a, c)
    want = fn(a, c)
    assert_same(got, np.asarray(want, np.float32))
    assert result_type(lambda b, x, y: getattr(b, name)(x, y), tensor(lhs), tensor(rhs)) == tensor(
        np.broadcast_shapes(lhs, rhs)
    )


@pytest.mark.parametrize("name,fn", [b for b in BINARY if b[0] != "div"], ids=["add", "sub", "mul", "maximum"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_binary_integers(name: str, fn, dtype) -> None:
    a, c = rand((3, 4), dtype), rand((4,), dtype)
    got = run1(lambda b, x, y: getattr(b, name)(x, y), a, c)
    assert_same(got, fn(a, c).astype(dtype))


def test_binary_f64_keeps_precision() -> None:
    a = np.array([1.0, 1e-17], np.float64)
    c = np.array([1e-16, 1.0], np.float64)
    assert_same(run1(lambda b, x, y: b.add(x, y), a, c), a + c, rtol=0)


def test_maximum_propagates_nan() -> None:
    a = np.array([np.nan, 1.0, 2.0], np.float32)
    c = np.array([0.0, np.nan, 1.0], np.float32)
    got = run1(lambda b, x, y: b.maximum(x, y), a, c)
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == 2.0


def test_div_by_zero_is_ieee() -> None:
    a = np.array([1.0, -1.0, 0.0], np.float32)
    c = np.zeros(3, np.float32)
    got = run1(lambda b, x, y: b.div(x, y), a, c)
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


@settings(max_examples=60, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4),
    name=st.sampled_from(["add", "mul", "maximum"]),
    data=st.data(),
)
def test_binary_matches_numpy_on_random_broadcastable_shapes(shapes, name, data) -> None:
    lhs, rhs = shapes.input_shapes
    elements = st.floats(-100, 100, width=32)
    a = data.draw(hnp.arrays(np.float32, lhs, elements=elements), label="a")
    c = data.draw(hnp.arrays(np.float32, rhs, elements=elements), label="b")
    got = run1(lambda b, x, y: getattr(b, name)(x, y), a, c)
    want = dict(add=np.add, mul=np.multiply, maximum=np.maximum)[name](a, c)
    assert got.shape == shapes.result_shape
    assert_same(got, np.asarray(want, np.float32))


@settings(max_examples=200, deadline=None)
@given(
    lhs=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3),
    rhs=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3),
)
def test_broadcast_inference_agrees_with_numpy(lhs, rhs) -> None:
    """Inference succeeds exactly when numpy broadcasts, with numpy's shape."""
    try:
        want = np.broadcast_shapes(lhs, rhs)
    except ValueError:
        with pytest.raises(VerifyException, match="graph.add: shapes are not broadcastable"):
            graph.AddOp.infer_type(tensor(lhs), tensor(rhs))
    else:
        assert graph.AddOp.infer_type(tensor(lhs), tensor(rhs)) == tensor(want)
        assert broadcast_shapes("graph.add", lhs, rhs) == tuple(want)


def test_broadcast_error_names_both_shapes() -> None:
    b = GraphBuilder()
    x, y = b.input((4, 3)), b.input((4,))
    with raises("graph.add: shapes are not broadcastable (4x3 vs 4)"):
        b.add(x, y)
    with raises("graph.mul: shapes are not broadcastable (scalar vs 2x3 vs 3x3)"):
        broadcast_shapes("graph.mul", (), (2, 3), (3, 3))


def test_binary_element_types_differ() -> None:
    b = GraphBuilder()
    x, y = b.input((4,), np.float32), b.input((4,), np.float64)
    with raises("graph.sub: element types differ (f32 vs f64)"):
        b.sub(x, y)


def test_binary_rejects_non_tensor_and_dynamic_operands() -> None:
    block = Block(arg_types=[f32, tensor((4,)), TensorType(f32, [DYNAMIC_INDEX, 4])])
    scalar, vec, dyn = block.args
    with raises("graph.add: lhs must be a tensor, got f32"):
        graph.AddOp(scalar, vec)
    with raises("graph.mul: rhs must have a static shape, got tensor<?x4xf32>"):
        graph.MulOp(vec, dyn)
    with raises("graph.matmul: rhs must be a tensor, got f32"):
        graph.MatmulOp(vec, scalar)


def test_div_and_bool_element_types() -> None:
    b = GraphBuilder()
    x = b.input((4,), np.int32)
    b.div(x, x)
    with raises("graph.div: operand #0 has element type i32, expected one of f32, f64"):
        b.build()
    b = GraphBuilder()
    p = b.input((4,), np.bool_)
    b.add(p, p)
    with raises("graph.add: operand #0 has element type i1, expected one of f32, f64, i32, i64"):
        b.build()


# --------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------

MATMUL_CASES = [
    ((8, 16), (16, 4)),
    ((1, 5), (5, 1)),
    ((3, 4, 8), (3, 8, 5)),  # batched
    ((2, 1, 4, 8), (3, 8, 5)),  # size-1 batch dim against 3, missing leading dim
    ((4, 8), (2, 8, 5)),  # 2-D lhs against batched rhs
    ((2, 3, 4, 8), (8, 5)),  # batched lhs against 2-D rhs
    ((1, 3, 2, 2), (4, 1, 2, 2)),
]


@pytest.mark.parametrize("lhs,rhs", MATMUL_CASES, ids=[f"{l}@{r}" for l, r in MATMUL_CASES])
def test_matmul(lhs, rhs) -> None:
    a, c = rand(lhs), rand(rhs)
    got = run1(lambda b, x, y: b.matmul(x, y), a, c)
    assert_same(got, np.matmul(a, c), rtol=1e-5, atol=1e-5)
    assert result_type(lambda b, x, y: b.matmul(x, y), tensor(lhs), tensor(rhs)) == tensor(
        np.matmul(a, c).shape
    )


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_matmul_other_element_types(dtype) -> None:
    a, c = rand((2, 3, 4), dtype), rand((4, 5), dtype)
    assert_same(run1(lambda b, x, y: b.matmul(x, y), a, c), np.matmul(a, c), rtol=1e-12)


def test_matmul_errors() -> None:
    b = GraphBuilder()
    with raises("graph.matmul: inner dimensions differ (8x16 vs 32x4)"):
        b.matmul(b.input((8, 16)), b.input((32, 4)))
    with raises("graph.matmul: operands must have rank >= 2 (8 vs 8x4)"):
        b.matmul(b.input((8,)), b.input((8, 4)))
    with raises("graph.matmul: operands must have rank >= 2 (4x4 vs scalar)"):
        b.matmul(b.input((4, 4)), b.input(()))
    with raises("graph.matmul: element types differ (f32 vs i32)"):
        b.matmul(b.input((2, 2)), b.input((2, 2), np.int32))
    with raises("graph.matmul: shapes are not broadcastable (2 vs 3)"):
        b.matmul(b.input((2, 4, 8)), b.input((3, 8, 5)))


# --------------------------------------------------------------------------
# layout: transpose, reshape
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape,perm",
    [((4, 8), None), ((4, 8), (1, 0)), ((2, 3, 4), None), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((), None), ((5,), (0,))],
)
def test_transpose(shape, perm) -> None:
    x = rand(shape)
    got = run1(lambda b, a: b.transpose(a, perm), x)
    want = np.transpose(x, perm)
    assert_same(got, want.copy(order="C"))
    assert got.flags["C_CONTIGUOUS"]
    assert result_type(lambda b, a: b.transpose(a, perm), tensor(shape)) == tensor(want.shape)


#: (input shape, a layout call on it, the one error it gives)
LAYOUT_ERRORS = [
    ((4, 3), lambda b, x: b.transpose(x, (0, 0)), "graph.transpose: perm [0, 0] is not a permutation of the 2 axes of 4x3"),
    ((4, 3), lambda b, x: b.transpose(x, (1, 0, 2)), "graph.transpose: perm [1, 0, 2] is not a permutation of the 2 axes of 4x3"),
    ((4, 3), lambda b, x: b.transpose(x, (-1, 0)), "graph.transpose: perm [-1, 0] is not a permutation of the 2 axes of 4x3"),
    ((2, 3), lambda b, x: b.reshape(x, (4, 2)), "graph.reshape: element counts differ (2x3 has 6, 4x2 has 8)"),
    ((2, 3), lambda b, x: b.reshape(x, (-1, -1)), "graph.reshape: invalid target shape [-1, -1]"),
    ((2, 3), lambda b, x: b.reshape(x, (-2, -3)), "graph.reshape: invalid target shape [-2, -3]"),
    ((2, 3), lambda b, x: b.reshape(x, (-1, 4)), "graph.reshape: cannot reshape 2x3 to [-1, 4]"),
    ((2, 3), lambda b, x: b.reshape(x, (0, -1)), "graph.reshape: cannot reshape 2x3 to [0, -1]"),
]  # fmt: skip


@pytest.mark.parametrize("shape,call,message", LAYOUT_ERRORS, ids=[m for _, _, m in LAYOUT_ERRORS])
def test_transpose_and_reshape_errors(shape, call, message: str) -> None:
    b = GraphBuilder()
    with raises(message):
        call(b, b.input(shape))


@pytest.mark.parametrize(
    "shape,target,want",
    [
        ((2, 3, 4), (6, 4), (6, 4)),
        ((2, 3, 4), (-1, 4), (6, 4)),
        ((2, 3, 4), (2, -1), (2, 12)),
        ((2, 3, 4), (-1,), (24,)),
        ((2, 3, 4), (4, -1, 2), (4, 3, 2)),
        ((1, 1), (), ()),
        ((), (1, 1, 1), (1, 1, 1)),
        ((), (-1,), (1,)),
        ((0, 3), (3, -1), (3, 0)),
    ],
)
def test_reshape(shape, target, want) -> None:
    x = rand(shape)
    got = run1(lambda b, a: b.reshape(a, target), x)
    assert_same(got, x.reshape(want))
    assert result_type(lambda b, a: b.reshape(a, target), tensor(shape)) == tensor(want)


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------

REDUCE: list[tuple[str, Callable[..., np.ndarray]]] = [
    ("reduce_sum", np.sum),
    ("reduce_mean", np.mean),
    ("reduce_max", np.max),
]

AXES = [None, (0,), (1,), (-1,), (-2,), (0, 2), (-1, 0), (0, 1, 2), ()]


def _np_axes(axes, rank):
    return tuple(range(rank)) if axes is None else tuple(axes)


@pytest.mark.parametrize("name,fn", REDUCE, ids=[n for n, _ in REDUCE])
@pytest.mark.parametrize("axes", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce(name: str, fn, axes, keepdims: bool) -> None:
    x = rand((2, 3, 4), np.float64)
    got = run1(lambda b, a: getattr(b, name)(a, axes, keepdims), x)
    want = fn(x, axis=_np_axes(axes, 3), keepdims=keepdims)
    assert_same(got, np.asarray(want), rtol=1e-12)
    assert result_type(lambda b, a: getattr(b, name)(a, axes, keepdims), tensor((2, 3, 4), f64)) == tensor(
        np.shape(want), f64
    )


@pytest.mark.parametrize("name,fn", [("reduce_sum", np.sum), ("reduce_max", np.max)])
def test_reduce_integers_keep_their_type(name: str, fn) -> None:
    x = rand((3, 5), np.int32)
    got = run1(lambda b, a: getattr(b, name)(a, (-1,)), x)
    assert_same(got, fn(x, axis=-1).astype(np.int32))


def test_reduce_mean_f32() -> None:
    x = rand((16, 33), np.float32)
    got = run1(lambda b, a: b.reduce_mean(a, (1,), True), x)
    assert got.dtype == np.float32 and got.shape == (16, 1)
    np.testing.assert_allclose(got, x.astype(np.float64).mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_reduce_of_scalar_and_default_axes() -> None:
    s = np.array(2.5, np.float32)
    assert_same(run1(lambda b, a: b.reduce_sum(a), s), s)
    x = rand((2, 3))
    got = run1(lambda b, a: b.reduce_max(a), x)
    assert_same(got, np.asarray(np.max(x)))


def test_reduce_sum_over_empty_axis_is_zero() -> None:
    x = np.zeros((0, 3), np.float32)
    assert_same(run1(lambda b, a: b.reduce_sum(a, (0,)), x), np.zeros(3, np.float32))


def test_reduce_errors() -> None:
    b = GraphBuilder()
    x = b.input((4, 3))
    with raises("graph.reduce_sum: axis 2 is out of range for rank 2"):
        b.reduce_sum(x, (2,))
    with raises("graph.reduce_mean: axis -3 is out of range for rank 2"):
        b.reduce_mean(x, (-3,))
    with raises("graph.reduce_max: repeated axis in [1, -1]"):
        b.reduce_max(x, (1, -1))


def test_reduce_max_over_empty_axis() -> None:
    b = GraphBuilder()
    x = b.input((0, 3))
    y = b.reduce_max(x, (0,))
    assert y.type == tensor((3,))
    with raises("graph.reduce_max: cannot reduce an empty axis"):
        b.build(y)


def test_reduce_mean_rejects_integers() -> None:
    b = GraphBuilder()
    b.reduce_mean(b.input((4,), np.int64))
    with raises("graph.reduce_mean: operand #0 has element type i64, expected one of f32, f64"):
        b.build()


# --------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------


def np_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


@pytest.mark.parametrize("shape,axis", [((8, 10), -1), ((8, 10), 0), ((2, 3, 4), 1), ((2, 3, 4), -3), ((5,), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax(shape, axis: int, dtype) -> None:
    x = rand(shape, dtype) * 5
    got = run1(lambda b, a: b.softmax(a, axis), x)
    assert_same(got, np_softmax(x, axis), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got.sum(axis=axis), 1.0, rtol=1e-5)


def test_softmax_is_stable_for_large_logits() -> None:
    x = np.array([[1000.0, 1000.0, 999.0], [-1000.0, -1000.0, -1000.0], [1e4, 0.0, -1e4]], np.float32)
    with np.errstate(over="raise", invalid="raise"):
        got = run1(lambda b, a: b.softmax(a), x)
    assert np.all(np.isfinite(got))
    e = np.exp(-1.0)
    np.testing.assert_allclose(got[0], [1 / (2 + e), 1 / (2 + e), e / (2 + e)], rtol=1e-6)
    np.testing.assert_allclose(got[1], [1 / 3] * 3, rtol=1e-6)
    np.testing.assert_allclose(got[2], [1.0, 0.0, 0.0], atol=1e-30)


def test_softmax_axis_out_of_range() -> None:
    b = GraphBuilder()
    y = b.softmax(b.input((4, 3)), axis=2)
    assert y.type == tensor((4, 3))
    with raises("graph.softmax: axis 2 is out of range for rank 2"):
        b.build(y)


def test_softmax_rejects_integers() -> None:
    b = GraphBuilder()
    b.softmax(b.input((4, 3), np.int32))
    with raises("graph.softmax: operand #0 has element type i32, expected one of f32, f64"):
        b.build()


# --------------------------------------------------------------------------
# constants
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "array",
    [
        np.array([[1.0, -2.5], [0.0, 4.0]], np.float32),
        np.array([1.5, 2.5, -3.25], np.float64),
        np.array([[1, -2], [3, 4]], np.int32),
        np.array([7, -8, 9], np.int64),
        np.array([True, False, True, True]),
        np.arange(24, dtype=np.float32).reshape(2, 3, 4),
    ],
    ids=["f32", "f64", "i32", "i64", "i1", "3d"],
)
def test_dense_constant(array: np.ndarray) -> None:
    op = graph.ConstantOp.from_array(array)
    assert not op.is_splat
    assert op.result.type == tensor(array.shape, element_type_of(array.dtype))
    op.verify()
    assert_same(op.reference()[0], array)
    assert_same(run1(lambda b: b.constant(array)), array)


@pytest.mark.parametrize(
    "shape,value,elem,dtype",
    [
        ((4, 4), -0.5, f32, np.float32),
        ((3,), 2.5, f64, np.float64),
        ((2, 2), -7, i32, np.int32),
        ((5,), 42, i64, np.int64),
        ((3,), True, i1, np.bool_),
        ((2,), False, i1, np.bool_),
        ((), 1.5, f32, np.float32),
    ],
)
def test_splat_constant(shape, value, elem, dtype) -> None:
    op = graph.ConstantOp.splat_of(tensor(shape, elem), value)
    op.verify()
    assert op.is_splat
    assert_same(op.reference()[0], np.full(shape, value, dtype=dtype))
    assert_same(run1(lambda b: b.splat(shape, value, elem)), np.full(shape, value, dtype=dtype))


def test_uniform_arrays_become_splats() -> None:
    assert graph.ConstantOp.from_array(np.full((3, 3), 2.0, np.float32)).is_splat
    assert graph.ConstantOp.from_array(np.array(5, np.int32)).is_splat
    assert graph.ConstantOp.from_array(np.array([1.0], np.float64)).is_splat
    dense = graph.ConstantOp.from_array(np.full((3, 3), 2.0, np.float32), keep_dense=True)
    assert not dense.is_splat
    assert_same(dense.reference()[0], np.full((3, 3), 2.0, np.float32))


def test_dense_i1_constant_keeps_dense() -> None:
    array = np.array([[True, False], [False, True]])
    op = graph.ConstantOp.from_array(array, keep_dense=True)
    assert_same(op.reference()[0], array)


def test_empty_dense_constant_verifies() -> None:
    array = np.zeros((0, 3), np.float32)
    op = graph.ConstantOp.from_array(array)
    op.verify()
    assert_same(op.reference()[0], array)


def test_constant_verifier_messages() -> None:
    ty = tensor((3,))
    two = DenseIntOrFPElementsAttr(ty, BytesAttr(np.array([1, 2], np.float32).tobytes()))
    with raises("graph.constant: dense value holds 2 elements, its type tensor<3xf32> needs 3"):
        graph.ConstantOp(ty, value=two).verify()
    with raises("graph.constant: exactly one of 'value' (dense) and 'splat' must be given"):
        graph.ConstantOp(ty).verify()
    three = DenseIntOrFPElementsAttr(ty, BytesAttr(np.array([1, 2, 3], np.float32).tobytes()))
    with raises("graph.constant: exactly one of 'value' (dense) and 'splat' must be given"):
        graph.ConstantOp(ty, value=three, splat=FloatAttr(1.0, f32)).verify()
    with raises("graph.constant: splat value type f64 does not match element type f32"):
        graph.ConstantOp(ty, splat=FloatAttr(1.0, f64)).verify()
    with raises("graph.constant: splat value type i64 does not match element type i32"):
        graph.ConstantOp(tensor((2,), i32), splat=IntegerAttr(1, i64)).verify()
    with raises("graph.constant: result type tensor<4xf32> does not match the inferred type tensor<3xf32>"):
        graph.ConstantOp(tensor((4,)), value=three).verify()


# --------------------------------------------------------------------------
# what an op is: fuse patterns and the result-type check of the verifier
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op,pattern",
    [
        (graph.ConstantOp, FusePattern.OPAQUE),
        *[(cls, FusePattern.ELEMWISE) for cls in (graph.NegOp, graph.ExpOp, graph.LogOp, graph.SqrtOp, graph.TanhOp, graph.SigmoidOp, graph.ReluOp)],
        *[(cls, FusePattern.BROADCAST) for cls in (graph.AddOp, graph.SubOp, graph.MulOp, graph.DivOp, graph.MaximumOp)],
        (graph.MatmulOp, FusePattern.OUT_EWISE_FUSABLE),
        (graph.TransposeOp, FusePattern.INJECTIVE),
        (graph.ReshapeOp, FusePattern.INJECTIVE),
        *[(cls, FusePattern.COMM_REDUCE) for cls in (graph.ReduceSumOp, graph.ReduceMeanOp, graph.ReduceMaxOp)],
        (graph.SoftmaxOp, FusePattern.OUT_EWISE_FUSABLE),
    ],
    ids=lambda v: v.name if hasattr(v, "name") and isinstance(v.name, str) else str(v),
)
def test_fuse_pattern(op, pattern: FusePattern) -> None:
    assert op.FUSE_PATTERN == pattern


def test_verifier_checks_result_against_inference() -> None:
    block = Block(arg_types=[tensor((4, 1)), tensor((3,))])
    a, c = block.args
    op = graph.AddOp(a, c)
    assert op.result.type == tensor((4, 3))
    op.verify()
    op = graph.AddOp.create(operands=[a, c], result_types=[tensor((3,))])  # as if written by hand
    with raises("graph.add: result type tensor<3xf32> does not match the inferred type tensor<4x3xf32>"):
        op.verify()


def test_every_core_op_is_covered() -> None:
    covered = {
        "graph.constant", "graph.neg", "graph.exp", "graph.log", "graph.sqrt", "graph.tanh",
        "graph.sigmoid", "graph.relu", "graph.add", "graph.sub", "graph.mul", "graph.div",
        "graph.maximum", "graph.matmul", "graph.transpose", "graph.reshape", "graph.reduce_sum",
        "graph.reduce_mean", "graph.reduce_max", "graph.softmax",
    }
    assert {op.name for op in graph.CORE_OPS} == covered
    assert all(issubclass(op, BinaryBroadcastOp) for op in (graph.AddOp, graph.SubOp, graph.MulOp, graph.DivOp, graph.MaximumOp))
