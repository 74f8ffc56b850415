"""conv2d, pooling and normalization: reference semantics against naive numpy,
and compiled code against the reference."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from op_check import RandomArrays, build_module, compiled_matches_reference

rand = RandomArrays(2024)
#: Compiled output == reference output (1e-5 relative and absolute unless a
#: test says otherwise); returns the reference outputs.
check = functools.partial(compiled_matches_reference, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------
# naive definitions (explicit loops, tiny shapes) the references must match
# --------------------------------------------------------------------------


def naive_conv(x, w, strides, padding, dilations, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (pt, pl, pb, pr), (dh, dw) = strides, padding, dilations
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    og = o // groups
    for b in range(n):
        for oc in range(o):
            g = oc // og
            for y in range(oh):
                for xx in range(ow):
                    acc = 0.0
                    for ci in range(cg):
                        for i in range(kh):
                            for j in range(kw):
                                r, s = y * sh - pt + i * dh, xx * sw - pl + j * dw
                                if 0 <= r < h and 0 <= s < wd:
                                    acc += x[b, g * cg + ci, r, s] * w[oc, ci, i, j]
                    out[b, oc, y, xx] = acc
    return out


def naive_pool(x, kernel, strides, padding, mode, count_include_pad=False):
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (pt, pl, pb, pr) = kernel, strides, padding
    oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
    out = np.zeros((n, c, oh, ow), np.float64)
    for y in range(oh):
        for xx in range(ow):
            vals = [
                x[:, :, r, s]
                for r in range(y * sh - pt, y * sh - pt + kh)
                for s in range(xx * sw - pl, xx * sw - pl + kw)
                if 0 <= r < h and 0 <= s < w
            ]
            if mode == "max":
                out[:, :, y, xx] = np.max(vals, axis=0)
            else:
                out[:, :, y, xx] = np.sum(vals, axis=0) / (kh * kw if count_include_pad else len(vals))
    return out


CONV_CASES = {
    # name: (x shape, w shape, strides, padding, dilations, groups)
    "stride1": ((2, 3, 8, 8), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "stride2-odd-size": ((1, 3, 9, 7), (4, 3, 3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    "symmetric-pad": ((1, 2, 6, 6), (3, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "asymmetric-pad": ((1, 2, 7, 6), (3, 2, 3, 2), (2, 1), (2, 0, 1, 3), (1, 1), 1),
    "dilation2": ((1, 2, 9, 9), (2, 2, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),
    "groups2": ((2, 4, 6, 6), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    "depthwise": ((2, 4, 7, 7), (4, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),
    "depthwise-multiplier": ((1, 3, 5, 5), (6, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3),
    "1x1": ((2, 8, 5, 5), (4, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "1x1-stride2": ((1, 4, 7, 7), (3, 4, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    "7x7-stem": ((1, 3, 16, 16), (4, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),
    "stride3-not-divisible": ((1, 2, 10, 11), (2, 2, 2, 3), (3, 3), (0, 1, 0, 0), (1, 1), 1),
    # Direct-conv rows straight (<= UNROLL_CONV_ROW wide), and one wider: a loop
    # over the columns every tap reads inside, then the border columns.
    "depthwise-wide-stride2": ((1, 3, 27, 27), (3, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 3),
    "depthwise-40-wide": ((1, 2, 6, 40), (2, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    "depthwise-wide-5x5": ((1, 2, 12, 21), (2, 1, 5, 5), (1, 1), (2, 1, 2, 3), (1, 1), 2),
}


@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv2d_reference_is_naive_conv(case: str) -> None:
    xs, ws, strides, padding, dilations, groups = CONV_CASES[case]
    x, w = rand(xs, np.float64), rand(ws, np.float64)
    module = build_module(
        lambda b, a: b.conv2d(a[0], a[1], strides, padding, dilations, groups), [x, w]
    )
    (got,) = interpret(module, x, w)
    np.testing.assert_allclose(got, naive_conv(x, w, strides, padding, dilations, groups), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv2d_compiled(case: str) -> None:
    xs, ws, strides, padding, dilations, groups = CONV_CASES[case]
    check(
        lambda b, a: b.conv2d(a[0], a[1], strides=strides, padding=padding, dilations=dilations, groups=groups),
        [rand(xs), rand(ws)],
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.parametrize("case", ["asymmetric-pad", "dilation2", "depthwise"])
def test_conv2d_f64(case: str) -> None:
    xs, ws, strides, padding, dilations, groups = CONV_CASES[case]
    check(
        lambda b, a: b.conv2d(a[0], a[1], strides, padding, dilations, groups),
        [rand(xs, np.float64), rand(ws, np.float64)],
        rtol=1e-12,
        atol=1e-12,
    )


def test_conv2d_with_epilogue() -> None:
    """conv -> bias add -> relu: the epilogue fuses into the conv's loop nest."""
    x, w, bias = rand((2, 3, 8, 8)), rand((4, 3, 3, 3)), rand((4, 1, 1))

    def build(b, a):
        y = b.conv2d(a[0], a[1], strides=(2, 2), padding=(1, 1, 1, 1))
        return b.relu(b.add(y, a[2]))

    check(build, [x, w, bias], rtol=1e-4, atol=1e-4)


