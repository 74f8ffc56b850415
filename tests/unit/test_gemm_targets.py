"""The GEMM-family micro-kernels built for each ISA: AVX2 + FMA (haswell, 16
ymm registers), AVX-512 (skylake-avx512, 32 zmm) and NEON (aarch64).

Each case is compiled for every target and run against a float64 numpy
reference where the target runs on this machine; elsewhere it is compiled
to an object file, so a tile that is wrong for one ISA fails on any host.
The loop-level IR is checked for the tile the target gets (lanes, MR x NR,
packed panels), and the x86 assembly for the point of it all: no spill in
the hot loop of a micro-kernel."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.dialects import scf, vector
from xdsl.dialects.builtin import VectorType

import graphopt
from graphopt.dialects.graph import Conv2dGradFilterOp, Conv2dGradInputOp
from graphopt.dialects.loop import TARGET_ATTR_NAME, TargetAttr
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.conv_pixels import fits_pixel_tile
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.lowering.register_tile import GemmTile
from graphopt.lowering.to_llvm import emit_llvm_ir
from graphopt.runtime.aot import object_code
from graphopt.runtime.compile import lowered_module, run_pipeline
from graphopt.runtime.jit import parse_and_optimize, target_machine
from graphopt.target import Target

X86 = "x86_64-unknown-linux-gnu"
TARGETS = {
    "avx2": {"cpu": "haswell", "triple": X86},
    "avx512": {"cpu": "skylake-avx512", "triple": X86},
    "neon": {"triple": "aarch64-unknown-linux-gnu"},
}
X86_TARGETS = ["avx2", "avx512"]
RNG = np.random.default_rng(21)


def target_of(name: str) -> Target:
    return Target.from_options(**TARGETS[name])


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def loop_ir(module, target: Target):
    """``module`` at the loop level, scheduled for ``target``."""
    m = module.clone()
    m.attributes[TARGET_ATTR_NAME] = TargetAttr(target.cpu, target.features, target.triple)
    run_pipeline(m, "O2")
    lower_graph_to_loop(m)
    return m


def run_or_build(module, target: Target, args, want: np.ndarray, tol: float = 2e-6, bounds_check: bool = False) -> None:
    """The module's output against ``want`` (max error relative to its
    largest element) where ``target`` runs here, else its object code."""
    if not target.runs_on_host():
        lowered = lowered_module(module, opt_level=2, target=target, max_inline_constant_bytes=-1, bounds_check=bounds_check)
        assert object_code(lowered)[:4] == b"\x7fELF"
        return
    got = graphopt.compile(module, opt_level=2, target=target, bounds_check=bounds_check)["f"](*args)
    assert got.shape == want.shape
    err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
    assert err < tol, err


def fma_loops(ir) -> list[tuple[int, int]]:
    """``(vector accumulators, FMAs)`` of every loop whose body holds FMAs."""
    found = []
    for op in ir.walk():
        if isinstance(op, scf.ForOp):
            accs = sum(isinstance(a.type, VectorType) for a in op.body.block.args[1:])
            fmas = sum(isinstance(o, vector.FMAOp) for o in op.body.block.ops)
            if fmas:
                found.append((accs, fmas))
    return found


def fma_lanes(ir) -> set[int]:
    return {op.res.type.get_shape()[0] for op in ir.walk() if isinstance(op, vector.FMAOp)}


def conv_ref(x, w, stride, pad, groups=1) -> np.ndarray:
    """Direct float64 convolution, symmetric zero padding."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, ky:ky + stride * (oh - 1) + 1:stride, kx:kx + stride * (ow - 1) + 1:stride]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, ky, kx])
    return out


