"""The NCHWc layout: ``graph.conv2d_nchwc`` and the reorders against their
numpy reference (and a float64 conv), compiled at 1 and 2 threads (the
micro-kernel of lowering/conv_nchwc.py, wide and narrow tiles, flat and
per-row pixels, padded, strided, an NCHW input, vector and scalar
epilogues), and the ``layout-nchwc`` pass preserving semantics."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import vector

import graphopt
from graphopt.dialects import graph
from graphopt.dialects.loop import PrefetchOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.testing.gradcheck import build_module, check_vjp

RNG = np.random.default_rng(11)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def conv64(x: np.ndarray, w: np.ndarray, s: int, p: int) -> np.ndarray:
    """A float64 NCHW conv, one tap at a time."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    o, _, kh, kw = w.shape
    oh, ow = (xp.shape[2] - kh) // s + 1, (xp.shape[3] - kw) // s + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i : i + s * oh : s, j : j + s * ow : s], w[:, :, i, j])
    return out


def test_reorders_are_inverse_and_match_numpy() -> None:
    x = rand(2, 32, 3, 5)
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    blocked = b.reorder_nchwc(xi, 16)
    m = b.build(blocked, b.reorder_nchw(blocked))
    want = x.reshape(2, 2, 16, 3, 5).transpose(0, 1, 3, 4, 2)
    for got in (interpret(m, x), graphopt.compile(m, opt_level=2)["f"](x)):
        np.testing.assert_array_equal(got[0], want)
        np.testing.assert_array_equal(got[1], x)


CASES = [
    # c, o, size, kernel, stride, pad, blocked input, threads   (tile chosen)
    (64, 64, 10, 1, 1, 0, True, 1),  # wide tile, flat pixels, remainder tile
    (32, 48, 9, 1, 1, 0, True, 2),  # narrow tile, odd last block, 8-pixel tiles
    (32, 64, 8, 3, 1, 1, True, 1),  # padded 3x3, narrow rows of 8 pixels
    (64, 64, 13, 3, 2, 1, True, 2),  # strided, padded
    (64, 32, 14, 1, 2, 0, True, 1),  # pointwise stride 2: per row, not flat
    (3, 32, 20, 7, 2, 3, False, 2),  # the stem: NCHW input
    (256, 64, 7, 3, 1, 1, True, 2),  # many blocks: two-level sums
]


