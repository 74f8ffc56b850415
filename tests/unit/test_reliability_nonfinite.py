"""±inf and NaN through conv2d, the pools, padding and their gradients
(issue 15, item 4).  Padding is a real zero that is multiplied (ONNX,
PyTorch): an infinite weight makes NaN at padded taps, and a NaN input never
reaches a window that lies entirely in the padding.  The compiled code
(row and dot-product forms, -O0 and fused at -O2) must agree with the
reference, NaN for NaN."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import graphopt
from graphopt.dialects.graph import (
    AvgPool2dGradOp,
    Conv2dGradFilterOp,
    Conv2dGradInputOp,
    MaxPool2dGradOp,
)
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.compile import parse_text
from graphopt.runtime.reference import interpret

RNG = np.random.default_rng(4)
SPECIAL = {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}


def inject(a: np.ndarray, kind: str, at: list[int]) -> np.ndarray:
    a = a.copy()
    a.reshape(-1)[[k % a.size for k in at]] = SPECIAL[kind]
    return a


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def check(build, inputs, levels=(0, 2)) -> None:
    b = GraphBuilder("f")
    args = [b.input(a.shape, a.dtype) for a in inputs]
    module = b.build(build(b, args))
    with np.errstate(all="ignore"):
        want = interpret(module, *inputs)[0]
    for level in levels:
        got = graphopt.compile(module, opt_level=level)["f"](*inputs)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"-O{level}")


CONV = [
    # x, w, strides, padding, dilations, groups
    ((1, 2, 5, 7), (3, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # row form
    ((1, 2, 5, 9), (2, 2, 3, 3), (1, 1), (2, 2, 2, 2), (1, 1), 1),  # windows wholly in padding
    ((1, 2, 3, 3), (2, 2, 3, 3), (2, 2), (2, 1, 2, 1), (1, 1), 1),  # dot-product form
    ((1, 4, 6, 8), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (2, 2), 4),  # depthwise, dilated
]


@pytest.mark.parametrize("case", CONV, ids=["row", "all-pad", "dot", "depthwise"])
@pytest.mark.parametrize("kind,target", list(itertools.product(SPECIAL, ["x", "w"])))
def test_conv2d(case, kind, target) -> None:
    xs, ws, strides, padding, dilations, groups = case
    x, w = randn(*xs), randn(*ws)
    if target == "x":
        x = inject(x, kind, [0, 7])
    else:
        w = inject(w, kind, [0, 5])

    def build(b, a):
        y = b.conv2d(a[0], a[1], strides, padding, dilations, groups)
        return b.relu(b.add(y, b.constant(np.float32(0.5))))  # a fused epilogue at -O2

    check(build, [x, w])


def test_padding_multiplies_a_real_zero() -> None:
    """The semantics themselves: 0 * inf = NaN at a padded tap; a window in
    the padding ignores a NaN elsewhere in the input."""
    x = np.ones((1, 1, 1, 1), np.float32)
    w = np.full((1, 1, 3, 3), np.inf, np.float32)
    b = GraphBuilder("f")
    a = [b.input(x.shape, x.dtype), b.input(w.shape, w.dtype)]
    module = b.build(b.conv2d(a[0], a[1], (1, 1), (1, 1, 1, 1)))
    with np.errstate(all="ignore"):
        assert np.isnan(interpret(module, x, w)[0]).all()
    assert np.isnan(graphopt.compile(module)["f"](x, w)).all()
    xn = np.full((1, 1, 1, 1), np.nan, np.float32)
    b = GraphBuilder("f")
    a = [b.input(xn.shape, xn.dtype), b.input((1, 1, 1, 1), np.float32)]
    module = b.build(b.conv2d(a[0], a[1], (1, 1), (2, 2, 2, 2)))
    want = interpret(module, xn, np.ones((1, 1, 1, 1), np.float32))[0]
    got = graphopt.compile(module)["f"](xn, np.ones((1, 1, 1, 1), np.float32))
    assert np.isnan(want[0, 0, 2, 2]) and np.count_nonzero(np.isnan(want)) == 1
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kind", SPECIAL)
def test_pools_and_pad(kind) -> None:
    x = inject(randn(1, 2, 5, 6), kind, [0, 9])
    check(lambda b, a: b.max_pool2d(a[0], (3, 3), (2, 2), (1, 1, 1, 1)), [x])
    for include in (False, True):
        check(lambda b, a: b.avg_pool2d(a[0], (3, 3), (2, 2), (1, 1, 1, 1), include), [x])
    check(lambda b, a: b.pad(a[0], [1, 1, 1, 1]), [inject(randn(2, 3), kind, [0])])


@pytest.mark.parametrize("kind", SPECIAL)
def test_window_gradients(kind) -> None:
    xs, ws, pad = (1, 2, 5, 6), (3, 2, 3, 3), (1, 1, 1, 1)
    x, w, g = randn(*xs), randn(*ws), randn(1, 3, 5, 6)
    gi, wi, xi = inject(g, kind, [0, 11]), inject(w, kind, [4]), inject(x, kind, [0, 13])

    def grad_input(b, a):
        return b.apply(Conv2dGradInputOp(a[0], a[1], xs, padding=pad))

    def grad_filter(b, a):
        return b.apply(Conv2dGradFilterOp(a[0], a[1], (3, 3), padding=pad))

    check(grad_input, [gi, w])
    check(grad_input, [g, wi])
    check(grad_filter, [x, gi])
    check(grad_filter, [xi, g])
    p, window = randn(1, 2, 3, 3), ((3, 3), (2, 2), (1, 1, 1, 1))
    check(lambda b, a: b.apply(MaxPool2dGradOp(a[0], a[1], *window)), [xi, p])
    check(lambda b, a: b.apply(MaxPool2dGradOp(a[0], a[1], *window)), [x, inject(p, kind, [0, 4])])
    for include in (False, True):
        check(
            lambda b, a: b.apply(AvgPool2dGradOp(a[0], xs, *window, count_include_pad=include)),
            [inject(p, kind, [0, 4])],
        )



def _mismatch(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where ``got`` and ``want`` differ in bits; any NaN matches any NaN."""
    return (got.view(np.uint32) != want.view(np.uint32)) & ~(np.isnan(got) & np.isnan(want))