# --------------------------------------------------------------------------
# the tile of each target
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lanes", "rows"), [("avx2", 8, 6), ("avx512", 16, 8), ("neon", 4, 8)]
)
def test_the_tile_follows_the_registers(name: str, lanes: int, rows: int) -> None:
    """NR = 2 vectors, MR rows whose accumulators, two B vectors and a
    broadcast fit the registers: 6 x 16 in 16 ymm (BLIS's Haswell sgemm
    tile), 8 x 32 in 32 zmm; the matmul's K loop carries 2 MR accumulators
    of the target's vectors, and a constant B is packed in panels of NR."""
    target = target_of(name)
    tile = GemmTile.for_target(target)
    assert (tile.lanes, tile.rows, tile.cols) == (lanes, rows, 2 * lanes)
    assert tile.rows * tile.vectors + tile.vectors + 1 <= target.vector_registers
    m, k, n = 40, 64, 70
    b = GraphBuilder("f")
    module = b.build(b.matmul(b.input((m, k)), b.constant(rand(k, n))))
    ir = loop_ir(module, target)
    assert fma_lanes(ir) == {lanes}
    assert max(accs for accs, _ in fma_loops(ir)) == 2 * rows
    packed = [op for op in ir.ops if getattr(op, "sym_name", None) and "packed" in op.sym_name.data]
    assert [p.type.get_shape() for p in packed] == [(-(-n // (2 * lanes)), k, 2 * lanes)]


# --------------------------------------------------------------------------
# GEMM
# --------------------------------------------------------------------------

# (batch, M, K, N, B, epilogue): remainders of every tile in M and N, K in
# several 128-product blocks; a vector epilogue and a scalar one; batched.
MATMULS = [
    ((), 37, 300, 70, "input", "bias_relu"),
    ((), 13, 200, 21, "constant", "tanh"),
    ((2,), 20, 64, 48, "input", "tanh"),
    ((), 1, 1100, 1003, "constant", "bias_relu"),  # the matrix-vector form
]


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize(("batch", "m", "k", "n", "weights", "epilogue"), MATMULS)
def test_matmul(name, batch, m, k, n, weights, epilogue) -> None:
    target = target_of(name)
    xs, ws, cs = rand(*batch, m, k), rand(*batch, k, n), rand(n)
    b = GraphBuilder("f")
    x = b.input(xs.shape)
    w = b.constant(ws) if weights == "constant" else b.input(ws.shape)
    y = b.matmul(x, w)
    module = b.build(b.relu(b.add(y, b.constant(cs))) if epilogue == "bias_relu" else b.tanh(y))
    assert max(fma_lanes(loop_ir(module, target))) == target.f32_lanes  # (and a shorter last vector)
    product = np.einsum("...mk,...kn->...mn", xs.astype(np.float64), ws.astype(np.float64))
    want = np.maximum(product + cs, 0) if epilogue == "bias_relu" else np.tanh(product)
    # tanh is 1-Lipschitz: the products' rounding error passes through at the
    # scale of the products (up to ~40 here), not of tanh's outputs (<= 1)
    scale = 1.0 if epilogue == "bias_relu" else float(np.abs(product).max()) / float(np.abs(want).max())
    run_or_build(module, target, (xs,) if weights == "constant" else (xs, ws), want, tol=1e-5 * scale)


@pytest.mark.parametrize("name", TARGETS)
def test_k_chunks_accumulate_in_a_c_scratch(name: str) -> None:
    """K cut into cache-level chunks (a panel of B and the 210 rows of A do
    not fit the target's L2): every tile adds each chunk's sum into the C
    scratch buffer, padded to whole row tiles and panels of the target's
    tile; the epilogue runs after the last chunk; batched, a remainder tile."""
    target = target_of(name)
    tile = GemmTile.for_target(target)
    bt, m, k, n = 2, 210, 1100, 64
    b = GraphBuilder("f")
    x, w, c = b.input((bt, m, k)), b.input((bt, k, n)), b.input((n,))
    module = b.build(b.relu(b.add(b.matmul(x, w), c)))
    scratch = (-(-m // tile.rows) * tile.rows, -(-n // tile.cols) * tile.cols)
    ir = loop_ir(module, target)
    assert any(op.name == "memref.alloca" and op.results[0].type.get_shape() == scratch for op in ir.walk())
    xs, ws, cs = rand(bt, m, k), rand(bt, k, n), rand(n)
    want = np.maximum(np.einsum("bmk,bkn->bmn", xs.astype(np.float64), ws.astype(np.float64)) + cs, 0)
    run_or_build(module, target, (xs, ws, cs), want, tol=1e-5)


@pytest.mark.parametrize("name", TARGETS)
def test_pointwise_conv(name: str) -> None:
    """A 1x1 conv as a GEMM over the image (its rows of tiles outermost),
    a residual epilogue; 60 pixels: a partial last panel for every NR."""
    target = target_of(name)
    xs, ws, res = rand(2, 24, 6, 10), rand(40, 24, 1, 1), rand(2, 40, 6, 10)
    b = GraphBuilder("f")
    x, r = b.input(xs.shape), b.input(res.shape)
    module = b.build(b.relu(b.add(b.conv2d(x, b.constant(ws), (1, 1), (0, 0, 0, 0), (1, 1), 1), r)))
    want = np.maximum(np.einsum("oc,nchw->nohw", ws[:, :, 0, 0].astype(np.float64), xs) + res, 0)
    run_or_build(module, target, (xs, res), want)


# --------------------------------------------------------------------------
# convs
# --------------------------------------------------------------------------

# (C, H, W, O, k, stride, pad, weights): rows of 11 and 14 pixels (tiles of
# MR, balanced), a tail panel of channels, stride 2, an input weight.
CONVS = [
    (8, 9, 11, 40, 3, 1, 1, "constant"),
    (16, 14, 14, 32, 3, 1, 1, "input"),
    (6, 13, 10, 20, 3, 2, 1, "constant"),
]


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize(("c", "h", "w", "o", "k", "s", "p", "weights"), CONVS)
def test_conv_as_implicit_gemm(name, c, h, w, o, k, s, p, weights) -> None:
    """Where a row of taps with its shared pixels does not fit the registers
    (AVX2), each tap is one loop iteration (2 MR FMAs); with 32 registers the
    taps of a kernel row are unrolled together."""
    target = target_of(name)
    tile = GemmTile.for_target(target)
    xs, ws = rand(1, c, h, w), rand(o, c, k, k)
    ref = conv_ref(xs, ws, s, p)
    res = rand(*ref.shape)
    b = GraphBuilder("f")
    x, r = b.input(xs.shape), b.input(res.shape)
    wv = b.constant(ws) if weights == "constant" else b.input(ws.shape)
    module = b.build(b.relu(b.add(b.conv2d(x, wv, (s, s), (p,) * 4, (1, 1), 1), r)))
    ir = loop_ir(module, target)
    assert fma_lanes(ir) == {tile.lanes}
    fmas_per_trip = max(fmas for _, fmas in fma_loops(ir))
    if name == "avx2":
        assert fmas_per_trip <= 2 * tile.rows  # one tap a trip
    else:
        assert fmas_per_trip > 2 * tile.rows  # the taps of a kernel row
    args = (xs, res) if weights == "constant" else (xs, res, ws)
    run_or_build(module, target, args, np.maximum(ref + res, 0))


@pytest.mark.parametrize("name", TARGETS)
def test_stem(name: str) -> None:
    """The 7x7 stride-2 stem form: its lanes over pixels where the registers
    hold the 16-channel pixel tile (AVX-512), over channels elsewhere."""
    target = target_of(name)
    xs, ws, bias = rand(1, 3, 32, 32), rand(64, 3, 7, 7), rand(64, 1, 1)
    b = GraphBuilder("f")
    x = b.input(xs.shape)
    module = b.build(b.relu(b.add(b.conv2d(x, b.constant(ws), (2, 2), (3, 3, 3, 3), (1, 1), 1), b.constant(bias))))
    fmas = [op for op in loop_ir(module, target).walk() if isinstance(op, vector.FMAOp)]
    pixel_lanes = fits_pixel_tile(GemmTile.for_target(target))
    assert pixel_lanes == (name == "avx512")
    assert fmas and all(isinstance(op.lhs.owner, vector.LoadOp) == pixel_lanes for op in fmas)
    run_or_build(module, target, (xs,), np.maximum(conv_ref(xs, ws, 2, 3) + bias, 0))


@pytest.mark.parametrize("name", TARGETS)
def test_depthwise(name: str) -> None:
    """Depthwise NCHW: vectors of the target's lanes of pixels along a row of 37."""
    target = target_of(name)
    xs, ws = rand(1, 16, 12, 37), rand(16, 1, 3, 3)
    b = GraphBuilder("f")
    module = b.build(b.clip(b.conv2d(b.input(xs.shape), b.constant(ws), (1, 1), (1, 1, 1, 1), (1, 1), 16), 0.0, 6.0))
    assert fma_lanes(loop_ir(module, target)) == {target.f32_lanes}
    run_or_build(module, target, (xs,), np.clip(conv_ref(xs, ws, 1, 1, groups=16), 0, 6))


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize("grad", ["input", "filter"])
@pytest.mark.parametrize("stride", [1, 2])
def test_conv_backward(name: str, grad: str, stride: int) -> None:
    """conv2d_grad_input (the transposed conv, one per stride phase) and
    conv2d_grad_filter (a GEMM over the pixels) on the target's tile; 40
    filters: a tail panel for every NR; 11-pixel rows."""
    target = target_of(name)
    xs, ws = (1, 24, 12, 11), (40, 24, 3, 3)
    window = {"strides": (stride, stride), "padding": (1, 1, 1, 1), "dilations": (1, 1), "groups": 1}
    b = GraphBuilder("shape")
    ys = tuple(b.conv2d(b.input(xs), b.input(ws), (stride, stride), (1, 1, 1, 1), (1, 1), 1).type.get_shape())
    other, g = rand(*(ws if grad == "input" else xs)), rand(*ys)
    b = GraphBuilder("f")
    o, ga = b.input(other.shape), b.input(ys)
    if grad == "input":
        op = Conv2dGradInputOp(ga, o, xs, **window)
        want = op.reference(g.astype(np.float64), other.astype(np.float64))[0]
    else:
        op = Conv2dGradFilterOp(o, ga, ws[2:], **window)
        want = op.reference(other.astype(np.float64), g.astype(np.float64))[0]
    module = b.build(b.apply(op))
    assert max(fma_lanes(loop_ir(module, target))) == target.f32_lanes
    run_or_build(module, target, (other, g), want)


# --------------------------------------------------------------------------
# bounds-checked builds, and no spill in the hot loops
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", X86_TARGETS)
def test_bounds_checked_builds(name: str) -> None:
    """Every access of the tiles, the remainders and the matrix-vector form
    in bounds (a check that failed would raise)."""
    target = target_of(name)
    for m, k, n in ((37, 300, 70), (1, 300, 77)):
        xs, ws = rand(m, k), rand(k, n)
        b = GraphBuilder("f")
        module = b.build(b.relu(b.matmul(b.input(xs.shape), b.constant(ws))))
        run_or_build(module, target, (xs,), np.maximum(xs.astype(np.float64) @ ws, 0), tol=1e-5, bounds_check=True)
    xs, ws = rand(1, 8, 13, 10), rand(20, 8, 3, 3)
    b = GraphBuilder("f")
    module = b.build(b.conv2d(b.input(xs.shape), b.input(ws.shape), (2, 2), (1, 1, 1, 1), (1, 1), 1))
    run_or_build(module, target, (xs, ws), conv_ref(xs, ws, 2, 1), bounds_check=True)


def _hot_block(asm: str) -> list[str]:
    """The basic block with the most FMAs (a label to its first jump)."""
    blocks, cur = [], []
    for line in asm.splitlines():
        if re.match(r"^\.?[\w.$]+:", line):
            blocks.append(cur)
            cur = []
        cur.append(line)
        if re.match(r"^\s+j", line):
            blocks.append(cur)
            cur = []
    blocks.append(cur)
    return max(blocks, key=lambda blk: sum("vfmadd" in line for line in blk))


def _spill_kernels() -> dict[str, object]:
    def mm():
        b = GraphBuilder("f")
        return b.build(b.matmul(b.input((96, 256)), b.input((256, 96))))

    def conv(k: int, s: int, c: int, o: int, size: int):
        b = GraphBuilder("f")
        return b.build(b.conv2d(b.input((1, c, size, size)), b.constant(rand(o, c, k, k)), (s, s), (k // 2,) * 4, (1, 1), 1))

    def grad_input():
        b = GraphBuilder("f")
        return b.build(b.apply(Conv2dGradInputOp(b.input((1, 64, 14, 14)), b.input((64, 64, 3, 3)), (1, 64, 14, 14),
                                                 strides=(1, 1), padding=(1, 1, 1, 1), dilations=(1, 1), groups=1)))

    return {"matmul": mm(), "conv3x3@14": conv(3, 1, 64, 64, 14), "conv3x3@14/2": conv(3, 2, 64, 64, 28),
            "stem": conv(7, 2, 3, 64, 64), "pointwise": conv(1, 1, 64, 64, 14), "grad_input": grad_input()}  # fmt: skip


@pytest.mark.parametrize("name", X86_TARGETS)
def test_no_spill_in_the_hot_loops(name: str) -> None:
    """The block of a micro-kernel with the most FMAs keeps its tile in
    registers: no load or store at a fixed stack offset in it (the AVX-512
    tiles built for 16 ymm registers spilled there; so did AVX2's 3x3 convs
    while each row of taps was unrolled)."""
    target = target_of(name)
    tm = target_machine(target, 3, jit=False)
    for kernel, module in _spill_kernels().items():
        lowered = lowered_module(module, opt_level=2, target=target, max_inline_constant_bytes=-1)
        block = _hot_block(tm.emit_assembly(parse_and_optimize(emit_llvm_ir(lowered), tm, 3, target)))
        assert sum("vfmadd" in line for line in block) >= 8, kernel
        spills = [line for line in block if re.search(r"[\s,]-?\d*\(%rsp\)", line) and "mm" in line]
        assert not spills, (kernel, spills)
        assert "zmm" not in "\n".join(block) or name == "avx512", kernel
