"""Finite-difference checks of the gradient rules of the layout ops."""

from __future__ import annotations

import numpy as np
import pytest

from graphopt.testing.gradcheck import build_module, check_vjp

RNG = np.random.default_rng(99)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def check(build, inputs, **kw):
    return check_vjp(build_module(build, inputs), inputs, rng=RNG, **kw)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis: int) -> None:
    a, b = randn(2, 3), randn(2, 3)
    check(lambda bb, x: bb.concat([x[0], x[1], x[0]], axis), [a, b])


def test_split_with_only_some_outputs_used() -> None:
    """A multi-output op where only some outputs reach the result."""

    def build(b, x):
        p, q, r = b.split(x[0], [1, 2, 2], 1)
        return b.mul(b.tanh(p), b.reduce_sum(r, [1], keepdims=True))  # q unused

    check(build, [randn(3, 5)])


def test_split_all_outputs() -> None:
    def build(b, x):
        p, q = b.split(x[0], 2, -1)
        return b.mul(p, q)

    check(build, [randn(3, 4)])


@pytest.mark.parametrize(
    "starts,ends,axes,steps",
    [
        ([1], [3], [0], None),
        ([0, 1], [2, 5], None, None),
        ([-1], [0], [1], [-2]),  # negative step
        ([1, 0], [4, 6], [0, 1], [2, 3]),  # strided on both axes
    ],
)
def test_slice(starts, ends, axes, steps) -> None:
    check(lambda b, x: b.slice(x[0], starts, ends, axes, steps), [randn(4, 6)])


def test_pad() -> None:
    check(lambda b, x: b.pad(x[0], [1, 0, 2, 3], 0.5), [randn(2, 3)])


def test_broadcast_to_with_rank_promotion() -> None:
    check(lambda b, x: b.broadcast_to(x[0], [2, 3, 4]), [randn(3, 1)])


def test_expand_squeeze_flatten() -> None:
    def build(b, x):
        e = b.expand_dims(x[0], [0, -1])
        s = b.squeeze(e, [0])
        return b.flatten(b.mul(s, s), 1)

    check(build, [randn(2, 3)])


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_with_repeated_and_negative_indices(axis: int) -> None:
    data = randn(4, 3)
    idx = np.array([[1, -1], [1, 0]], np.int64)
    check(lambda b, x: b.gather(x[0], x[1], axis), [data, idx], wrt=[0])


def test_dropout_training_uses_the_same_mask() -> None:
    check(lambda b, x: b.dropout(x[0], 0.3, 7, True), [randn(4, 5)])
    check(lambda b, x: b.dropout(x[0], 0.3, 7, False), [randn(4, 5)])


def test_copy_and_zero_gradient_ops() -> None:
    check(lambda b, x: b.add(b.copy(x[0]), b.ones_like(x[0])), [randn(3)])


def test_layout_gradients_compiled() -> None:
    def build(b, x):
        p, q = b.split(b.pad(x[0], [0, 1, 0, 1], 0.0), [1, 3], 0)
        s = b.slice(q, [0, -1], [3, 0], [0, 1], [2, -2])
        g = b.gather(x[0], x[1], 0)
        return b.concat([b.mul(s, s), b.reduce_sum(g, [1])], 1), b.tanh(p)

    check(build, [randn(4, 5), np.array([[0, 3], [3, 2]], np.int64)], wrt=[0], compiled=True)


def test_second_order_slice_and_gather() -> None:
    from graphopt.dialects.graph import GatherGradOp, SliceGradOp

    def build(b, x):
        s = b.apply(SliceGradOp(x[0], (5, 7), (4, 0), (-2, 3)))
        g = b.apply(GatherGradOp(x[1], x[0], (2, 4), 1))
        return s, g

    check(build, [randn(2, 3), np.array([1, -1, 1], np.int64)], wrt=[0])