@pytest.mark.parametrize("n", [1, 3, 64])  # a pair per row, a scalar remainder, whole vectors
def test_maximum_minimum_clip_are_numpys_bit_for_bit(n) -> None:
    """maximum, minimum, relu and clip return what numpy returns, signed zeros
    included (numpy's ``maximum(+0, -0)`` is ``-0``, its second operand) and
    NaN from either side: the reference, and the compiled code at -O0 and -O2."""
    values = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan], np.float32)
    pairs = [np.resize(v.reshape(-1, 1), (49, n)) for v in np.meshgrid(values, values, indexing="ij")]
    t = f"tensor<49x{n}xf32>"
    module = parse_text(f"""
    func.func @f(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}, {t}) {{
      %max = graph.maximum %a, %b : ({t}, {t}) -> {t}
      %min = graph.minimum %a, %b : ({t}, {t}) -> {t}
      %relu = graph.relu %a : {t}
      %lo = graph.clip %a {{min = -0.0 : f64, max = 1.0 : f64}} : {t}
      %hi = graph.clip %a {{min = -1.0 : f64, max = 0.0 : f64}} : {t}
      func.return %max, %min, %relu, %lo, %hi : {t}, {t}, {t}, {t}, {t}
    }}""")
    a, b = pairs
    z, one = np.float32(0), np.float32(1)
    want = [np.maximum(a, b), np.minimum(a, b), np.maximum(a, z),
            np.minimum(np.maximum(a, -z), one), np.minimum(np.maximum(a, -one), z)]  # fmt: skip
    names = ("maximum", "minimum", "relu", "clip lo", "clip hi")
    runs = {"reference": interpret(module, a, b)}
    runs.update({f"-O{level}": graphopt.compile(module, opt_level=level)["f"](a, b) for level in (0, 2)})
    for run, outs in runs.items():
        for name, g, w in zip(names, outs, want, strict=True):
            bad = _mismatch(np.asarray(g), w)
            assert not bad.any(), f"{run} {name}({a[bad]}, {b[bad]}) = {np.asarray(g)[bad]}, numpy {w[bad]}"
