"""Finite-difference checks of the gradient rules of the core graph ops.

float64, eps 1e-6, atol 1e-5, rtol 1e-3, a random cotangent; inputs are
N(0, 1) and kept away from kinks (relu at 0) and ties (max).
"""

from __future__ import annotations

import numpy as np
import pytest

from graphopt.testing.gradcheck import (
    build_module,
    check_directional,
    check_vjp,
)

RNG = np.random.default_rng(2024)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def away_from_zero(*shape: int, margin: float = 0.1) -> np.ndarray:
    x = randn(*shape)
    return np.where(np.abs(x) < margin, np.sign(x + 1e-12) * margin + x, x)


def distinct(*shape: int) -> np.ndarray:
    """N(0,1)-like values with no ties (gaps of at least 0.05)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.05 - n * 0.025 + RNG.uniform(0, 0.01, n)).reshape(shape)


def check(build, inputs, **kw) -> None:
    check_vjp(build_module(build, inputs), inputs, rng=RNG, **kw)


@pytest.mark.parametrize("name", ["neg", "exp", "tanh", "sigmoid"])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_unary(name: str, shape) -> None:
    check(lambda b, a: getattr(b, name)(a[0]), [randn(*shape)])


@pytest.mark.parametrize("name", ["log", "sqrt"])
def test_unary_positive(name: str) -> None:
    check(lambda b, a: getattr(b, name)(a[0]), [np.abs(randn(3, 4)) + 0.5])


def test_relu_away_from_kink() -> None:
    check(lambda b, a: b.relu(a[0]), [away_from_zero(4, 5)])


BROADCAST = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)),  # rank promotion and size-1 axes on both sides
    ((), (2, 3)),
]


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("shapes", BROADCAST)
def test_binary_broadcast(name: str, shapes) -> None:
    a, b = randn(*shapes[0]), randn(*shapes[1])
    if name == "div":
        b = np.sign(b) * (np.abs(b) + 0.5)
    check(lambda bb, x: getattr(bb, name)(x[0], x[1]), [a, b])


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1))])
def test_maximum_away_from_ties(shapes) -> None:
    a = randn(*shapes[0])
    b = randn(*shapes[1])
    full = np.broadcast_arrays(a, b)
    if np.min(np.abs(full[0] - full[1])) < 1e-3:
        b = b + 0.37
    check(lambda bb, x: bb.maximum(x[0], x[1]), [a, b])


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 4), (4, 5)),
        ((2, 3, 4), (2, 4, 5)),  # batched
        ((2, 3, 4), (4, 5)),  # rhs broadcast over the batch
        ((2, 1, 3, 4), (3, 4, 2)),  # batch dims broadcast on both sides
    ],
)
def test_matmul(shapes) -> None:
    check(lambda b, x: b.matmul(x[0], x[1]), [randn(*shapes[0]), randn(*shapes[1])])


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 2, 1)])
def test_transpose(perm) -> None:
    check(lambda b, x: b.transpose(x[0], perm), [randn(2, 3, 4)])


def test_reshape() -> None:
    check(lambda b, x: b.reshape(x[0], (4, 6)), [randn(2, 3, 4)])


REDUCE_CASES = [
    ((1,), False),
    ((-1,), True),  # negative axis, keepdims
    ((0, 2), False),
    ((0, -1), True),
    (None, False),  # every axis: a scalar
]


@pytest.mark.parametrize("axes,keepdims", REDUCE_CASES)
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max"])
def test_reductions(name: str, axes, keepdims: bool) -> None:
    x = distinct(2, 3, 4) if name == "reduce_max" else randn(2, 3, 4)
    check(lambda b, a: getattr(b, name)(a[0], axes, keepdims), [x])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax(axis: int) -> None:
    check(lambda b, a: b.softmax(a[0], axis), [randn(3, 4)])


def test_composite_mlp_layer_compiled() -> None:
    """A representative graph, with the gradient compiled through the pipeline."""
    x, w, bias = randn(4, 3), randn(3, 5), randn(5)

    def build(b, a):
        h = b.tanh(b.add(b.matmul(a[0], a[1]), a[2]))
        return b.reduce_mean(b.mul(h, h), [-1])

    check(build, [x, w, bias], compiled=True, pipeline="default")


def test_compiled_core_ops_float64() -> None:
    def build(b, a):
        y = b.softmax(b.div(b.sigmoid(a[0]), b.add(b.exp(a[1]), a[2])), -1)
        z = b.transpose(b.reshape(b.sub(y, b.neg(a[0])), (2, 3, 2)), (2, 0, 1))
        return b.reduce_sum(b.mul(z, z), [0, 2], keepdims=True), b.reduce_max(a[0], [1])

    x = distinct(3, 4)
    check(build, [x, randn(3, 4), np.abs(randn(4)) + 0.5], compiled=True)


def test_float32_directional() -> None:
    def build(b, a):
        h = b.tanh(b.add(b.matmul(a[0], a[1]), a[2]))
        return b.softmax(b.div(h, a[3]), -1)

    inputs = [randn(4, 3), randn(3, 5), randn(5), np.abs(randn(4, 1)) + 0.5]
    check_directional(build, inputs, rng=RNG)


def test_add_n_rule() -> None:
    from graphopt.dialects.graph import AddNOp

    check(lambda b, a: b.apply(AddNOp([a[0], a[1], a[0]])), [randn(3), randn(3)])


def test_softmax_gradient_is_finite_for_huge_logits() -> None:
    import graphopt
    from graphopt.transforms.autodiff import add_gradient

    x = np.array([[1000.0, -1000.0, 999.0], [-1000.0, -999.0, 1000.0]], np.float32)
    module = build_module(lambda b, a: b.softmax(a[0], -1), [x])
    add_gradient(module, "f")
    g = RNG.standard_normal(x.shape).astype(np.float32)
    _, dx = graphopt.compile(module)["f_grad"](x, g)
    assert np.all(np.isfinite(dx))
