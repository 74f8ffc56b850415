"""The conv schedule (lowering/conv_gemm.py): 3x3, 7x7, strided, dilated,
padded and grouped convs as an implicit GEMM, compiled against a float64
numpy reference, with constant (compile-time packed) and input weights, with
remainders in the output width (not a multiple of 8 pixels) and in the output
channels (not a multiple of 32), and fused epilogues (bias, batch-norm scale
and shift, relu, clip, a residual add)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import vector

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.conv_gemm import pack_conv_weight
from graphopt.lowering.conv_pixels import fits_pixel_tile
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.lowering.register_tile import GemmTile
from graphopt.runtime.compile import run_pipeline
from graphopt.target import Target

RNG = np.random.default_rng(7)


def uses_micro_kernel(module) -> bool:
    m = module.clone()
    run_pipeline(m, "O2")
    lower_graph_to_loop(m)
    return any(isinstance(op, vector.FMAOp) for op in m.walk())


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def conv_ref(x, w, stride, pads, dil, groups) -> np.ndarray:
    """Direct float64 convolution (zero padding), one tap at a time."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    pt, pl, pb, pr = pads
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt : pt + h, pl : pl + wd] = x
    oh = (h + pt + pb - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pl + pr - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for ky in range(kh):
            for kx in range(kw):
                y0, x0 = ky * dil[0], kx * dil[1]
                patch = xp[:, g * cg : (g + 1) * cg,
                           y0 : y0 + stride[0] * (oh - 1) + 1 : stride[0],
                           x0 : x0 + stride[1] * (ow - 1) + 1 : stride[1]]  # fmt: skip
                out[:, g * og : (g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og : (g + 1) * og, :, ky, kx])
    return out


def check(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
    assert err < 2e-6, err


# (N, C, H, W, O, k, stride, pads, dilation, groups)
SHAPES = [
    (1, 8, 9, 11, 40, 3, 1, (1, 1, 1, 1), 1, 1),  # an 11-pixel row (a full tile and a 3-pixel one), an 8-channel tail panel
    (2, 6, 13, 10, 20, 3, 2, (1, 1, 1, 1), 1, 1),  # stride 2, two images, a 20-channel tail panel (two vectors)
    (1, 3, 23, 23, 64, 7, 2, (3, 3, 3, 3), 1, 1),  # the 7x7 stem form
    (1, 16, 10, 10, 48, 3, 1, (2, 2, 2, 2), 2, 2),  # dilation 2, two groups of 24 channels
    (1, 16, 24, 24, 32, 1, 2, (0, 0, 0, 0), 1, 1),  # 1x1 stride 2 (one phase copied)
    (1, 12, 8, 9, 33, 3, 1, (0, 2, 1, 0), 1, 1),  # asymmetric padding, 33 channels
    (1, 40, 20, 20, 18, 2, 3, (1, 0, 0, 1), 1, 1),  # stride 3, even kernel, two channel blocks of 20
    (1, 72, 5, 5, 32, 3, 1, (1, 1, 1, 1), 1, 1),  # six channel blocks: compensated block sums
]


# Weights read from an input (copied per panel) for a few shapes, constant
# (packed at compile time) for all.
CASES = [(*s, "constant") for s in SHAPES] + [(*SHAPES[i], "input") for i in (0, 3)]


def outputs_flag_on_and_off(flags, name: str, module, inputs) -> list[np.ndarray]:
    """``module``'s output compiled with the schedule switch ``flags.name``
    on, then off (each run checked equal at 1 and 2 threads)."""
    from threads_check import call_threaded, compile_threaded

    saved, outs = getattr(flags, name), []
    for on in (True, False):
        setattr(flags, name, on)
        try:
            outs.append(call_threaded(compile_threaded(module, opt_level=2), inputs)[0])
        finally:
            setattr(flags, name, saved)
    return outs


@pytest.mark.parametrize("n,c,h,w,o,k,s,pads,d,g,weights", CASES)
def test_conv_as_implicit_gemm(n, c, h, w, o, k, s, pads, d, g, weights) -> None:
    xs, ws, bias = rand(n, c, h, w), rand(o, c // g, k, k), rand(o, 1, 1)
    b = GraphBuilder("f")
    x = b.input((n, c, h, w), name="x")
    wv = b.constant(ws) if weights == "constant" else b.input(ws.shape, name="w")
    y = b.conv2d(x, wv, (s, s), pads, (d, d), g)
    module = b.build(b.relu(b.add(y, b.constant(bias))))
    assert uses_micro_kernel(module)
    want = np.maximum(conv_ref(xs, ws, (s, s), pads, (d, d), g) + bias, 0)
    args = (xs,) if weights == "constant" else (xs, ws)
    check(graphopt.compile(module, opt_level=2)["f"](*args), want)


def test_batch_norm_clip_and_residual_epilogue() -> None:
    """conv -> batch_norm -> + residual -> clip, all on the register tile."""
    n, c, h, w, o = 1, 16, 11, 13, 48
    xs, ws, res = rand(n, c, h, w), rand(o, c, 3, 3), rand(n, o, h, w)
    scale, shift, mean = rand(o), rand(o), rand(o)
    var = np.abs(rand(o)) + 0.5
    b = GraphBuilder("f")
    x, r = b.input(xs.shape, name="x"), b.input(res.shape, name="r")
    y = b.conv2d(x, b.constant(ws), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    y = b.batch_norm(y, b.constant(scale), b.constant(shift), b.constant(mean), b.constant(var), 1e-5)
    module = b.build(b.clip(b.add(y, r), 0.0, 6.0))
    assert uses_micro_kernel(module)
    conv = conv_ref(xs, ws, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    f = (scale / np.sqrt(var + 1e-5))[None, :, None, None]
    want = np.clip((conv - mean[None, :, None, None]) * f + shift[None, :, None, None] + res, 0, 6)
    got = graphopt.compile(module, opt_level=2)["f"](xs, res)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_padding_multiplies_a_real_zero() -> None:
    """An infinite weight on a tap that lies in the padding gives NaN there
    (0 * inf), as in ONNX; NaN in x never leaks into a window that misses it."""
    xs, ws = rand(1, 4, 6, 6), rand(32, 4, 3, 3)
    ws[0, 0, 0, 0] = np.inf
    xs[0, 1, 5, 5] = np.nan
    b = GraphBuilder("f")
    x = b.input(xs.shape, name="x")
    module = b.build(b.conv2d(x, b.constant(ws), (1, 1), (1, 1, 1, 1), (1, 1), 1))
    got = graphopt.compile(module, opt_level=2)["f"](xs)
    with np.errstate(invalid="ignore"):
        want = conv_ref(xs, ws, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("nr", [32, 16])
def test_weight_packing_layout(nr: int) -> None:
    """Panels of the tile's NR channels (AVX-512 32, AVX2 16), zero-padded."""
    ws = rand(40, 3, 2, 2)
    packed = pack_conv_weight(ws, 2, nr)
    panels = -(-20 // nr)
    assert packed.shape == (2, panels, 12, nr)
    columns = packed.transpose(0, 2, 1, 3).reshape(2, 12, panels * nr)  # [group, K, channel]
    assert np.array_equal(columns[1, :, :20], ws[20:].reshape(20, 12).T)
    assert not columns[:, :, 20:].any()


# (C, H, W, k, pads, dilation): a 112-pixel row (one 64-pixel tile and a
# 48-pixel one), a 9-pixel row, a 5x5 kernel, dilation 2.
DEPTHWISE = [(32, 12, 112, 3, (1, 1, 1, 1), 1), (24, 20, 9, 3, (1, 1, 1, 1), 1), (8, 30, 30, 5, (2, 2, 2, 2), 1), (8, 30, 33, 3, (2, 1, 2, 1), 2)]


@pytest.mark.parametrize("c,h,w,k,pads,d,weights", [(*s, "constant") for i, s in enumerate(DEPTHWISE) if i != 1] + [(*DEPTHWISE[1], "input")])
def test_depthwise_in_registers(c, h, w, k, pads, d, weights) -> None:
    xs, ws, bias = rand(1, c, h, w), rand(c, 1, k, k), rand(c, 1, 1)
    b = GraphBuilder("f")
    x = b.input(xs.shape, name="x")
    wv = b.constant(ws) if weights == "constant" else b.input(ws.shape, name="w")
    y = b.conv2d(x, wv, (1, 1), pads, (d, d), c)
    module = b.build(b.clip(b.add(y, b.constant(bias)), 0.0, 6.0))
    assert uses_micro_kernel(module)
    want = np.clip(conv_ref(xs, ws, (1, 1), pads, (d, d), c) + bias, 0, 6)
    args = (xs,) if weights == "constant" else (xs, ws)
    check(graphopt.compile(module, opt_level=2)["f"](*args), want)


# (C, H, W, O, k, stride, groups): a 3x3, a 1x1 (the pointwise GEMM, its A
# the splat's scalar), a 1x1 stride 2, a depthwise 3x3.
SPLAT = [(16, 10, 12, 32, 3, 1, 1), (32, 9, 9, 40, 1, 1, 1), (32, 16, 16, 32, 1, 2, 1), (32, 12, 20, 32, 3, 1, 32)]


@pytest.mark.parametrize("c,h,w,o,k,s,g", SPLAT)
def test_splat_weight_takes_the_schedule(c, h, w, o, k, s, g) -> None:
    """A splat (uniform) weight is packed at compile time like a dense one, so
    it takes the micro-kernel instead of the direct loops."""
    xs, bias = rand(1, c, h, w), rand(o, 1, 1)
    ws = np.full((o, c // g, k, k), 0.25, np.float32)
    b = GraphBuilder("f")
    x = b.input(xs.shape, name="x")
    p = k // 2
    y = b.conv2d(x, b.splat(ws.shape, 0.25), (s, s), (p,) * 4, (1, 1), g)
    module = b.build(b.relu(b.add(y, b.constant(bias))))
    assert uses_micro_kernel(module)
    want = np.maximum(conv_ref(xs, ws, (s, s), (p,) * 4, (1, 1), g) + bias, 0)
    check(graphopt.compile(module, opt_level=2)["f"](xs), want)


def test_many_blocks_are_summed_in_two_levels() -> None:
    """4,608 products per output (512 channels x 3x3: 64 blocks of 72): the
    block sums go through mid-level sums, whose RMS error against float64
    (1.6e-7 here) stays below what one level of block sums gives (2.0e-7)."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1, 512, 7, 7)).astype(np.float32)
    ws = (rng.standard_normal((32, 512, 3, 3)) * (2 / (9 * 512)) ** 0.5).astype(np.float32)
    b = GraphBuilder("f")
    module = b.build(b.conv2d(b.input(xs.shape), b.constant(ws), (1, 1), (1, 1, 1, 1), (1, 1), 1))
    want = conv_ref(xs, ws, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    got = graphopt.compile(module, opt_level=2)["f"](xs)
    assert np.sqrt(np.mean((got - want) ** 2)) / np.sqrt(np.mean(want**2)) < 1.85e-7


# Output rows of whole 16-pixel vectors, whole 32-channel panels: with 32
# vector registers (AVX-512) the lanes run over pixels (lowering/conv_pixels.py),
# with 16 (AVX2) over channels.  (N, C, H, W, O, k, stride, pads, dilation, groups)
PIXEL_SHAPES = [
    (1, 3, 32, 32, 64, 7, 2, (3, 3, 3, 3), 1, 1),  # the stem form
    (2, 8, 16, 32, 32, 3, 1, (1, 1, 1, 1), 1, 1),  # two images, two vectors per row
    (1, 16, 16, 16, 64, 3, 1, (2, 2, 2, 2), 2, 2),  # dilation 2, two groups
    (1, 64, 12, 32, 32, 3, 1, (1, 1, 1, 1), 1, 1),  # 8 channel blocks in two levels
]


@pytest.mark.parametrize("n,c,h,w,o,k,s,pads,d,g", PIXEL_SHAPES)
@pytest.mark.parametrize("epilogue", ["residual", "sigmoid"])
def test_pixel_lanes_match_channel_lanes(n, c, h, w, o, k, s, pads, d, g, epilogue) -> None:
    """Bitwise equal to the channel-lane form at 1 and 2 threads, with a
    vector epilogue (bias, residual, relu) and a scalar one (sigmoid); the
    pixel form where the default target's registers hold its tile."""

    from graphopt.lowering import conv_pixels

    xs, ws, bias = rand(n, c, h, w), rand(o, c // g, k, k), rand(o, 1, 1)
    ref = conv_ref(xs, ws, (s, s), pads, (d, d), g) + bias
    res = rand(*ref.shape)
    b = GraphBuilder("f")
    x, r = b.input(xs.shape, name="x"), b.input(res.shape, name="r")
    y = b.add(b.conv2d(x, b.constant(ws), (s, s), pads, (d, d), g), b.constant(bias))
    if epilogue == "residual":
        module, want = b.build(b.relu(b.add(y, r))), np.maximum(ref + res, 0)
    else:
        module, want = b.build(b.sub(b.sigmoid(y), r)), 1 / (1 + np.exp(-ref)) - res
    lowered = module.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    fmas = [op for op in lowered.walk() if isinstance(op, vector.FMAOp)]
    pixel_form = fits_pixel_tile(GemmTile.for_target(Target.default()))
    assert fmas and all(isinstance(op.lhs.owner, vector.LoadOp) == pixel_form for op in fmas)  # a vector of pixels
    outs = outputs_flag_on_and_off(conv_pixels, "PIXEL_LANES", module, [xs, res])
    assert np.array_equal(outs[0], outs[1])
    check(outs[0], want)


# (C, H, W, O, stride): rows of 14 (two 7-pixel tiles) and a 16-channel tail
# panel; rows of 11 (8 + 3); stride 2, rows of 20 (8 + 8 + 4).
ROW_TILES = [(24, 9, 14, 48, 1), (16, 9, 11, 32, 1), (8, 40, 40, 64, 2)]


@pytest.mark.parametrize("c,h,w,o,s", ROW_TILES)
def test_transposed_epilogue_matches_scalar_one(c, h, w, o, s) -> None:
    """The epilogue on the register-transposed tile gives the bits of the
    per-element epilogue, at 1 and 2 threads."""

    from graphopt.lowering import conv_gemm

    xs, ws, bias = rand(1, c, h, w), rand(o, c, 3, 3), rand(o, 1, 1)
    ref = conv_ref(xs, ws, (s, s), (1, 1, 1, 1), (1, 1), 1) + bias
    res = rand(*ref.shape)
    b = GraphBuilder("f")
    x, r = b.input(xs.shape, name="x"), b.input(res.shape, name="r")
    y = b.add(b.conv2d(x, b.constant(ws), (s, s), (1, 1, 1, 1), (1, 1), 1), b.constant(bias))
    module = b.build(b.relu(b.add(y, r)))
    outs = outputs_flag_on_and_off(conv_gemm, "TRANSPOSED_EPILOGUE", module, [xs, res])
    assert np.array_equal(outs[0], outs[1])
    check(outs[0], np.maximum(ref + res, 0))