@pytest.mark.parametrize("c,o,size,k,s,p,blocked,threads", CASES)
def test_conv2d_nchwc_compiled(c, o, size, k, s, p, blocked, threads) -> None:
    """Bias, residual add and relu fused as the vector epilogue."""
    x, w = rand(1, c, size, size), rand(o, c, k, k) * 0.1
    oh = (size + 2 * p - k) // s + 1
    bias, res = rand(o // 16, 1, 1, 16), rand(1, o // 16, oh, oh, 16)
    b = GraphBuilder("f")
    xi, ri = b.input(x.shape), b.input(res.shape)
    xin = b.reorder_nchwc(xi, 16) if blocked else xi
    y = b.conv2d_nchwc(xin, b.constant(w), (s, s), (p,) * 4, (1, 1), 16)
    m = b.build(b.relu(b.add(b.add(y, b.constant(bias)), ri)))
    want = np.maximum(graph.to_blocked(conv64(x, w, s, p), 16) + bias + res, 0)
    np.testing.assert_allclose(interpret(m, x, res)[0], want, rtol=1e-4, atol=1e-4)
    lowered = m.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    assert any(isinstance(op, vector.FMAOp) for op in lowered.walk())  # the micro-kernel
    got = graphopt.compile(m, opt_level=2, num_threads=threads)["f"](x, res)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


PREFETCH_CASES = [
    (256, 64, 10, 1, 1, 0, True, 1),  # strips of one tile, two blocks: every line, wrapping in the panel
    (512, 128, 7, 1, 1, 0, True, 2),  # a panel one strip: on into the next panel
    (64, 64, 7, 3, 1, 1, True, 1),  # 3x3, a panel one strip
    (64, 64, 12, 3, 1, 1, True, 2),  # 3x3 in strips of rows, wrapping in the panel
]


@pytest.mark.parametrize("c,o,size,k,s,p,blocked,threads", PREFETCH_CASES + CASES)
def test_weight_prefetches_stay_inside_the_packed_weights(c, o, size, k, s, p, blocked, threads) -> None:
    """The kernel's ``loop.prefetch``es of the next block's weights, compiled
    with bounds checking (a prefetch outside the packed weights is an
    error), change nothing in the result."""
    x, w = rand(1, c, size, size), rand(o, c, k, k) * 0.1
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    m = b.build(b.conv2d_nchwc(b.reorder_nchwc(xi, 16) if blocked else xi, b.constant(w), (s, s), (p,) * 4, (1, 1), 16))
    lowered = m.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    prefetches = sum(isinstance(op, PrefetchOp) for op in lowered.walk())
    if (c, o, size, k) in [case[:4] for case in PREFETCH_CASES]:
        assert prefetches > 0
    got = graphopt.compile(m, opt_level=2, num_threads=threads, bounds_check=True)["f"](x)
    want = graph.to_blocked(conv64(x, w, s, p), 16)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_scalar_epilogue_and_input_weight() -> None:
    """A sigmoid epilogue (not on vectors) reads the tile per element; a
    weight that is an input takes the compute rule's loops."""
    x, w = rand(1, 32, 6, 6), rand(32, 32, 3, 3) * 0.1
    b = GraphBuilder("f")
    xi, wi = b.input(x.shape), b.input(w.shape)
    xb = b.reorder_nchwc(xi, 16)
    y1 = b.sigmoid(b.conv2d_nchwc(xb, b.constant(w), (1, 1), (1, 1, 1, 1), (1, 1), 16))
    y2 = b.conv2d_nchwc(xb, wi, (1, 1), (1, 1, 1, 1), (1, 1), 16)
    m = b.build(y1, y2)
    conv = graph.to_blocked(conv64(x, w, 1, 1), 16)
    got = graphopt.compile(m, opt_level=2)["f"](x, w)
    np.testing.assert_allclose(got[0], 1 / (1 + np.exp(-conv)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], conv, rtol=1e-4, atol=1e-4)


def _net(b: GraphBuilder, x, channels: int = 32):
    """Two conv chains with a residual, a max-pool that stays blocked in the
    middle, a per-channel bias, a scalar scale and a spatial constant."""
    c = b.constant
    y = b.relu(b.add(b.conv2d(x, c(rand(channels, 16, 3, 3) * 0.1), (1, 1), (1, 1, 1, 1)), c(rand(channels, 1, 1))))
    z = b.conv2d(y, c(rand(channels, channels, 1, 1) * 0.1))
    z = b.relu(b.add(b.mul(z, c(np.float32(0.5).reshape(1))), y))
    z = b.max_pool2d(z, (2, 2), strides=(2, 2))
    z = b.add(b.conv2d(z, c(rand(channels, channels, 1, 1) * 0.1)), c(rand(1, 1, 4, 4)))
    return b.relu(b.conv2d(z, c(rand(channels, channels, 3, 3) * 0.1), (1, 1), (1, 1, 1, 1)))


def test_layout_pass_preserves_semantics() -> None:
    b = GraphBuilder("f")
    x = b.input((1, 16, 8, 8))
    m = b.build(_net(b, x))
    before = m.clone()
    run_pipeline(m, "layout-nchwc{min-macs-per-reordered=0}")
    names = [op.name for op in m.walk()]
    assert names.count("graph.conv2d_nchwc") == 4 and "graph.conv2d" not in names
    assert names.count("graph.max_pool2d_nchwc") == 1 and "graph.max_pool2d" not in names
    assert names.count("graph.reorder_nchw") == 1  # out of the function
    xs = rand(1, 16, 8, 8)
    want = interpret(before, xs)[0]
    np.testing.assert_allclose(interpret(m, xs)[0], want, rtol=1e-5, atol=1e-5)
    for threads in (1, 2):
        got = graphopt.compile(m, opt_level=3, num_threads=threads)["f"](xs)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_layout_pass_blocks_the_stem_and_its_pool() -> None:
    """A conv on a 3-channel image reads it as it is (no reorder), and the
    padded max-pool after it stays blocked."""
    b = GraphBuilder("f")
    x = b.input((1, 3, 20, 20))
    c = b.constant
    y = b.relu(b.conv2d(x, c(rand(32, 3, 5, 5) * 0.1), (2, 2), (2, 2, 2, 2)))
    y = b.max_pool2d(y, (3, 3), strides=(2, 2), padding=(1, 1, 1, 1))
    m = b.build(b.conv2d(y, c(rand(32, 32, 1, 1) * 0.1)))
    before = m.clone()
    run_pipeline(m, "layout-nchwc{min-macs-per-reordered=0}")
    names = [op.name for op in m.walk()]
    assert names.count("graph.conv2d_nchwc") == 2 and names.count("graph.max_pool2d_nchwc") == 1
    assert "graph.reorder_nchwc" not in names and names.count("graph.reorder_nchw") == 1
    xs = rand(1, 3, 20, 20)
    want = interpret(before, xs)[0]
    np.testing.assert_allclose(interpret(m, xs)[0], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(graphopt.compile(m, opt_level=3)["f"](xs), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel,stride,pad,threads", [((3, 3), 2, 1, 1), ((2, 2), 2, 0, 2), ((3, 3), 1, 1, 2)])
def test_max_pool2d_nchwc_is_the_nchw_pool_blocked(kernel, stride, pad, threads) -> None:
    """Bit for bit the NCHW max-pool between reorders (padding never wins,
    a NaN propagates), compiled and in the reference."""
    x = rand(1, 32, 9, 9)
    x[0, 3, 4, 4] = np.nan
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    pads = (pad,) * 4
    m = b.build(b.max_pool2d_nchwc(b.reorder_nchwc(xi, 16), kernel, (stride, stride), pads))
    r = GraphBuilder("g")
    ri = r.input(x.shape)
    want = graph.to_blocked(interpret(r.build(r.max_pool2d(ri, kernel, (stride, stride), pads)), x)[0], 16)
    np.testing.assert_array_equal(interpret(m, x)[0], want)
    np.testing.assert_array_equal(graphopt.compile(m, opt_level=3, num_threads=threads)["f"](x), want)


def test_max_pool2d_nchwc_gradient() -> None:
    """Distinct values (no ties): the gradient goes to each window's maximum."""
    inputs = [RNG.permutation(576).reshape(1, 16, 6, 6).astype(np.float64)]

    def build(b, args):
        return b.reorder_nchw(b.max_pool2d_nchwc(b.reorder_nchwc(args[0], 16), (3, 3), (2, 2), (1, 1, 1, 1)))

    check_vjp(build_module(build, inputs), inputs, rng=RNG)


def test_layout_pass_leaves_what_it_cannot_block() -> None:
    """Grouped, dilated, input-weight, non-16 convs and lone convs stay NCHW;
    so do chains whose reorders would cost more than they save."""
    b = GraphBuilder("f")
    x, wi = b.input((1, 32, 8, 8)), b.input((32, 32, 1, 1))
    c = b.constant
    y = b.conv2d(x, c(rand(32, 16, 3, 3)), (1, 1), (1, 1, 1, 1), (1, 1), 2)
    y = b.conv2d(y, c(rand(32, 32, 3, 3)), (1, 1), (2, 2, 2, 2), (2, 2))
    y = b.conv2d(y, wi)
    y = b.conv2d(y, c(rand(24, 32, 1, 1)))
    lone = b.conv2d(x, c(rand(32, 32, 1, 1)))
    m = b.build(y, lone)
    run_pipeline(m, "layout-nchwc")
    assert not any(isinstance(op, graph.Conv2dNchwcOp | graph.ReorderNchwOp) for op in m.walk())
    b = GraphBuilder("f")
    x = b.input((1, 16, 8, 8))
    m = b.build(_net(b, x))
    run_pipeline(m, "layout-nchwc")  # 8x8 convs: too little work per reordered element
    assert not any(isinstance(op, graph.Conv2dNchwcOp) for op in m.walk())


def test_gradients() -> None:
    def build(b, a):
        y = b.conv2d_nchwc(b.reorder_nchwc(a[0], 16), a[1], (2, 2), (1, 1, 1, 1), (1, 1), 16)
        return b.reorder_nchw(y)

    inputs = [RNG.standard_normal((1, 16, 5, 5)), RNG.standard_normal((16, 16, 3, 3))]
    check_vjp(build_module(build, inputs), inputs, rng=RNG)
