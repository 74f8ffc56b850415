"""``graph.depthwise_conv2d_nchwc`` (the NCHWc depthwise conv): its reference
against a float64 NCHW depthwise conv, the ``layout-nchwc`` rewrite of a
depthwise ``graph.conv2d``, and the micro-kernel of
``lowering/depthwise_nchwc.py`` (borders left out at compile time, strides,
dilations, tile remainders, vector and scalar epilogues) at 1 and 2 threads,
for AVX2 (blocks of 8, tiles of 6 pixels) and AVX-512 (16, 8), run where
this machine can and compiled to an object file elsewhere; a non-finite
weight keeps the generic rule, NaN where the reference has it."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import memref, vector

import graphopt
from graphopt.dialects import graph
from graphopt.dialects.graph import tensor_of
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.lowering import depthwise_nchwc
from graphopt.testing.gradcheck import build_module, check_vjp
from isa_check import CPUS, check_compiled, lanes, lowered, target, with_target

RNG = np.random.default_rng(12)
LAYOUT = "layout-nchwc{min-convs=1 min-macs-per-reordered=0}"


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def depthwise64(x: np.ndarray, w: np.ndarray, s: int, p: int, d: int) -> np.ndarray:
    """A float64 NCHW depthwise conv, one tap at a time."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    _, _, kh, kw = w.shape
    oh = (xp.shape[2] - d * (kh - 1) - 1) // s + 1
    ow = (xp.shape[3] - d * (kw - 1) - 1) // s + 1
    out = np.zeros((x.shape[0], x.shape[1], oh, ow))
    for i in range(kh):
        for j in range(kw):
            rows, cols = xp[:, :, i * d : i * d + s * oh : s, j * d : j * d + s * ow : s], w[:, 0, i, j]
            out += rows * cols[None, :, None, None]
    return out


def model(x: np.ndarray, w: np.ndarray, s: int, p: int, d: int, epilogue: str):
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    c = x.shape[1]
    y = b.conv2d(xi, b.constant(w), (s, s), (p, p, p, p), (d, d), groups=c)
    if epilogue == "bias_relu":
        y = b.relu(b.add(y, b.constant(rand(c, 1, 1))))
    elif epilogue == "scalar":  # tanh has no vector epilogue: the scalar one reads the tile
        y = b.tanh(y)
    return b.build(y)


CASES = [
    # c, size, kernel, stride, pad, dilation, epilogue, threads
    (32, 7, 3, 1, 1, 1, "bias_relu", 1),  # one tile a row, every row and column a border
    (16, 20, 3, 1, 1, 1, "none", 2),  # tiles of 8: two interior, a remainder of 4
    (48, 17, 3, 2, 1, 1, "bias_relu", 1),  # stride 2, odd size
    (32, 12, 5, 1, 2, 1, "none", 2),  # 5x5, two border rows and columns
    (16, 13, 3, 1, 2, 2, "bias_relu", 1),  # dilated
    (32, 9, 3, 1, 0, 1, "scalar", 2),  # no padding, scalar epilogue
]


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("c,size,k,s,p,d,epilogue,threads", CASES)
def test_micro_kernel_matches_float64(c, size, k, s, p, d, epilogue, threads, cpu) -> None:
    block = lanes(cpu)
    x, w = rand(1, c, size, size), rand(c, 1, k, k)
    m = model(x, w, s, p, d, epilogue)
    blocked = m.clone()
    run_pipeline(with_target(blocked, cpu), LAYOUT)
    op = next(op for op in blocked.walk() if isinstance(op, graph.DepthwiseConv2dNchwcOp))
    assert tensor_of(op.input).get_shape()[4] == block
    want = interpret(m, x)[0]
    np.testing.assert_allclose(interpret(blocked, x)[0], want, rtol=1e-5, atol=1e-5)
    loops = lowered(blocked, cpu)
    fmas = sum(isinstance(op, vector.FMAOp) for op in loops.walk())
    assert fmas >= c // block and fmas > 0  # the micro-kernel, not the generic rule
    if epilogue == "scalar":  # the register tile goes through a stack tile
        assert any(isinstance(op, memref.AllocaOp) for op in loops.walk())
    check_compiled(blocked, cpu, [x], want, threads=threads, bounds_check=True, rtol=1e-5, atol=1e-5)
    if epilogue == "none" and target(cpu).runs_on_host():
        got = graphopt.compile(blocked, opt_level=2, num_threads=threads, target=target(cpu))["f"](x)
        np.testing.assert_allclose(got, depthwise64(x, w, s, p, d), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cpu", CPUS)
def test_tile_pixels_fit_the_registers(cpu) -> None:
    """3x3: 8 pixels beside the 9 weights in 32 registers, 6 in 16; 5x5: 6
    in 32, and 8 in 16 (25 weights, more than the registers hold: they are
    reloaded, the tile keeps its size)."""
    t = target(cpu)
    wide = t.vector_registers == 32
    assert depthwise_nchwc.tile_pixels(t, lanes(cpu), 9) == (8 if wide else 6)
    assert depthwise_nchwc.tile_pixels(t, lanes(cpu), 25) == (6 if wide else 8)


@pytest.mark.parametrize("cpu", CPUS)
def test_layout_pass_blocks_the_depthwise_weight(cpu) -> None:
    """The weight [C, 1, KH, KW] becomes [C/b, KH, KW, b] at compile time."""
    block = lanes(cpu)
    x, w = rand(1, 32, 6, 6), rand(32, 1, 3, 3)
    m = model(x, w, 1, 1, 1, "none")
    run_pipeline(with_target(m, cpu), LAYOUT)
    op = next(o for o in m.walk() if isinstance(o, graph.DepthwiseConv2dNchwcOp))
    packed = op.weight.owner.reference()[0]
    np.testing.assert_array_equal(packed, w.reshape(32 // block, block, 3, 3).transpose(0, 2, 3, 1))


@pytest.mark.parametrize("kind", [np.inf, np.nan])
def test_non_finite_weight_keeps_the_padded_products(kind) -> None:
    """A padded tap multiplies a real zero: an infinite weight makes NaN at
    the borders.  The micro-kernel leaves such taps out, so a non-finite
    weight takes the generic rule, and the result is the reference's."""
    x, w = rand(1, 16, 6, 6), rand(16, 1, 3, 3)
    w[3, 0, 0, 0] = kind
    m = model(x, w, 1, 1, 1, "none")
    run_pipeline(m, LAYOUT)
    with np.errstate(invalid="ignore"):
        want = interpret(m, x)[0]
    got = graphopt.compile(m, opt_level=2)["f"](x)
    assert np.isnan(want).any()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("s,p,d", [(1, 1, 1), (2, 1, 1), (1, 2, 2)])
def test_gradients_match_finite_differences(s, p, d) -> None:
    """The gradient rule (the NCHW depthwise backward ops between reorders,
    the weight unblocked and its gradient blocked back)."""

    def build(b, args):
        return b.reorder_nchw(b.depthwise_conv2d_nchwc(b.reorder_nchwc(args[0], 16), args[1], (s, s), (p, p, p, p), (d, d)))

    inputs = [RNG.standard_normal((1, 32, 6, 6)), RNG.standard_normal((2, 3, 3, 16))]
    check_vjp(build_module(build, inputs), inputs, rng=RNG)
