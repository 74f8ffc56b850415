"""Finite-difference checks of convolution, pooling and normalization gradients."""

from __future__ import annotations

import numpy as np
import pytest

from graphopt.testing.gradcheck import build_module, check_directional, check_vjp

RNG = np.random.default_rng(5)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def distinct(*shape: int) -> np.ndarray:
    """No ties: a permutation of well-separated values."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.1 - n * 0.05 + RNG.uniform(0, 0.02, n)).reshape(shape)


def check(build, inputs, **kw):
    return check_vjp(build_module(build, inputs), inputs, rng=RNG, **kw)


CONV_CASES = [
    # x shape, w shape, strides, padding, dilations, groups
    ((1, 2, 5, 5), (3, 2, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 2, 6, 5), (3, 2, 3, 2), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ((1, 2, 7, 6), (2, 2, 3, 3), (2, 3), (1, 0, 2, 1), (1, 1), 1),  # uneven: (H+2p-k) % s != 0
    ((1, 2, 7, 7), (2, 2, 2, 3), (1, 2), (0, 1, 1, 0), (2, 2), 1),  # dilation
    ((1, 4, 5, 5), (4, 2, 3, 3), (2, 1), (1, 1, 0, 0), (1, 1), 2),  # groups
    ((1, 3, 4, 4), (3, 1, 2, 2), (1, 1), (1, 1, 1, 1), (1, 1), 3),  # depthwise
]


@pytest.mark.parametrize("xs,ws,strides,padding,dilations,groups", CONV_CASES)
def test_conv2d(xs, ws, strides, padding, dilations, groups) -> None:
    check(
        lambda b, a: b.conv2d(a[0], a[1], strides, padding, dilations, groups),
        [randn(*xs), randn(*ws)],
    )


POOL_CASES = [
    # kernel, strides, padding
    ((2, 2), (2, 2), (0, 0, 0, 0)),
    ((3, 3), (1, 1), (0, 0, 0, 0)),  # overlapping windows
    ((3, 2), (2, 1), (1, 0, 1, 1)),  # overlapping, padded, uneven
]


@pytest.mark.parametrize("kernel,strides,padding", POOL_CASES)
def test_max_pool2d(kernel, strides, padding) -> None:
    check(lambda b, a: b.max_pool2d(a[0], kernel, strides, padding), [distinct(2, 2, 5, 6)])


@pytest.mark.parametrize("kernel,strides,padding", POOL_CASES)
@pytest.mark.parametrize("include_pad", [False, True])
def test_avg_pool2d(kernel, strides, padding, include_pad: bool) -> None:
    check(
        lambda b, a: b.avg_pool2d(a[0], kernel, strides, padding, include_pad),
        [randn(1, 2, 5, 6)],
    )


def test_global_avg_pool() -> None:
    check(lambda b, a: b.global_avg_pool(a[0]), [randn(2, 3, 4, 5)])


def test_batch_norm_inference() -> None:
    x, s, bias, m = randn(2, 3, 4, 4), randn(3), randn(3), randn(3)
    v = np.abs(randn(3)) + 0.5
    check(lambda b, a: b.batch_norm(*a, eps=1e-3), [x, s, bias, m, v], wrt=[0, 1, 2])


def test_batch_norm_train() -> None:
    x, s, bias = randn(3, 2, 3, 4), randn(2), randn(2)
    check(lambda b, a: b.batch_norm_train(*a, eps=1e-3)[0], [x, s, bias])


def test_batch_norm_train_statistics_are_not_differentiated() -> None:
    """The running-statistics results (batch mean, variance) get no gradient:
    only y's contribution reaches x."""
    from graphopt.runtime.reference import interpret
    from graphopt.transforms.autodiff import add_gradient

    x, s, bias = randn(3, 2, 2, 2), randn(2), randn(2)
    both = build_module(lambda b, a: b.batch_norm_train(*a), [x, s, bias])
    only_y = build_module(lambda b, a: b.batch_norm_train(*a)[0], [x, s, bias])
    add_gradient(both, "f", seed="ones")
    add_gradient(only_y, "f", seed="ones")
    got = interpret(both, x, s, bias, entry="f_grad")[3:]
    want = interpret(only_y, x, s, bias, entry="f_grad")[1:]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


@pytest.mark.parametrize("axis,scale_shape", [(-1, (5,)), (1, (3, 5)), (1, (1, 5))])
def test_layer_norm(axis: int, scale_shape) -> None:
    x, s, bias = randn(2, 3, 5), randn(*scale_shape), randn(*scale_shape)
    check(lambda b, a: b.layer_norm(*a, axis, 1e-3), [x, s, bias])


def test_small_cnn_compiled() -> None:
    """conv -> batch_norm_train -> relu-free tanh -> max pool -> global pool, compiled."""

    def build(b, a):
        y = b.conv2d(a[0], a[1], (2, 1), (1, 1, 0, 1), (1, 1), 1)
        y = b.batch_norm_train(y, a[2], a[3], eps=1e-3)[0]
        y = b.max_pool2d(b.tanh(y), (2, 2), (1, 1), (0, 0, 0, 0))
        return b.global_avg_pool(y)

    x, w = randn(2, 2, 6, 5), randn(3, 2, 3, 3)
    check(build, [x, w, randn(3), randn(3)], compiled=True, pipeline="default")


def test_conv_float32_directional() -> None:
    def build(b, a):
        y = b.conv2d(a[0], a[1], (2, 2), (1, 1, 1, 1), (1, 1), 1)
        return b.avg_pool2d(b.tanh(y), (2, 2), (1, 1), (0, 0, 0, 0), False)

    check_directional(build, [randn(1, 2, 6, 6), randn(3, 2, 3, 3)], rng=RNG)


@pytest.mark.parametrize("xs,ws,strides,padding,dilations,groups", CONV_CASES[1:5])
def test_second_order_conv(xs, ws, strides, padding, dilations, groups) -> None:
    """The backward ops have rules too (bilinear: conv2d and each other)."""
    from graphopt.dialects.graph import Conv2dGradFilterOp, Conv2dGradInputOp

    x, w = randn(*xs), randn(*ws)
    window = dict(strides=strides, padding=padding, dilations=dilations, groups=groups)
    forward = build_module(lambda b, a: b.conv2d(a[0], a[1], strides, padding, dilations, groups), [x, w])
    g = randn(*next(iter(forward.ops)).function_type.outputs.data[0].get_shape())

    def build(b, a):
        dx = b.apply(Conv2dGradInputOp(a[2], a[1], xs, **window))
        dw = b.apply(Conv2dGradFilterOp(a[0], a[2], ws[2:], **window))
        return dx, dw

    check(build, [x, w, g])


@pytest.mark.parametrize("kernel,strides,padding", POOL_CASES)
def test_second_order_avg_pool(kernel, strides, padding) -> None:
    from graphopt.dialects.graph import AvgPool2dGradOp

    x = randn(1, 2, 5, 6)
    m = build_module(lambda b, a: b.avg_pool2d(a[0], kernel, strides, padding), [x])
    oshape = next(iter(m.ops)).function_type.outputs.data[0].get_shape()
    check(lambda b, a: b.apply(AvgPool2dGradOp(a[0], x.shape, kernel, strides, padding)), [randn(*oshape)])
