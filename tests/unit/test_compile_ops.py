"""Every graph op, compiled to native code, matches its reference semantics."""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from op_check import RandomArrays, compiled_matches_reference

rand = RandomArrays(1234)
#: Compiled == reference: floats to 1e-5 relative, 1e-6 absolute; the rest exactly.
check = compiled_matches_reference


UNARY = ["neg", "exp", "tanh", "sigmoid", "relu"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4)])
def test_unary(name: str, shape: tuple[int, ...]) -> None:
    check(lambda b, a: getattr(b, name)(a[0]), [rand(shape)])


@pytest.mark.parametrize("name", ["log", "sqrt"])
def test_unary_positive_domain(name: str) -> None:
    x = np.abs(rand((4, 9))) + 0.1
    check(lambda b, a: getattr(b, name)(a[0]), [x])


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64])
def test_unary_dtypes(dtype) -> None:
    check(lambda b, a: b.relu(b.neg(a[0])), [rand((3, 4), dtype)])


def test_sigmoid_extremes() -> None:
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], np.float32)
    check(lambda b, a: b.sigmoid(a[0]), [x])


BINARY = ["add", "sub", "mul", "div", "maximum"]
BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((1,), (5,)),
]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS)
def test_binary_broadcast(name: str, shapes) -> None:
    lhs, rhs = rand(shapes[0]), rand(shapes[1])
    if name == "div":
        rhs = np.where(np.abs(rhs) < 0.1, 1.0, rhs).astype(np.float32)
    check(lambda b, a: getattr(b, name)(a[0], a[1]), [lhs, rhs])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "maximum"])
def test_binary_dtypes(name: str, dtype) -> None:
    check(lambda b, a: getattr(b, name)(a[0], a[1]), [rand((3, 4), dtype), rand((4,), dtype)])


@pytest.mark.parametrize(
    "shapes",
    [
        ((4, 8), (8, 3)),
        ((1, 1), (1, 1)),
        ((2, 4, 8), (2, 8, 3)),
        ((2, 4, 8), (8, 3)),
        ((4, 8), (3, 8, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
    ],
)
def test_matmul(shapes) -> None:
    check(lambda b, a: b.matmul(a[0], a[1]), [rand(shapes[0]), rand(shapes[1])], rtol=1e-4, atol=1e-5)


def test_matmul_int() -> None:
    check(lambda b, a: b.matmul(a[0], a[1]), [rand((3, 5), np.int64), rand((5, 2), np.int64)])


@pytest.mark.parametrize("perm", [None, (1, 0, 2), (2, 0, 1), (0, 1, 2)])
def test_transpose(perm) -> None:
    check(lambda b, a: b.transpose(a[0], perm), [rand((2, 3, 4))])


@pytest.mark.parametrize(
    "src,dst",
    [((2, 3, 4), (6, 4)), ((2, 3, 4), (4, 6)), ((24,), (2, 3, 4)), ((2, 3, 4), (-1,)), ((3, 1, 4), (3, 4)), ((3, 4), (1, 3, 1, 4)), ((1,), ())],
)
def test_reshape(src, dst) -> None:
    check(lambda b, a: b.reshape(a[0], dst), [rand(src)])


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "reduce_max"])
@pytest.mark.parametrize(
    "axes,keepdims",
    [((1,), False), ((-1,), True), ((0, 2), False), ((-3, -1), True), (None, False), (None, True), ((1,), True)],
)
def test_reductions(op: str, axes, keepdims: bool) -> None:
    check(lambda b, a: getattr(b, op)(a[0], axes, keepdims), [rand((3, 4, 5))], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max"])
def test_int_reductions(op: str, dtype) -> None:
    check(lambda b, a: getattr(b, op)(a[0], (0,)), [rand((6, 3), dtype)])


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(axis: int) -> None:
    check(lambda b, a: b.softmax(a[0], axis), [rand((3, 4, 5))])


def test_softmax_large_logits_do_not_overflow() -> None:
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]], np.float32)
    b = GraphBuilder("f")
    module = b.build(b.softmax(b.input((2, 3))))
    got = graphopt.compile(module)["f"](x)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(got, interpret(module, x)[0], rtol=1e-5)


def test_constants_dense_and_splat() -> None:
    w = rand((4, 3))

    def build(b: GraphBuilder, a):
        return b.add(b.matmul(a[0], b.constant(w)), b.splat((3,), 0.5))

    check(build, [rand((2, 4))], rtol=1e-5)


def test_large_constant_is_hidden_argument() -> None:
    w = rand((64, 64))  # 16 KiB: above the inline limit

    def build(b: GraphBuilder, a):
        return b.matmul(a[0], b.constant(w))

    check(build, [rand((2, 64))], rtol=1e-4, atol=1e-5)


def test_multiple_outputs_and_returned_input() -> None:
    def build(b: GraphBuilder, a):
        e = b.exp(a[0])
        return (e, a[0], e, b.splat((2,), 3.0))

    check(build, [rand((2, 3))])


def test_diamond_and_shared_intermediate() -> None:
    def build(b: GraphBuilder, a):
        t = b.tanh(a[0])
        return b.add(b.mul(t, t), b.sub(t, a[1]))

    check(build, [rand((5, 6)), rand((6,))])
