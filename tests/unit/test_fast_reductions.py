"""Reassociated (vectorised) float reductions stay accurate: compiled sums,
softmax and layer_norm against float64 references."""

from __future__ import annotations

import numpy as np

import graphopt
from graphopt.frontends.builder import GraphBuilder

RNG = np.random.default_rng(7)


def compile_one(shape, build):
    b = GraphBuilder("f")
    x = b.input(shape, np.float32)
    return graphopt.compile(b.build(build(b, x)), opt_level=2)["f"]


def test_long_sum_error_is_small() -> None:
    x = RNG.random((4, 100_000)).astype(np.float32)
    got = compile_one(x.shape, lambda b, v: b.reduce_sum(v, [1]))(x)
    want = x.astype(np.float64).sum(axis=1)
    # A sequential f32 sum of 1e5 terms errs up to ~1e-3 relative; partial
    # sums bring it near 1e-6.
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_softmax_against_float64() -> None:
    x = (RNG.standard_normal((64, 1000)) * 4).astype(np.float32)
    got = compile_one(x.shape, lambda b, v: b.softmax(v, axis=1))(x)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-30)


def test_softmax_along_outer_axis_recomputes_exp() -> None:
    """Axis 0 is not the innermost loop of the nest: no row buffer, still right."""
    x = RNG.standard_normal((300, 5)).astype(np.float32)
    got = compile_one(x.shape, lambda b, v: b.transpose(b.softmax(v, axis=0), [1, 0]))(x)
    e = np.exp(x.astype(np.float64) - x.max(axis=0))
    np.testing.assert_allclose(got, (e / e.sum(axis=0)).T, rtol=2e-6)


def test_layer_norm_against_float64() -> None:
    x = (RNG.standard_normal((32, 768)) + 3).astype(np.float32)
    s = RNG.standard_normal(768).astype(np.float32)
    t = RNG.standard_normal(768).astype(np.float32)
    b = GraphBuilder("f")
    args = [b.input(a.shape, np.float32) for a in (x, s, t)]
    fn = graphopt.compile(b.build(b.layer_norm(*args, axis=-1)), opt_level=2)["f"]
    x64 = x.astype(np.float64)
    m = x64.mean(axis=1, keepdims=True)
    v = ((x64 - m) ** 2).mean(axis=1, keepdims=True)
    want = (x64 - m) / np.sqrt(v + 1e-5) * s + t
    np.testing.assert_allclose(fn(x, s, t), want, rtol=1e-5, atol=2e-5)


def test_softmax_nan_and_inf_rows_match_numpy() -> None:
    """A NaN of either sign, an inf or a row of -inf make the row NaN, as in
    numpy: the row max, an integer max of the ordered bits, takes a positive
    NaN and passes a negative one by, and the row's sum is NaN either way."""
    x = RNG.standard_normal((6, 40)).astype(np.float32)
    x[0, 3] = np.nan
    x[1, 7] = np.inf
    x[2, :] = -np.inf
    x[3, 5] = -np.float32(np.nan)
    x[4, :] = -0.0
    x[4, 9] = 0.0
    got = compile_one(x.shape, lambda b, v: b.softmax(v, axis=1))(x)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)
    assert np.isnan(got[:4]).all() and not np.isnan(got[4:]).any()


def test_softmax_row_max_of_negative_rows_f32_and_f64() -> None:
    """Rows of negative numbers, whose bits order backwards: the max (so the
    shift) is the largest; f64 uses the same integer max on 64 bits."""
    for dtype, rtol, atol in ((np.float32, 2e-6, 1e-30), (np.float64, 1e-13, 1e-300)):
        x = -np.abs(RNG.standard_normal((8, 33))).astype(dtype) * 50 - 1
        b = GraphBuilder("f")
        fn = graphopt.compile(b.build(b.softmax(b.input(x.shape, dtype), axis=1)), opt_level=2)["f"]
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        np.testing.assert_allclose(fn(x), e / e.sum(axis=1, keepdims=True), rtol=rtol, atol=atol)
