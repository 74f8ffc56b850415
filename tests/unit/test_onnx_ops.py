"""The graph ops added for ONNX models: ``lrn`` and ``dilations`` /
``ceil_mode`` on the pooling ops -- reference semantics against numpy and
onnx's reference, compiled code against the reference at -O0 and -O2, and
gradients (reference and compiled) against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from xdsl.utils.exceptions import VerifyException

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from graphopt.testing.gradcheck import build_module, check_vjp

RNG = np.random.default_rng(11)


def run_both(build, x: np.ndarray) -> np.ndarray:
    """The reference result; the compiled one at -O0 and -O2 must agree."""
    b = GraphBuilder("f")
    y = build(b, b.input(x.shape))
    module = b.build(y)
    (want,) = interpret(module, x)
    for level in (0, 2):
        got = graphopt.compile(module, opt_level=level)["f"](x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return want


def onnx_node(op: str, x: np.ndarray, **attrs) -> np.ndarray:
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    return ReferenceEvaluator(m).run(None, {"x": x})[0]


# -- lrn -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_lrn_matches_numpy_and_compiles(size: int) -> None:
    """Against a per-channel loop of the ONNX formula (onnx's reference LRN
    loops over the batch axis instead of the channels)."""
    x = RNG.standard_normal((2, 6, 3, 4)).astype(np.float32)
    got = run_both(lambda b, v: b.lrn(v, size, 1e-2, 0.75, 2.0), x)
    want = np.empty_like(x)
    for c in range(6):
        lo, hi = max(0, c - (size - 1) // 2), min(6, c + size // 2 + 1)
        sq = np.sum(x[:, lo:hi].astype(np.float64) ** 2, axis=1)
        want[:, c] = x[:, c] / (2.0 + 1e-2 / size * sq) ** 0.75
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_lrn_verifier() -> None:
    b = GraphBuilder("f")
    with pytest.raises(VerifyException, match="graph.lrn: size must be positive"):
        b.lrn(b.input((1, 3, 2, 2)), 0)
    with pytest.raises(VerifyException, match="rank >= 2"):
        b.lrn(b.input((3,)), 3)


@pytest.mark.parametrize("compiled", [False, True])
def test_lrn_gradient(compiled: bool) -> None:
    x = RNG.standard_normal((1, 5, 2, 3))
    module = build_module(lambda b, a: b.lrn(a[0], 3, 0.3, 0.75, 1.5), [x])
    check_vjp(module, [x], rng=RNG, compiled=compiled)


# -- pooling: dilations and ceil_mode -----------------------------------------------------

POOLS = [
    # kernel, strides, padding, dilations, ceil_mode, input hw
    ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, (8, 8)),
    ((2, 2), (2, 2), (0, 0, 0, 0), (2, 2), True, (9, 9)),
    ((2, 3), (1, 2), (1, 0, 1, 2), (2, 1), False, (7, 8)),
    ((3, 2), (3, 2), (0, 1, 1, 0), (1, 2), True, (10, 7)),
]


def _onnx_pool_attrs(kernel, strides, padding, dilations, ceil):
    pt, pl, pb, pr = padding
    return dict(kernel_shape=list(kernel), strides=list(strides), pads=[pt, pl, pb, pr],
                dilations=list(dilations), ceil_mode=int(ceil))


@pytest.mark.parametrize("kernel,strides,padding,dilations,ceil,hw", POOLS)
def test_max_pool_dilations_ceil(kernel, strides, padding, dilations, ceil, hw) -> None:
    x = RNG.standard_normal((1, 2, *hw)).astype(np.float32)
    got = run_both(lambda b, v: b.max_pool2d(v, kernel, strides, padding, dilations=dilations, ceil_mode=ceil), x)
    want = onnx_node("MaxPool", x, **_onnx_pool_attrs(kernel, strides, padding, dilations, ceil))
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("include_pad", [False, True])
@pytest.mark.parametrize("kernel,strides,padding,dilations,ceil,hw", POOLS)
def test_avg_pool_dilations_ceil(kernel, strides, padding, dilations, ceil, hw, include_pad) -> None:
    x = RNG.standard_normal((1, 2, *hw)).astype(np.float32)
    got = run_both(
        lambda b, v: b.avg_pool2d(v, kernel, strides, padding, include_pad, dilations=dilations, ceil_mode=ceil), x
    )
    # A numpy loop: each window's taps inside the input (and, with
    # count_include_pad, the padding) -- never those past it.
    (sh, sw), (dh, dw), (pt, pl, pb, pr) = strides, dilations, padding
    h, w = hw
    oh, ow = got.shape[2:]
    want = np.zeros_like(got)
    for r in range(oh):
        for q in range(ow):
            rows = [r * sh - pt + i * dh for i in range(kernel[0])]
            cols = [q * sw - pl + j * dw for j in range(kernel[1])]
            total = sum(x[:, :, a, c] for a in rows for c in cols if 0 <= a < h and 0 <= c < w)
            lo_h, hi_h, lo_w, hi_w = (-pt, h + pb, -pl, w + pr) if include_pad else (0, h, 0, w)
            count = sum(1 for a in rows for c in cols if lo_h <= a < hi_h and lo_w <= c < hi_w)
            want[:, :, r, q] = total / count
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_ceil_mode_output_size() -> None:
    """The last window starts inside the input or the top/left padding."""
    b = GraphBuilder("f")
    x = b.input((1, 1, 5, 5))
    assert b.max_pool2d(x, (2, 2), (2, 2), ceil_mode=True).type.get_shape() == (1, 1, 3, 3)
    assert b.max_pool2d(x, (2, 2), (2, 2)).type.get_shape() == (1, 1, 2, 2)
    # ceil((5 + 1 - 2) / 2) + 1 = 3 windows, but the third would start at 4 - 1 = 3 < 5: kept
    assert b.max_pool2d(x, (2, 2), (2, 2), (1, 1, 0, 0), ceil_mode=True).type.get_shape() == (1, 1, 3, 3)
    x4 = b.input((1, 1, 4, 4))
    # ceil((4 + 2 - 3) / 3) + 1 = 3, but window 3 would start at 6 - 1 = 5 >= 4 + 1: dropped
    assert b.max_pool2d(x4, (3, 3), (3, 3), (1, 1, 1, 1), ceil_mode=True).type.get_shape() == (1, 1, 2, 2)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("kernel,strides,padding,dilations,ceil,hw", POOLS[:3])
def test_pool_gradients_dilations_ceil(kernel, strides, padding, dilations, ceil, hw, compiled) -> None:
    n = int(np.prod(hw)) * 2
    distinct = (RNG.permutation(n) * 0.1).reshape(1, 2, *hw)
    module = build_module(
        lambda b, a: b.max_pool2d(a[0], kernel, strides, padding, dilations=dilations, ceil_mode=ceil), [distinct]
    )
    check_vjp(module, [distinct], rng=RNG, compiled=compiled)
    for include_pad in (False, True):
        x = RNG.standard_normal((1, 2, *hw))
        module = build_module(
            lambda b, a: b.avg_pool2d(a[0], kernel, strides, padding, include_pad, dilations=dilations,
                                      ceil_mode=ceil),
            [x],
        )
        check_vjp(module, [x], rng=RNG, compiled=compiled)