POOL_CASES = {
    # name: (x shape, kernel, strides, padding)
    "overlapping": ((2, 3, 9, 9), (3, 3), (2, 2), (0, 0, 0, 0)),
    "padded-overlapping": ((1, 2, 8, 8), (3, 3), (2, 2), (1, 1, 1, 1)),
    "asymmetric-pad": ((1, 2, 7, 6), (3, 2), (2, 1), (2, 1, 0, 1)),
    "stride1": ((1, 2, 5, 5), (2, 2), (1, 1), (0, 0, 0, 0)),
    "not-divisible": ((1, 2, 11, 10), (2, 2), (2, 3), (0, 0, 1, 0)),
    "wide-padded": ((1, 2, 9, 23), (3, 3), (2, 2), (1, 1, 1, 1)),  # rows past UNROLL_ROW
    "wide-5x5": ((1, 1, 8, 19), (5, 5), (1, 1), (2, 1, 2, 3)),
}


@pytest.mark.parametrize("case", list(POOL_CASES))
@pytest.mark.parametrize(
    "kind", ["max", "avg", "avg-include-pad"]
)
def test_pool(case: str, kind: str) -> None:
    xs, kernel, strides, padding = POOL_CASES[case]
    x = rand(xs)
    include = kind == "avg-include-pad"
    if kind == "max":
        build = lambda b, a: b.max_pool2d(a[0], kernel, strides, padding)  # noqa: E731
    else:
        build = lambda b, a: b.avg_pool2d(a[0], kernel, strides, padding, count_include_pad=include)  # noqa: E731
    (want,) = check(build, [x])
    naive = naive_pool(x.astype(np.float64), kernel, strides, padding, kind[:3], include)
    np.testing.assert_allclose(want, naive, rtol=1e-5, atol=1e-6)


def test_max_pool_all_negative_with_padding() -> None:
    """Padding reads as -inf: a window of negative values never yields 0."""
    x = -np.abs(rand((1, 1, 4, 4))) - 1.0
    (want,) = check(lambda b, a: b.max_pool2d(a[0], (3, 3), (1, 1), (2, 2, 2, 2)), [x])
    assert (want < 0).all()


@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (2, 3, 6), (1, 2, 1, 1)])
def test_global_avg_pool(shape: tuple[int, ...]) -> None:
    (want,) = check(lambda b, a: b.global_avg_pool(a[0]), [rand(shape)])
    assert want.shape == shape[:2] + (1,) * (len(shape) - 2)


# --------------------------------------------------------------------------
# normalization
# --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 4, 5, 5), (3, 4), (2, 4, 6)])
def test_batch_norm(shape: tuple[int, ...]) -> None:
    c = shape[1]
    x, scale, bias, mean = rand(shape), rand((c,)), rand((c,)), rand((c,))
    var = np.abs(rand((c,))) + 0.1
    (want,) = check(lambda b, a: b.batch_norm(*a, eps=1e-3), [x, scale, bias, mean, var])
    r = (1, c) + (1,) * (len(shape) - 2)
    naive = (x - mean.reshape(r)) / np.sqrt(var.reshape(r) + 1e-3) * scale.reshape(r) + bias.reshape(r)
    np.testing.assert_allclose(want, naive, rtol=1e-5, atol=1e-5)


