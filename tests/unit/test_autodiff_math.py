"""Finite-difference checks of the elementwise math, where/cast and the
reductions beyond sum, mean and max (inputs away from kinks and ties)."""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt.transforms.autodiff import add_gradient
from graphopt.testing.gradcheck import build_module, check_directional, check_vjp

RNG = np.random.default_rng(31)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def away(x: np.ndarray, points=(0.0,), margin: float = 0.1) -> np.ndarray:
    """``x`` moved at least ``margin`` away from each kink in ``points``."""
    for p in points:
        close = np.abs(x - p) < margin
        x = np.where(close, p + np.where(x >= p, margin, -margin) + (x - p), x)
    return x


def distinct(*shape: int) -> np.ndarray:
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.1 - n * 0.05 + RNG.uniform(0, 0.02, n)).reshape(shape)


def check(build, inputs, **kw):
    return check_vjp(build_module(build, inputs), inputs, rng=RNG, **kw)


@pytest.mark.parametrize("name", ["erf", "sin", "cos"])
def test_smooth_unary(name: str) -> None:
    check(lambda b, a: getattr(b, name)(a[0]), [randn(3, 4)])


def test_abs_away_from_zero() -> None:
    check(lambda b, a: b.abs(a[0]), [away(randn(3, 4))])


def test_rsqrt() -> None:
    check(lambda b, a: b.rsqrt(a[0]), [np.abs(randn(3, 4)) + 0.5])


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu(approximate: bool) -> None:
    check(lambda b, a: b.gelu(a[0], approximate), [randn(3, 4)])


def test_leaky_relu() -> None:
    check(lambda b, a: b.leaky_relu(a[0], 0.2), [away(randn(3, 4))])


@pytest.mark.parametrize("lo,hi", [(-0.5, 0.7), (float("-inf"), 0.3), (-0.2, float("inf"))])
def test_clip(lo: float, hi: float) -> None:
    x = away(randn(4, 5), [p for p in (lo, hi) if np.isfinite(p)])
    check(lambda b, a: b.clip(a[0], lo, hi), [x])


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((3, 4), ())])
def test_pow(shapes) -> None:
    a = np.abs(randn(*shapes[0])) + 0.5
    b = randn(*shapes[1])
    check(lambda bb, x: bb.pow(x[0], x[1]), [a, b])


def test_pow_at_zero_base() -> None:
    """dz/db = z log a is taken as 0 where a = 0 (z is 0 there for b > 0)."""
    a = np.array([0.0, 2.0, 0.5])
    b = np.array([2.0, 1.5, 3.0])
    m = build_module(lambda bb, x: bb.pow(x[0], x[1]), [a, b])
    add_gradient(m, "f", seed="ones")
    from graphopt.runtime.reference import interpret

    _, da, db = interpret(m, a, b, entry="f_grad")
    assert np.all(np.isfinite(db)) and db[0] == 0.0
    np.testing.assert_allclose(da, b * a ** (b - 1))


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1))])
def test_minimum(shapes) -> None:
    a, b = randn(*shapes[0]), randn(*shapes[1])
    full = np.broadcast_arrays(a, b)
    if np.min(np.abs(full[0] - full[1])) < 1e-3:
        b = b + 0.37
    check(lambda bb, x: bb.minimum(x[0], x[1]), [a, b])


def test_where_with_broadcast_branches() -> None:
    def build(b, a):
        cond = b.greater(a[0], a[1])
        return b.where(cond, b.mul(a[0], a[0]), a[1])

    x, y = randn(3, 4), randn(4)
    check(build, [x, y + np.where(np.abs(x - y).min(0) < 1e-3, 0.3, 0.0)])


def test_where_condition_is_an_input() -> None:
    mask = RNG.integers(0, 2, (3, 4)).astype(bool)
    check(lambda b, a: b.where(a[2], a[0], a[1]), [randn(3, 4), randn(1, 4), mask])


def test_cast_between_floats() -> None:
    def build(b, a):
        return b.cast(b.tanh(b.cast(a[0], np.float32)), np.float64)

    x = randn(3, 4)
    # f32 in the middle: finite differences need a larger step.
    check(build, [x], eps=1e-3, atol=1e-3, rtol=1e-2)


def test_cast_to_int_and_argmax_have_no_gradient() -> None:
    def build(b, a):
        k = b.cast(b.argmax(a[0], -1), np.float64)
        return b.mul(b.reduce_sum(a[0], [-1]), k)

    check(build, [distinct(3, 4)])


REDUCE_CASES = [((1,), False), ((-1,), True), ((0, 2), False), (None, False)]


@pytest.mark.parametrize("axes,keepdims", REDUCE_CASES)
def test_reduce_min(axes, keepdims: bool) -> None:
    check(lambda b, a: b.reduce_min(a[0], axes, keepdims), [distinct(2, 3, 4)])


@pytest.mark.parametrize("axes,keepdims", REDUCE_CASES)
def test_reduce_prod(axes, keepdims: bool) -> None:
    x = np.sign(randn(2, 3, 4)) * (np.abs(randn(2, 3, 4)) * 0.5 + 0.75)
    check(lambda b, a: b.reduce_prod(a[0], axes, keepdims), [x])


@pytest.mark.parametrize("axis", [0, -1])
def test_log_softmax(axis: int) -> None:
    check(lambda b, a: b.log_softmax(a[0], axis), [randn(3, 4)])


def test_cross_entropy_is_finite_for_huge_logits() -> None:
    """softmax, log_softmax and cross-entropy gradients in f32 at logits ±1e3."""
    x = np.array([[1000.0, -1000.0, 999.0], [-1000.0, -999.0, 1000.0]], np.float32)
    y = np.array([[0, 1, 0], [1, 0, 0]], np.float32)

    def build(b, a):
        ce = b.neg(b.reduce_mean(b.reduce_sum(b.mul(a[1], b.log_softmax(a[0], -1)), [-1])))
        return ce, b.softmax(a[0], -1), b.log_softmax(a[0], -1)

    m = build_module(build, [x, y])
    add_gradient(m, "f", [0])
    heads = [np.float32(1.0), RNG.standard_normal(x.shape).astype(np.float32),
             RNG.standard_normal(x.shape).astype(np.float32)]
    outs = graphopt.compile(m)["f_grad"](x, y, np.asarray(heads[0]), heads[1], heads[2])
    assert all(np.all(np.isfinite(o)) for o in outs)


def test_math_compiled_float64() -> None:
    def build(b, a):
        h = b.gelu(b.add(b.sin(a[0]), b.erf(a[1])), True)
        h = b.where(b.greater(h, b.cos(a[1])), b.leaky_relu(h, 0.1), b.rsqrt(b.add(b.abs(h), a[2])))
        return b.log_softmax(b.minimum(b.clip(h, -2.0, 2.0), b.pow(a[2], a[1])), -1)

    inputs = [randn(3, 4), randn(3, 4), np.abs(randn(4)) + 0.5]
    check(build, inputs, compiled=True, pipeline="default")


def test_math_float32_directional() -> None:
    def build(b, a):
        return b.log_softmax(b.mul(b.gelu(a[0]), b.pow(a[1], b.sin(a[0]))), -1)

    check_directional(build, [randn(3, 4), np.abs(randn(3, 4)) + 0.5], rng=RNG)
