"""The NCHWc layout: ``graph.conv2d_nchwc`` and the reorders against their
numpy reference (and a float64 conv), compiled for AVX2 (blocks of 8, 16
registers) and AVX-512 (blocks of 16, 32 registers) at 1 and 2 threads,
run where this machine can and compiled to an object file elsewhere (the
micro-kernel of lowering/conv_nchwc.py: each target's wide and narrow
tiles and their last tiles, flat and per-row pixels, padded, strided, an
NCHW input, vector and scalar epilogues, large padded inputs in bands),
and the ``layout-nchwc`` pass preserving semantics."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import VectorType

import graphopt
from graphopt.dialects import graph
from graphopt.dialects.graph import tensor_of
from graphopt.dialects.loop import PrefetchOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering import conv_nchwc, nchwc_tiles
from graphopt.runtime.compile import run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.testing.gradcheck import build_module, check_vjp
from isa_check import CPUS, check_compiled, lanes, lowered, target, with_target

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


def fmas(module, block: int) -> int:
    """The vector FMAs of ``block`` lanes in a lowered module (the micro-kernel's)."""
    return sum(isinstance(op, vector.FMAOp) and op.res.type == VectorType(graph.f32, [block]) for op in module.walk())


@pytest.mark.parametrize("block", [8, 16])
def test_reorders_are_inverse_and_match_numpy(block) -> None:
    x = rand(2, 32, 3, 5)
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    blocked = b.reorder_nchwc(xi, block)
    m = b.build(blocked, b.reorder_nchw(blocked))
    want = x.reshape(2, 32 // block, block, 3, 5).transpose(0, 1, 3, 4, 2)
    for got in (interpret(m, x), graphopt.compile(m, opt_level=2)["f"](x)):
        np.testing.assert_array_equal(got[0], want)
        np.testing.assert_array_equal(got[1], x)


CASES = [
    # c, o, size, kernel, stride, pad, blocked input, threads   (tile chosen)
    (64, 64, 10, 1, 1, 0, True, 1),  # wide tile, flat pixels, last tiles
    (32, 48, 9, 1, 1, 0, True, 2),  # narrow tile on AVX-512, odd last panel, 8-pixel tiles
    (32, 64, 8, 3, 1, 1, True, 1),  # padded 3x3, narrow rows of 8 pixels
    (64, 64, 13, 3, 2, 1, True, 2),  # strided, padded
    (64, 32, 14, 1, 2, 0, True, 1),  # pointwise stride 2: the plane's pixels, each its own row
    (3, 32, 20, 7, 2, 3, False, 2),  # the stem: NCHW input
    (256, 64, 7, 3, 1, 1, True, 2),  # many blocks: two-level sums
    (32, 32, 7, 3, 1, 1, True, 1),  # rows of 7: 3 + 2 + 2 pixels on AVX2
    (16, 32, 9, 1, 2, 1, True, 1),  # a padded pointwise conv
]


def conv_model(c, o, size, k, s, p, blocked, block, epilogue="vector"):
    """conv2d_nchwc + bias + residual + relu (or sigmoid: the scalar
    epilogue), its inputs and the float64 result."""
    x, w = rand(1, c, size, size), rand(o, c, k, k) * 0.1
    oh = (size + 2 * p - k) // s + 1
    bias, res = rand(o // block, 1, 1, block), rand(1, o // block, oh, oh, block)
    b = GraphBuilder("f")
    xi, ri = b.input(x.shape), b.input(res.shape)
    xin = b.reorder_nchwc(xi, block) if blocked else xi
    y = b.add(b.add(b.conv2d_nchwc(xin, b.constant(w), (s, s), (p,) * 4, (1, 1), block), b.constant(bias)), ri)
    m = b.build(b.relu(y) if epilogue == "vector" else b.sigmoid(y))
    z = graph.to_blocked(conv64(x, w, s, p), block) + bias + res
    return m, [x, res], np.maximum(z, 0) if epilogue == "vector" else 1 / (1 + np.exp(-z))


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("c,o,size,k,s,p,blocked,threads", CASES)
def test_conv2d_nchwc_compiled(c, o, size, k, s, p, blocked, threads, cpu) -> None:
    """Bias, residual add and relu fused as the vector epilogue; the
    micro-kernel's FMAs are vectors of the target's lanes."""
    block = lanes(cpu)
    m, inputs, want = conv_model(c, o, size, k, s, p, blocked, block)
    np.testing.assert_allclose(interpret(m, *inputs)[0], want, rtol=1e-4, atol=1e-4)
    assert fmas(lowered(m, cpu), block) > 0  # the micro-kernel
    check_compiled(m, cpu, inputs, want, threads=threads)


PREFETCH_CASES = [
    (256, 64, 10, 1, 1, 0, True, 1),  # strips of one tile, two blocks: every line, wrapping in the panel
    (512, 128, 7, 1, 1, 0, True, 2),  # a panel one strip: on into the next panel
    (64, 64, 7, 3, 1, 1, True, 1),  # 3x3, a panel one strip
    (64, 64, 12, 3, 1, 1, True, 2),  # 3x3 in strips of rows, wrapping in the panel
    (128, 128, 10, 1, 1, 0, True, 2),  # one-tile strips (AVX2: only the next panel's weights, a share a strip)
]


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("c,o,size,k,s,p,blocked,threads", PREFETCH_CASES + CASES)
def test_weight_prefetches_stay_inside_the_packed_weights(c, o, size, k, s, p, blocked, threads, cpu) -> None:
    """The kernel's ``loop.prefetch``es of the next block's weights, compiled
    with bounds checking (a prefetch outside the packed weights is an
    error), change nothing in the result."""
    block = lanes(cpu)
    x, w = rand(1, c, size, size), rand(o, c, k, k) * 0.1
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    m = b.build(b.conv2d_nchwc(b.reorder_nchwc(xi, block) if blocked else xi, b.constant(w), (s, s), (p,) * 4, (1, 1), block))
    prefetches = sum(isinstance(op, PrefetchOp) for op in lowered(m, cpu).walk())
    if (c, o, size, k) in [case[:4] for case in PREFETCH_CASES]:
        assert prefetches > 0
    want = graph.to_blocked(conv64(x, w, s, p), block)
    check_compiled(m, cpu, [x], want, threads=threads, bounds_check=True)


@pytest.mark.parametrize("cpu", CPUS)
def test_scalar_epilogue_and_input_weight(cpu) -> None:
    """A sigmoid epilogue (not on vectors) reads the tile per element; a
    weight that is an input takes the compute rule's loops."""
    block = lanes(cpu)
    x, w = rand(1, 32, 6, 6), rand(32, 32, 3, 3) * 0.1
    b = GraphBuilder("f")
    xi, wi = b.input(x.shape), b.input(w.shape)
    xb = b.reorder_nchwc(xi, block)
    y1 = b.sigmoid(b.conv2d_nchwc(xb, b.constant(w), (1, 1), (1, 1, 1, 1), (1, 1), block))
    y2 = b.conv2d_nchwc(xb, wi, (1, 1), (1, 1, 1, 1), (1, 1), block)
    m = b.build(y1, y2)
    conv = graph.to_blocked(conv64(x, w, 1, 1), block)
    check_compiled(m, cpu, [x, w], (1 / (1 + np.exp(-conv)), conv), atol=1e-4)


def plan_of(m, cpu: str) -> conv_nchwc.NchwcPlan | None:
    """The micro-kernel's plan for the (first) conv2d_nchwc of ``m``."""
    m = with_target(m.clone(), cpu)
    op = next(op for op in m.walk() if isinstance(op, graph.Conv2dNchwcOp))
    consts = {o.results[0]: o for o in m.walk() if isinstance(o, graph.ConstantOp)}
    return conv_nchwc.plan_nchwc(op, consts, target(cpu))


@pytest.mark.parametrize("cpu", CPUS)
def test_register_tiles_come_from_the_target(cpu) -> None:
    """16 registers: 4 blocks x 3 pixels, each tap's channels innermost; 32:
    the tuned 4 x 6 (pointwise) and 2 x 7 (3x3) tiles, a row's taps
    straight.  Every tile's accumulators, the vectors a step keeps live
    (its weights or its broadcasts, the fewer) and one more fit."""
    block = lanes(cpu)
    pointwise = plan_of(conv_model(64, 64, 56, 1, 1, 0, True, block)[0], cpu)
    three = plan_of(conv_model(64, 64, 56, 3, 1, 1, True, block)[0], cpu)
    if target(cpu).vector_registers == 16:
        assert (pointwise.nb, pointwise.mr, three.nb, three.mr) == (4, 3, 4, 3) and not three.taps_straight
    else:
        assert (pointwise.nb, pointwise.mr, three.nb, three.mr) == (4, 6, 2, 7) and three.taps_straight
    for regs, tiles in [*nchwc_tiles.TILES.items(), (8, nchwc_tiles.register_tiles(target("haswell"), 16))]:
        for nb, mr in [tiles.wide, *((tiles.narrow_blocks, r) for r in tiles.narrow_pixels)]:
            assert nb * mr + min(nb, mr) + 1 <= regs, (regs, nb, mr)


def test_inner_steps_and_accumulation_blocks() -> None:
    """A straight step holds at most STEP_FMAS FMAs of whole channels (the
    4 x 3 AVX2 tile: the whole 8-channel block; 4 x 6 and 2 x 7: 4 of 16);
    an accumulation block is whole input blocks of at least 128 products, so
    a 3x3 conv sums 144 a block with 8 or 16 channels a block alike."""
    assert nchwc_tiles.channels_per_step(8, 12) == 8
    assert nchwc_tiles.channels_per_step(16, 24) == 4
    assert nchwc_tiles.channels_per_step(16, 14) == 4
    assert nchwc_tiles.channels_per_step(16, 200) == 1
    assert nchwc_tiles.channels_per_step(8, 4) == 8  # a 4 x 1 tail tile
    assert nchwc_tiles.accumulation_products(9 * 8) == nchwc_tiles.accumulation_products(9 * 16) == 144
    assert nchwc_tiles.accumulation_products(8) == nchwc_tiles.accumulation_products(16) == 128
    assert nchwc_tiles.accumulation_products(49) == 147  # the NCHW stem's 7x7 taps: three input channels


def test_row_tiles_balance_a_short_remainder() -> None:
    assert nchwc_tiles.row_tiles(56, 7) == (8, ())
    assert nchwc_tiles.row_tiles(56, 3) == (18, (2,))
    assert nchwc_tiles.row_tiles(7, 3) == (1, (2, 2))
    assert nchwc_tiles.row_tiles(9, 8) == (0, (5, 4))
    assert nchwc_tiles.row_tiles(2, 3) == (0, (2,))
    assert nchwc_tiles.strip_tile_count(522, 6) == 18  # 56x56 in tiles of 6: 29 strips of 18 tiles, then the last
    assert nchwc_tiles.strip_tile_count(7, 6) == 16  # no divisor near: strips of 16


BAND_CASES = [
    # c, o, size, kernel, stride, pad, blocked, epilogue, threads, padded copies over / band bytes
    (32, 32, 23, 3, 1, 1, True, "vector", 2, 20000, 20000),  # 5 bands of 4 rows, a last one of 3
    (32, 32, 19, 3, 1, 1, True, "vector", 1, 20000, 50000),  # 16 rows and 3
    (32, 64, 21, 3, 2, 1, True, "scalar", 2, 20000, 40000),  # strided, scalar epilogue: 6 rows and 5
    (3, 32, 64, 7, 2, 3, False, "vector", 2, 20000, 20000),  # the stem (NCHW input): 4 bands of 8 rows, strips of 2
    (16, 32, 9, 1, 1, 1, True, "vector", 1, 1000, 3000),  # a padded pointwise conv: rows, not the flat plane
]


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("c,o,size,k,s,p,blocked,epilogue,threads,over,band", BAND_CASES)
def test_padded_input_in_bands(c, o, size, k, s, p, blocked, epilogue, threads, over, band, cpu, monkeypatch) -> None:
    """Bands of output rows, each from its own padded copy of the rows it
    reads (thresholds lowered so small convs take the path), against the
    float64 conv, bounds-checked."""
    monkeypatch.setattr(conv_nchwc, "BANDED_ABOVE_BYTES", over)
    monkeypatch.setattr(conv_nchwc, "BAND_BYTES", band)
    block = lanes(cpu)
    m, inputs, want = conv_model(c, o, size, k, s, p, blocked, block, epilogue)
    plan = plan_of(m, cpu)
    assert 0 < plan.band_rows < plan.oh and not plan.flat
    assert fmas(lowered(m, cpu), block) > 0
    check_compiled(m, cpu, inputs, want, threads=threads, bounds_check=True)


@pytest.mark.parametrize("cpu", CPUS)
def test_a_large_image_takes_the_micro_kernel_in_bands(cpu) -> None:
    """A 3x3 conv whose padded input (64 channels at 130x130: 4.4 MB) is
    larger than a stack buffer may be: bands of rows in parallel, each
    thread's band buffer at most BAND_BYTES, and the micro-kernel."""
    block = lanes(cpu)
    m, inputs, want = conv_model(64, 64, 130, 3, 1, 1, True, block)
    plan = plan_of(m, cpu)
    assert plan.band_rows and plan.cb * plan.cl * plan.hp * plan.wp * 4 > conv_nchwc.MAX_XQ_BYTES
    loops = lowered(m, cpu)
    assert fmas(loops, block) > 0
    stack = [np.prod(op.memref.type.get_shape()) * 4 for op in loops.walk() if isinstance(op, memref.AllocaOp)]
    assert max(stack) <= conv_nchwc.BAND_BYTES
    check_compiled(m, cpu, inputs, want, threads=2)


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


def check_layout_pass(before, m, xs: np.ndarray, cpu: str, threads: tuple[int, ...] = (1,)) -> None:
    """The blocked module ``m`` computes what ``before`` did: interpreted, and
    compiled for ``cpu`` at -O3."""
    want = interpret(before, xs)[0]
    np.testing.assert_allclose(interpret(m, xs)[0], want, rtol=1e-5, atol=1e-5)
    check_compiled(m, cpu, [xs], want, threads=threads, opt_level=3)


@pytest.mark.parametrize("cpu", CPUS)
def test_layout_pass_preserves_semantics(cpu) -> None:
    b = GraphBuilder("f")
    x = b.input((1, 16, 8, 8))
    m = b.build(_net(b, x))
    before = m.clone()
    run_pipeline(with_target(m, cpu), "layout-nchwc{min-macs-per-reordered=0}")
    names = [op.name for op in m.walk()]
    assert names.count("graph.conv2d_nchwc") == 4 and "graph.conv2d" not in names
    assert names.count("graph.max_pool2d_nchwc") == 1 and "graph.max_pool2d" not in names
    assert names.count("graph.reorder_nchw") == 1  # out of the function
    conv = next(op for op in m.walk() if isinstance(op, graph.Conv2dNchwcOp))
    assert conv.block_size == lanes(cpu)
    xs = rand(1, 16, 8, 8)
    check_layout_pass(before, m, xs, cpu, threads=(1, 2))


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("size,stride", [(14, 2), (9, 2), (10, 3)])
def test_layout_pass_subsamples_strided_pointwise_convs(cpu, size, stride) -> None:
    """A strided 1x1 conv reads a slice of its blocked input (steps of the
    stride, an odd size's last pixel included) at stride 1; a residual add
    on its output stays blocked."""
    b = GraphBuilder("f")
    x = b.input((1, 16, size, size))
    c = b.constant
    y = b.relu(b.conv2d(x, c(rand(32, 16, 3, 3) * 0.1), (1, 1), (1, 1, 1, 1)))
    z = b.conv2d(y, c(rand(64, 32, 1, 1) * 0.1), (stride, stride))
    m = b.build(b.relu(b.add(z, b.conv2d(z, c(rand(64, 64, 1, 1) * 0.1)))))
    before = m.clone()
    run_pipeline(with_target(m, cpu), "layout-nchwc{min-macs-per-reordered=0}")
    convs = [op for op in m.walk() if isinstance(op, graph.Conv2dNchwcOp)]
    assert len(convs) == 3 and all(op.stride_values == (1, 1) for op in convs)
    (sliced,) = [op for op in m.walk() if isinstance(op, graph.SliceOp)]
    assert sliced.results[0] is convs[1].input
    check_layout_pass(before, m, rand(1, 16, size, size), cpu, threads=(1, 2))


@pytest.mark.parametrize("cpu", CPUS)
def test_layout_pass_blocks_the_stem_and_its_pool(cpu) -> None:
    """A conv on a 3-channel image reads it as it is (no reorder), and the
    padded max-pool after it stays blocked."""
    b = GraphBuilder("f")
    x = b.input((1, 3, 20, 20))
    c = b.constant
    y = b.relu(b.conv2d(x, c(rand(32, 3, 5, 5) * 0.1), (2, 2), (2, 2, 2, 2)))
    y = b.max_pool2d(y, (3, 3), strides=(2, 2), padding=(1, 1, 1, 1))
    m = b.build(b.conv2d(y, c(rand(32, 32, 1, 1) * 0.1)))
    before = m.clone()
    run_pipeline(with_target(m, cpu), "layout-nchwc{min-macs-per-reordered=0}")
    names = [op.name for op in m.walk()]
    assert names.count("graph.conv2d_nchwc") == 2 and names.count("graph.max_pool2d_nchwc") == 1
    assert "graph.reorder_nchwc" not in names and names.count("graph.reorder_nchw") == 1
    xs = rand(1, 3, 20, 20)
    check_layout_pass(before, m, xs, cpu)


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("kernel,stride,pad,threads", [((3, 3), 2, 1, 1), ((2, 2), 2, 0, 2), ((3, 3), 1, 1, 2)])
def test_max_pool2d_nchwc_is_the_nchw_pool_blocked(kernel, stride, pad, threads, cpu) -> None:
    """The NCHW max-pool between reorders (padding never wins, a NaN
    propagates), in the reference and compiled: the window kernel of
    depthwise_nchwc.py, vectors of the target's lanes, bounds-checked;
    equal to the reference but for the sign of a zero (none here)."""
    block = lanes(cpu)
    x = rand(1, 32, 9, 9)
    x[0, 3, 4, 4] = np.nan
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    pads = (pad,) * 4
    m = b.build(b.max_pool2d_nchwc(b.reorder_nchwc(xi, block), kernel, (stride, stride), pads))
    r = GraphBuilder("g")
    ri = r.input(x.shape)
    want = graph.to_blocked(interpret(r.build(r.max_pool2d(ri, kernel, (stride, stride), pads)), x)[0], block)
    np.testing.assert_array_equal(interpret(m, x)[0], want)
    vt = VectorType(graph.f32, [block])
    assert any(isinstance(op, arith.MaximumfOp) and op.result.type == vt for op in lowered(m, cpu).walk())
    check_compiled(m, cpu, [x], want, threads=threads, opt_level=3, rtol=0, atol=0, bounds_check=True)


@pytest.mark.parametrize("epilogue", ["vector", "scalar"])
@pytest.mark.parametrize("cpu", CPUS)
def test_max_pool2d_nchwc_epilogues(cpu, epilogue) -> None:
    """A fused bias add runs on the window kernel's vectors; tanh (no vector
    form) reads the tile element by element through the pool's compute rule."""
    block = lanes(cpu)
    x, bias = rand(1, 32, 10, 10), rand(32 // block, 1, 1, block)
    b = GraphBuilder("f")
    pool = b.max_pool2d_nchwc(b.reorder_nchwc(b.input(x.shape), block), (3, 3), (2, 2), (1, 1, 1, 1))
    m = b.build(b.add(pool, b.constant(bias)) if epilogue == "vector" else b.tanh(pool))
    names = [op.sym_name.data for op in lowered(m, cpu, "O3").walk() if isinstance(op, func.FuncOp)]
    assert any(name.endswith("max_pool2d_nchwc_add" if epilogue == "vector" else "max_pool2d_nchwc_tanh") for name in names)
    r = GraphBuilder("g")
    ri = r.input(x.shape)
    pooled = graph.to_blocked(interpret(r.build(r.max_pool2d(ri, (3, 3), (2, 2), (1, 1, 1, 1))), x)[0], block)
    want = pooled + bias if epilogue == "vector" else np.tanh(pooled)
    check_compiled(m, cpu, [x], want, rtol=1e-6, atol=1e-6, opt_level=3)


def test_max_pool2d_nchwc_gradient() -> None:
    """Distinct values (no ties): the gradient goes to each window's maximum."""
    inputs = [RNG.permutation(576).reshape(1, 16, 6, 6).astype(np.float64)]

    def build(b, args):
        return b.reorder_nchw(b.max_pool2d_nchwc(b.reorder_nchwc(args[0], 16), (3, 3), (2, 2), (1, 1, 1, 1)))

    check_vjp(build_module(build, inputs), inputs, rng=RNG)


def _dense_block(b: GraphBuilder, x, layers: int = 3, growth: int = 16):
    """DenseNet's pattern: each layer a batch norm (a per-channel scale and
    shift computed from its statistics by graph ops, as decompose leaves
    it), relu and a conv, its output concatenated to its input."""
    c = b.constant
    for _ in range(layers):
        ch = tensor_of(x).get_shape()[1]
        var, mean = np.abs(rand(ch)) + 0.5, rand(ch)
        scale = b.reshape(b.div(c(rand(ch)), b.sqrt(b.add(c(var), c(np.float32(1e-5).reshape(1))))), (ch, 1, 1))
        y = b.relu(b.add(b.mul(b.sub(x, c(mean.reshape(ch, 1, 1))), scale), c(rand(ch, 1, 1))))
        y = b.conv2d(y, c(rand(growth, ch, 3, 3) * 0.1), (1, 1), (1, 1, 1, 1))
        x = b.concat([x, y], 1)
    return x


@pytest.mark.parametrize("cpu", CPUS)
def test_layout_pass_blocks_concats_and_computed_per_channel_operands(cpu) -> None:
    """A dense block stays blocked through its concats (along the blocks)
    and its batch norms (the computed per-channel vectors re-laid out as
    [C/b, 1, 1, b], then folded): one reorder in, one out."""
    b = GraphBuilder("f")
    x = b.input((1, 16, 10, 10))
    block = _dense_block(b, b.conv2d(x, b.constant(rand(16, 16, 1, 1))))
    m = b.build(b.relu(b.conv2d(block, b.constant(rand(32, 64, 1, 1) * 0.1))))
    before = m.clone()
    run_pipeline(with_target(m, cpu), "layout-nchwc{min-macs-per-reordered=0},fold-constants")
    names = [op.name for op in m.walk()]
    assert names.count("graph.conv2d_nchwc") == 5 and "graph.conv2d" not in names
    assert names.count("graph.concat") == 3 and all(
        len(tensor_of(op.results[0]).get_shape()) == 5 for op in m.walk() if isinstance(op, graph.ConcatOp))
    assert names.count("graph.reorder_nchwc") == 1 and names.count("graph.reorder_nchw") == 1
    xs = rand(1, 16, 10, 10)
    check_layout_pass(before, m, xs, cpu, threads=(1, 2))


@pytest.mark.parametrize("cpu", CPUS)
def test_layout_pass_leaves_what_it_cannot_block(cpu) -> None:
    """Grouped, dilated, input-weight, unblockable (channels not a multiple
    of the target's block) and lone convs stay NCHW; so do chains whose
    reorders would cost more than they save."""
    odd = lanes(cpu) + lanes(cpu) // 2  # 24 with blocks of 16, 12 with 8
    b = GraphBuilder("f")
    x, wi = b.input((1, 32, 8, 8)), b.input((32, 32, 1, 1))
    c = b.constant
    y = b.conv2d(x, c(rand(32, 16, 3, 3)), (1, 1), (1, 1, 1, 1), (1, 1), 2)
    y = b.conv2d(y, c(rand(32, 32, 3, 3)), (1, 1), (2, 2, 2, 2), (2, 2))
    y = b.conv2d(y, wi)
    y = b.conv2d(y, c(rand(odd, 32, 1, 1)))
    lone = b.conv2d(x, c(rand(32, 32, 1, 1)))
    m = b.build(y, lone)
    run_pipeline(with_target(m, cpu), "layout-nchwc")
    assert not any(isinstance(op, graph.Conv2dNchwcOp | graph.ReorderNchwOp) for op in m.walk())
    b = GraphBuilder("f")
    x = b.input((1, 16, 8, 8))
    m = b.build(_net(b, x))
    run_pipeline(with_target(m, cpu), "layout-nchwc")  # 8x8 convs: too little work per reordered element
    assert not any(isinstance(op, graph.Conv2dNchwcOp) for op in m.walk())


def test_gradients() -> None:
    def build(b, a):
        y = b.conv2d_nchwc(b.reorder_nchwc(a[0], 16), a[1], (2, 2), (1, 1, 1, 1), (1, 1), 16)
        return b.reorder_nchw(y)

    inputs = [RNG.standard_normal((1, 16, 5, 5)), RNG.standard_normal((16, 16, 3, 3))]
    check_vjp(build_module(build, inputs), inputs, rng=RNG)