def batch_norm_train_inputs(shape):
    c = shape[1]
    return [rand(shape) * 3 + 1, rand((c,)), rand((c,))]


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (8, 5), (2, 3, 4)])
def test_batch_norm_train_all_results(shape: tuple[int, ...]) -> None:
    inputs = batch_norm_train_inputs(shape)
    y, mean, var = check(lambda b, a: b.batch_norm_train(*a), inputs, rtol=1e-4, atol=1e-5)
    x = inputs[0].astype(np.float64)
    axes = (0, *range(2, len(shape)))
    np.testing.assert_allclose(mean, x.mean(axis=axes), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(var, x.var(axis=axes), rtol=1e-5, atol=1e-5)  # biased
    # The normalized output has zero mean and unit variance before scale/bias.
    r = (1, shape[1]) + (1,) * (len(shape) - 2)
    z = (y - inputs[2].reshape(r)) / inputs[1].reshape(r)
    np.testing.assert_allclose(z.mean(axis=axes), 0.0, atol=1e-4)


def test_batch_norm_train_only_y() -> None:
    check(lambda b, a: b.batch_norm_train(*a)[0], batch_norm_train_inputs((2, 3, 4, 4)), rtol=1e-4)


def test_batch_norm_train_only_stats() -> None:
    check(lambda b, a: b.batch_norm_train(*a)[1:], batch_norm_train_inputs((2, 3, 4, 4)), rtol=1e-4)


def test_batch_norm_train_keeps_properties() -> None:
    b = GraphBuilder("f")
    x, s, o = (b.input(t.shape) for t in batch_norm_train_inputs((2, 3)))
    y, _, _ = b.batch_norm_train(x, s, o, eps=1e-3, momentum=0.99)
    op = y.owner
    assert op.epsilon == 1e-3 and op.momentum_value == 0.99


@pytest.mark.parametrize(
    "shape,axis,param_shape",
    [((4, 16), -1, (16,)), ((2, 3, 8), 1, (3, 8)), ((2, 3, 8), -1, (8,)), ((2, 3, 4), 1, (4,)), ((3, 5), 0, (3, 5))],
)
def test_layer_norm(shape, axis, param_shape) -> None:
    x, scale, bias = rand(shape) * 2 + 0.5, rand(param_shape), rand(param_shape)
    (want,) = check(lambda b, a: b.layer_norm(*a, axis=axis, eps=1e-5), [x, scale, bias], rtol=1e-4)
    ax = tuple(range(axis % len(shape), len(shape)))
    xd = x.astype(np.float64)
    naive = (xd - xd.mean(ax, keepdims=True)) / np.sqrt(xd.var(ax, keepdims=True) + 1e-5) * scale + bias
    np.testing.assert_allclose(want, naive, rtol=1e-4, atol=1e-4)


def test_layer_norm_f64() -> None:
    check(
        lambda b, a: b.layer_norm(*a),
        [rand((3, 7), np.float64), rand((7,), np.float64), rand((7,), np.float64)],
        rtol=1e-12,
        atol=1e-12,
    )


# --------------------------------------------------------------------------
# build-time errors name the op and the shapes
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda b: b.conv2d(b.input((1, 3, 8, 8)), b.input((4, 2, 3, 3))), "expected 3 = 3 / groups 1"),
        (
            lambda b: b.conv2d(b.input((1, 3, 8, 8)), b.input((4, 1, 3, 3)), groups=2),
            "must both be divisible by groups 2",
        ),
        (lambda b: b.conv2d(b.input((1, 3, 2, 2)), b.input((4, 3, 3, 3))), "does not fit in the padded input"),
        (lambda b: b.max_pool2d(b.input((1, 3, 8, 8)), (2, 2), padding=(2, 0, 0, 0)), "smaller than the kernel"),
        (
            lambda b: b.batch_norm(*(b.input(s) for s in [(2, 3, 4), (3,), (3,), (4,), (3,)])),
            "mean must have shape 3",
        ),
        (lambda b: b.layer_norm(b.input((2, 8)), b.input((4,)), b.input((8,))), "scale 4 does not broadcast"),
    ],
)
def test_build_errors(build, message: str) -> None:
    with pytest.raises(VerifyException, match=message):
        build(GraphBuilder("f"))
