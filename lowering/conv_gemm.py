"""Conv schedule: 3x3, 7x7, strided, dilated and grouped conv2d as an implicit
GEMM on the register-tiled FMA micro-kernel of :mod:`graphopt.lowering.gemm`.

Per image ``n`` and group ``g`` a conv is the GEMM

    out[n, g*Og + o, oy, ox] = sum_{c, ky, kx} x[n, g*Cg + c, oy*sy - pt + ky*dy, ox*sx - pl + kx*dx]
                                               * w[g*Og + o, c, ky, kx]

with M = output pixels, N = output channels, K = Cg*KH*KW.  The kernel is

    xq = padded, stride-phase-split copy of x[n]            (once per call)
    for g in groups:
      for jb in panels of NR output channels:               (the outermost panel loop)
        B = the packed weight panel [K, NR]                 (compile time, or copied here)
        for oy in output rows:
          for ox0 in tiles of up to MR pixels of the row (see pixel_tiles):
            for channel blocks:                               (blocked accumulation over K)
              acc[r][v] = 0
              for c in block: for ky: for kx (unrolled where the registers allow):
                acc[r][v] = fma(bcast(xq[c, phase, oy + qy, ox0 + r + qx]), B[k, L v], acc[r][v])
              T[r][L v] += acc[r][v]                        (via a mid-level sum when many)
            out[n, o, oy, ox0 ..] = epilogue(T'[o - o0])     (T transposed in registers:
                                                              a vector of pixels per channel)

The tile is the target's (``register_tile.GemmTile``): vectors of L lanes,
NR = 2L output channels, MR pixels -- 8 x 32 with AVX-512 (7 x 32 on rows
of a multiple of 7 pixels, 14 accumulators), 6 x 16 with AVX2 (rows of 7
pixels would need 17 of its 16 registers), 8 x 8 with NEON.  The taps of a
kernel row read overlapping pixels, which LLVM loads once for them all;
where those broadcasts do not fit next to the tile (AVX2, see
:func:`row_taps_fit`) the columns of taps are a loop too.

``xq[c, (py, px), i, j] = xpad[c, i*sy + py, j*sx + px]``: a stride-``s`` tap
``ky*dy = qy*sy + py`` reads row ``oy + qy`` of phase ``py``, so every tap reads
the eight pixels of a tile contiguously, padding is a stored zero (a real zero
multiplied by the weight, as in ONNX), and no tap needs a bounds test.  Only
the phases some tap reads are built (a 1x1 stride-2 conv copies one phase).

Why this form (measured, see benchmarks/README.md): the 8-pixel tiles lie in
one output row, so rows of 7, 14 or 56 pixels waste at most one short tile and
no lanes (the vectors run over output channels, which ResNet-sized layers have
in multiples of 32), and the weight panel is read contiguously whatever the
stride.  Accumulating each block of about 128 products from zero and adding
it to the tile bounds the rounding error by the block length plus the number
of blocks instead of K; with many blocks, groups of about sqrt(blocks) block
sums go through a mid-level sum first (issue 12's accuracy target).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    f32,
)
from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp, tensor_of
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.parallel_split import parallel_copy, split_panels
from graphopt.lowering.register_tile import (
    TRANSPOSE_ROWS, GemmTile, VectorEpilogue, store_from_tile, transpose_tile, transposes,
)
from graphopt.lowering.to_llvm.cf import wants_llvm_unrolling
from graphopt.target import Target

#: Products summed from zero before they are added to the tile.
BLOCK_PRODUCTS = 128
#: More blocks than this are summed in two levels: the sums of about
#: sqrt(blocks) blocks into a mid-level sum, the mid-level sums into the tile.
#: Rounding then grows with block length + 2 sqrt(blocks), not + blocks; on
#: 512@7 (64 blocks of 72 products) 1.9e-7 against float64 (Kahan 1.5e-7,
#: one level 2.9e-7, onnxruntime 3.0e-7) at the cost of one level (Kahan
#: added 2 loads, 2 stores and 3 adds per block).  Up to 8 blocks one level
#: (+ 8 against + 5.7: the mid-level sums cost more than they save there;
#: AVX2 build on Zen 4, ResNet-50 at one thread, 4 -> 8: 76.4 -> 76.1 ms).
TWO_LEVEL_BLOCKS = 8
#: Largest per-call padded input copy (a stack buffer).
MAX_XQ_BYTES = 4 * 1024 * 1024
#: Smallest output channels per group for the GEMM form (depthwise is not a GEMM).
MIN_OG = 16
MIN_FLOP_VOLUME = 32 * 32 * 32
#: Kernels with more taps than this loop over the kernel rows (code size).
UNROLL_TAPS = 1
#: Pixels per tile when they divide the row (rows of 56, 28, 14, 7: no short
#: tile) and their accumulators fit the registers.  Measured with AVX-512,
#: one thread, interleaved against tiles of 8: 3x3 64@56 2.07 -> 1.78 ms,
#: stride-2 128@56 2.36 -> 2.07, the others equal; 7 pixels x 4 vectors (28
#: accumulators) spilled and ran 20-34% slower.
ROW_MR = 7
#: The fused epilogue on vectors of the transposed tile (off only to measure).
TRANSPOSED_EPILOGUE = True


@dataclass
class ConvPlan:
    """The schedule of one conv2d kernel (see the module docstring)."""

    anchor: GraphOp
    a: SSAValue  # the input image
    b: SSAValue  # the weight
    pack_b: bool  # the weight is a constant, packed at compile time
    groups: int
    n_img: int
    c: int
    h: int
    w: int
    og: int
    cg: int
    kh: int
    kw: int
    oh: int
    ow: int
    stride: tuple[int, int]
    pad: tuple[int, int]
    dilation: tuple[int, int]
    tile: GemmTile  # the target's register tile (NR: the packed panels' width)
    packed: SSAValue | None = None
    taps: list[tuple[int, int, int, int, int]] = field(default_factory=list)  # (ky, kx, slot, qy, qx)
    phases: list[tuple[int, int]] = field(default_factory=list)
    hq: int = 0
    wq: int = 0
    nx: int = 1  # column phases
    loop_ky: bool = False
    loop_kx: bool = False  # every tap a loop, the columns too (see ``row_taps_fit``)
    depthwise: bool = False
    mr: int = 0  # pixels per register tile (0: the tile's MR rows)
    block_products: int = BLOCK_PRODUCTS  # products summed from zero per block

    def __post_init__(self) -> None:
        self.mr = self.mr or self.tile.rows

    @property
    def k(self) -> int:
        return self.cg * self.kh * self.kw

    @property
    def panels(self) -> int:
        return -(-self.og // self.tile.cols)

    def conv_weight(self, w: np.ndarray) -> np.ndarray:
        """The ``[O, Cg, KH, KW]`` weight of this conv from the anchor's weight
        operand (the same; the conv backward ops transpose and flip it)."""
        return w

    def weight_index(self, em: KernelEmitter, o: SSAValue, c: SSAValue, ky: int, kx: int) -> list[SSAValue]:
        """Where ``conv_weight[o, c, ky, kx]`` is in the weight operand's buffer."""
        return [o, c, em.index(ky), em.index(kx)]

    def out_index(self, em: KernelEmitter, n: SSAValue, o: SSAValue, oy: SSAValue, ox: SSAValue) -> tuple:
        """Where output pixel ``(oy, ox)`` of channel ``o`` is stored (the
        conv backward ops' phases store every s-th pixel)."""
        return (n, o, oy, ox)

    @property
    def rows_contiguous(self) -> bool:
        """Whether a tile's pixels land side by side in the output (the vector
        epilogue stores them as one vector)."""
        return True

    def packed_global(self, const: graph.ConstantOp, name: str) -> memref.GlobalOp:
        """The weight as ``[groups, panels, K, NR]``, zero-padded: read-only global."""
        w = np.asarray(const.reference()[0], dtype=np.float32)
        return readonly_global(name, pack_conv_weight(self.conv_weight(w), self.groups, self.tile.cols))


def readonly_global(name: str, packed: np.ndarray) -> memref.GlobalOp:
    """The f32 array ``packed`` as a read-only global, 64-byte aligned."""
    attr = DenseIntOrFPElementsAttr(TensorType(f32, packed.shape), BytesAttr(np.ascontiguousarray(packed, dtype=np.float32).tobytes()))
    return memref.GlobalOp.get(StringAttr(name), MemRefType(f32, packed.shape), attr, constant=UnitAttr(), alignment=64)


def pack_conv_weight(w: np.ndarray, groups: int, nr: int) -> np.ndarray:
    """``w[O, Cg, KH, KW]`` as ``[G, ceil(Og/nr), Cg*KH*KW, nr]``: per group the
    GEMM's B = w_g reshaped ``[Og, K]`` transposed, cut into zero-padded
    panels of the tile's ``nr`` columns."""
    o, cg, kh, kw = w.shape
    og = o // groups
    panels = -(-og // nr)
    out = np.zeros((groups, panels * nr, cg * kh * kw), dtype=np.float32)
    out[:, :og, :] = w.reshape(groups, og, cg * kh * kw)
    return np.ascontiguousarray(out.reshape(groups, panels, nr, -1).transpose(0, 1, 3, 2))


def _set_phases_and_taps(plan: "ConvPlan") -> tuple[list[int], list[int]]:
    """The grid of the row and column phases the taps read (stride-phase
    split input), for each tap ``(ky, kx, phase, row offset, column offset)``
    into its phase, and the phases' extents; returns the row and column phases."""
    (sy, sx), (dy, dx) = plan.stride, plan.dilation
    ys = sorted({ky * dy % sy for ky in range(plan.kh)})
    xs = sorted({kx * dx % sx for kx in range(plan.kw)})
    plan.phases = [(py, px) for py in ys for px in xs]
    for ky in range(plan.kh):
        for kx in range(plan.kw):
            qy, py = divmod(ky * dy, sy)
            qx, px = divmod(kx * dx, sx)
            plan.taps.append((ky, kx, ys.index(py) * len(xs) + xs.index(px), qy, qx))
    plan.nx = len(xs)
    plan.hq = plan.oh + max(t[3] for t in plan.taps)
    plan.wq = plan.ow + max(t[4] for t in plan.taps)
    return ys, xs


def plan_conv(conv: graph.Conv2dOp, constants: dict, target: Target) -> ConvPlan | None:
    """A :class:`ConvPlan` for an f32 conv the implicit GEMM suits, else None."""
    n_img, c, h, w = tensor_of(conv.input).get_shape()
    o, cg, kh, kw = tensor_of(conv.weight).get_shape()
    _, _, oh, ow = tensor_of(conv.result).get_shape()
    groups = conv.group_count
    og = o // groups
    if og < MIN_OG or oh * ow * o * cg * kh * kw < MIN_FLOP_VOLUME or oh * ow == 0:
        return None
    (sy, sx), (pt, pl), (dy, dx) = conv.stride_values, conv.pad_values[:2], conv.dilation_values
    const = constants.get(conv.weight)
    tile = GemmTile.for_target(target)
    plan = ConvPlan(
        conv, conv.input, conv.weight, const is not None,
        groups, n_img, c, h, w, og, cg, kh, kw, oh, ow, (sy, sx), (pt, pl), (dy, dx), tile,
    )  # fmt: skip
    ys, xs = _set_phases_and_taps(plan)
    # Rows of taps run as a loop over ky (kx unrolled) when the row phase of
    # tap ky is its own index: less code than unrolling every tap.
    plan.loop_ky = kh > 1 and kh * kw > UNROLL_TAPS and ys == list(range(len(ys)))
    if c * len(plan.phases) * plan.hq * plan.wq * 4 > MAX_XQ_BYTES:
        return None
    if ow % ROW_MR == 0 and tile.rows_fit(ROW_MR):
        plan.mr = ROW_MR
    in_order = ys == list(range(len(ys))) and xs == list(range(len(xs)))
    plan.loop_kx = kw > 1 and in_order and not row_taps_fit(tile, plan.mr, kw)
    return plan


def pixel_tiles(width: int, mr: int) -> list[tuple[int, int, int]]:
    """A row of ``width`` pixels as ``(first pixel, tiles, pixels per tile)``
    runs: tiles of ``mr`` pixels and a shorter last one, unless that one
    would hold fewer than half a tile's rows -- too few accumulators to hide
    the FMA latency -- then as few tiles as possible, as even as possible
    (rows of 7 in tiles of 6 as 4 + 3, not 6 + 1).  Measured, one thread:
    AVX2 3-8% faster (3x3 64->64 @13 0.141 -> 0.130 ms, 512@7 3.17 -> 3.05),
    AVX-512 9x9 0.254 -> 0.232 ms; but with AVX-512 rows of 28 as 4 x 7
    instead of 8 + 8 + 8 + 4 made the stride-2 grad_input 64@56 15% slower,
    so a remainder of half a tile or more stays."""
    full, rem = divmod(width, mr)
    if rem == 0 or 2 * rem >= mr:
        return [r for r in ((0, full, mr), (full * mr, 1, rem)) if r[1] and r[2]]
    tiles = full + 1
    small, extra = divmod(width, tiles)
    runs = [(0, extra, small + 1), (extra * (small + 1), tiles - extra, small)]
    return [r for r in runs if r[1]]


def row_taps_fit(tile: GemmTile, rows: int, taps: int) -> bool:
    """Whether a row of ``taps`` taps, unrolled, keeps a tile of ``rows``
    pixels in registers.  LLVM loads each of the ``rows + taps - 1`` pixels
    the row's taps read once and keeps it for every tap that reads it: with
    AVX-512's 32 registers 10 broadcasts join the 16 accumulators of an 8-pixel
    tile; AVX2's 16 hold 12 accumulators, two B vectors and two more -- the
    rest spilled (3x3 256@14 ran at half the GEMM rate), so there the taps of
    a row are a loop: one tap, its 2 B vectors and its broadcasts at a time."""
    return rows * tile.vectors + tile.vectors + rows + taps - 1 <= tile.registers


def channel_block(cg: int, taps: int, products: int = BLOCK_PRODUCTS) -> int:
    """Channels per accumulation block: about ``products`` products, a
    divisor of ``cg`` when one is near (no remainder block, less code)."""
    cb = max(1, min(cg, products // taps))
    for d in range(cb, max(1, cb // 2) - 1, -1):
        if cg % d == 0:
            return d
    return cb


# --------------------------------------------------------------------------
# emission
# --------------------------------------------------------------------------


def idx_plus(em: KernelEmitter, a: SSAValue, c: int) -> SSAValue:
    """``a + c`` for a static ``c`` (``a`` itself when 0)."""
    return em.idx_add(a, em.index(c)) if c else a


def store_tile(
    em: KernelEmitter, buf: SSAValue, rows: int, nvec: int, lanes: int, value: Callable[[int], SSAValue]
) -> None:
    """``buf[r, lanes v] = value(r * nvec + v)`` over a tile of ``rows`` x ``nvec`` vectors."""
    for r in range(rows):
        for v in range(nvec):
            em.vstore(value(r * nvec + v), buf, [em.index(r), em.index(v * lanes)])


def add_to_tile(
    em: KernelEmitter, buf: SSAValue, rows: int, nvec: int, lanes: int,
    addend: Callable[[int, list[SSAValue]], SSAValue], at: Callable[[int, int], list[SSAValue]] | None = None,
) -> None:  # fmt: skip
    """``buf[at(r, v)] += addend(r * nvec + v, at(r, v))`` over a tile of
    vectors of ``lanes`` (``at`` by default ``[r, lanes v]``), the addend
    evaluated first."""
    vt = VectorType(f32, [lanes])
    for r in range(rows):
        for v in range(nvec):
            where = [em.index(r), em.index(v * lanes)] if at is None else at(r, v)
            x = addend(r * nvec + v, where)
            em.vstore(em.addf(em.vload(buf, where, vt), x), buf, where)


def _ranges(lo: int, hi: int, extent: int) -> tuple[int, int]:
    lo = min(max(lo, 0), extent)
    return lo, max(lo, min(hi, extent))


def tap_reads(
    em: KernelEmitter, plan: ConvPlan, c: SSAValue, ky: SSAValue | None, oy: SSAValue, kx: SSAValue | None = None
) -> list[tuple[SSAValue, SSAValue, SSAValue, int | SSAValue]]:
    """``(k, row, phase slot, column offset)`` into ``xq`` of each tap of
    channel ``c`` for output row ``oy``: every tap, or with ``plan.loop_ky``
    the taps of kernel row ``ky`` (one per column), or with ``kx`` too
    (``plan.loop_kx``) the one tap ``(ky, kx)``, its column offset an index
    (see :func:`tap_column`)."""
    ntaps, reads = len(plan.taps), []
    if kx is not None:
        assert ky is not None
        k = em.idx_add(em.idx_add(em.idx_mul(c, ntaps), em.idx_mul(ky, plan.kw)), kx)
        (sy, sx), yoff, xoff = plan.stride, em.idx_mul(ky, plan.dilation[0]), em.idx_mul(kx, plan.dilation[1])
        py = em.idx_rem(yoff, sy) if sy > 1 else em.index(0)
        px = em.idx_rem(xoff, sx) if sx > 1 else em.index(0)
        slot = em.idx_add(em.idx_mul(py, plan.nx), px)
        qy, qx = (em.idx_div(yoff, sy) if sy > 1 else yoff), (em.idx_div(xoff, sx) if sx > 1 else xoff)
        return [(k, em.idx_add(oy, qy), slot, qx)]
    for t, (tky, tkx, slot, qy, qx) in enumerate(plan.taps):
        if ky is None:
            reads.append((idx_plus(em, em.idx_mul(c, ntaps), t), idx_plus(em, oy, qy), em.index(slot), qx))
        elif tky == 0:
            k = idx_plus(em, em.idx_add(em.idx_mul(c, ntaps), em.idx_mul(ky, plan.kw)), tkx)
            sy, yoff = plan.stride[0], em.idx_mul(ky, plan.dilation[0])
            s_at = idx_plus(em, em.idx_mul(em.idx_rem(yoff, sy), plan.nx), slot) if sy > 1 else em.index(slot)
            reads.append((k, em.idx_add(oy, em.idx_div(yoff, sy)), s_at, qx))
    return reads


def tap_column(em: KernelEmitter, ox0: SSAValue, qx: int | SSAValue, offset: int) -> SSAValue:
    """Column ``ox0 + qx + offset`` of ``xq`` (``qx`` from :func:`tap_reads`)."""
    if isinstance(qx, int):
        return idx_plus(em, ox0, qx + offset)
    return idx_plus(em, em.idx_add(ox0, qx), offset)


def emit_padded_copy(em: KernelEmitter, plan: ConvPlan, x: SSAValue, n: SSAValue, xq: SSAValue) -> None:
    """``xq[c, slot, i, j] = x[n, c, i*sy + py - pt, j*sx + px - pl]``, 0 outside x."""
    em.loop(plan.c, lambda c: emit_padded_channel(em, plan, x, n, c, xq, c),
            parallel=parallel_copy(plan.c * len(plan.phases) * plan.hq * plan.wq))  # fmt: skip


def emit_padded_channel(em: KernelEmitter, plan: ConvPlan, x: SSAValue, n: SSAValue, c: SSAValue,
                        xq: SSAValue, at: SSAValue) -> None:  # fmt: skip
    """Channel ``c`` of :func:`emit_padded_copy` into ``xq[at]``.

    The in-bounds rows and columns are static ranges, so the copy has no
    tests and the zero borders are plain stores."""
    (sy, sx), (pt, pl) = plan.stride, plan.pad
    zero = em.scalar_constant(0.0, f32)
    for slot, (py, px) in enumerate(plan.phases):
        # rows i with 0 <= i*sy + py - pt < h
        i_lo, i_hi = _ranges(-(-(pt - py) // sy), (plan.h - 1 + pt - py) // sy + 1, plan.hq)
        j_lo, j_hi = _ranges(-(-(pl - px) // sx), (plan.w - 1 + pl - px) // sx + 1, plan.wq)
        s = em.index(slot)

        def zero_row(i: SSAValue) -> None:
            em.loop(plan.wq, lambda j: em.store(zero, xq, [at, s, i, j]))

        def row(i: SSAValue) -> None:
            r = idx_plus(em, em.idx_mul(i, sy), py - pt) if py - pt >= 0 else em.emit(
                arith.SubiOp(em.idx_mul(i, sy), em.index(pt - py))).results[0]

            def col(j: SSAValue) -> None:
                base = em.idx_mul(j, sx)
                q = idx_plus(em, base, px - pl) if px - pl >= 0 else em.emit(
                    arith.SubiOp(base, em.index(pl - px))).results[0]
                em.store(em.load_here(x, [n, c, r, q]), xq, [at, s, i, j])

            if j_lo:
                em.loop(j_lo, lambda j: em.store(zero, xq, [at, s, i, j]))
            if j_hi > j_lo:
                em.loop(j_hi, col, start=j_lo)
            if j_hi < plan.wq:
                em.loop(plan.wq, lambda j: em.store(zero, xq, [at, s, i, j]), start=j_hi)

        if i_lo:
            em.loop(i_lo, zero_row)
        if i_hi > i_lo:
            em.loop(i_hi, row, start=i_lo)
        if i_hi < plan.hq:
            em.loop(plan.hq, zero_row, start=i_hi)


def emit_conv_gemm(em: KernelEmitter, plan: ConvPlan, root: SSAValue, out: SSAValue) -> None:
    """The whole output nest of a conv kernel (see the module docstring)."""
    if plan.depthwise:
        emit_depthwise(em, plan, root, out)
        return

    conv = plan.anchor
    mr, lanes, nr = plan.mr, plan.tile.lanes, plan.tile.cols
    x = em.sources[plan.a]
    wbuf = None if plan.pack_b else em.sources[plan.b]  # a packed weight is read from plan.packed only
    vt = VectorType(f32, [lanes])
    zero = em.scalar_constant(0.0, f32)
    zero_v = em.splat(zero, vt)
    xq = em.local_buffer([plan.c, len(plan.phases), plan.hq, plan.wq], f32)
    tile = em.local_buffer([mr, nr], f32)
    ntaps = len(plan.taps)
    panel = None if plan.pack_b else em.local_buffer([plan.k, nr], f32)
    cb = channel_block(plan.cg, ntaps, plan.block_products)
    nblocks, crem = divmod(plan.cg, cb)
    # Two-level sums of many blocks: about sqrt(blocks) block sums go into a
    # mid-level sum, which is then added to the tile.
    mid = em.local_buffer([mr, nr], f32) if nblocks + (crem > 0) > TWO_LEVEL_BLOCKS else None
    group = max(2, round((nblocks + (crem > 0)) ** 0.5))

    def copy_panel(g: SSAValue, o0: SSAValue, cols: int, width: int) -> None:
        """panel[k, col] = w[g*Og + o0 + col, c, ky, kx], zero past ``cols``."""

        def channel(c: SSAValue) -> None:
            for t, (ky, kx, *_rest) in enumerate(plan.taps):
                k = idx_plus(em, em.idx_mul(c, ntaps), t)

                def col(j: SSAValue, ky=ky, kx=kx, k=k) -> None:
                    o = em.idx_add(em.idx_add(em.idx_mul(g, plan.og), o0), j)
                    em.store(em.load_here(wbuf, plan.weight_index(em, o, c, ky, kx)), panel, [k, j])

                em.loop(cols, col)
                if cols < width:
                    em.loop(width, lambda j, k=k: em.store(zero, panel, [k, j]), start=cols)

        em.loop(plan.cg, channel)

    def b_vector(g: SSAValue, jb: SSAValue, k: SSAValue, v: int) -> SSAValue:
        if plan.pack_b:
            return em.vload(plan.packed, [g, jb, k, em.index(v * lanes)], vt)
        return em.vload(panel, [k, em.index(v * lanes)], vt)

    def micro_kernel(g, jb, oy, ox0, rows: int, nvec: int) -> None:
        """T[r][16v] = sum over K for the pixels ox0..ox0+rows-1 of row oy."""
        c_base = em.idx_mul(g, plan.cg)
        store_tile(em, tile, rows, nvec, lanes, lambda _: zero_v)

        def block(c0: SSAValue, count: int, dst: SSAValue = tile) -> None:
            def taps_at(c: SSAValue, ky: SSAValue | None, kx: SSAValue | None, accs: list[SSAValue]) -> list[SSAValue]:
                ch = em.idx_add(c_base, c)
                nxt = list(accs)
                for k, i, s_at, qx in tap_reads(em, plan, c, ky, oy, kx):
                    bs = [b_vector(g, jb, k, v) for v in range(nvec)]
                    for r in range(rows):
                        a = em.load_here(xq, [ch, s_at, i, tap_column(em, ox0, qx, r)])
                        av = em.splat(a, vt)
                        for v in range(nvec):
                            nxt[r * nvec + v] = em.fma(av, bs[v], nxt[r * nvec + v])
                return nxt

            def body(ivs, accs):
                c = em.idx_add(c0, ivs[0])
                return taps_at(c, ivs[1] if len(ivs) > 1 else None, ivs[2] if len(ivs) > 2 else None, accs)

            extents = [count, plan.kh, plan.kw] if plan.loop_kx else [count, plan.kh] if plan.loop_ky else [count]
            accs = em.reduce(extents, [zero_v] * (rows * nvec), body)
            add_to_tile(em, dst, rows, nvec, lanes, lambda i, _: accs[i])

        if mid is None:
            em.loop_blocks(plan.cg, cb, block)
            return

        def group_of_blocks(c0: SSAValue, count: int) -> None:
            """``mid`` = the sum of up to ``group`` block sums; tile += mid."""
            store_tile(em, mid, rows, nvec, lanes, lambda _: zero_v)
            em.loop_blocks(count, cb, lambda c1, n: block(em.idx_add(c0, c1), n, mid))
            add_to_tile(em, tile, rows, nvec, lanes, lambda _, at: em.vload(mid, at, vt))

        em.loop_blocks(plan.cg, group * cb, group_of_blocks)

    vector_epilogue = (
        VectorEpilogue.plan(conv, root, em.sources, (3,))
        if TRANSPOSED_EPILOGUE and plan.rows_contiguous and transposes(lanes) else None
    )  # fmt: skip
    tile_t = em.local_buffer([nr * TRANSPOSE_ROWS], f32) if vector_epilogue is not None else None

    def epilogue(n, g, o0, oy, ox0, rows: int, cols: int) -> None:
        """out[n, g*Og + o0 + col, oy, ox0 + r] = root there, the tile feeding
        the conv: on the transposed tile, a vector of the tile's pixels per
        channel, when every epilogue op runs on vectors, else per element."""
        if vector_epilogue is not None:
            transpose_tile(em, tile, tile_t, rows, -(-cols // lanes), lanes)
            vt_rows = VectorType(f32, [rows])

            def v_body(col):
                idx = list(plan.out_index(em, n, em.idx_add(em.idx_add(em.idx_mul(g, plan.og), o0), col), oy, ox0))
                t = em.vload(tile_t, [em.idx_mul(col, TRANSPOSE_ROWS)], vt_rows)
                em.vstore(vector_epilogue.emit(em, idx, t, rows), out, idx)

            em.loop(cols, v_body)
            return

        def c_body(col):
            o = em.idx_add(em.idx_add(em.idx_mul(g, plan.og), o0), col)

            def r_body(r):
                store_from_tile(em, root, out, (conv, plan.out_index(em, n, o, oy, em.idx_add(ox0, r)), tile, r, col))

            em.loop(rows, r_body)

        em.loop(cols, c_body)

    full_panels, tail = divmod(plan.og, nr)
    by_panels = split_panels(plan.oh, full_panels, plan.og * plan.k, plan.cg * len(plan.phases) * plan.hq * plan.wq)

    def rows_of(n, g, jb, o0, nvec: int, cols: int) -> None:
        def oy_body(oy):
            for first, count, rows in pixel_tiles(plan.ow, mr):

                def tile_body(t, first=first, rows=rows):
                    ox0 = idx_plus(em, em.idx_mul(t, rows), first)
                    micro_kernel(g, jb, oy, ox0, rows, nvec)
                    epilogue(n, g, o0, oy, ox0, rows, cols)

                em.loop(count, tile_body)

        em.loop(plan.oh, oy_body, parallel=True)

    def panel_loop(n, g) -> None:
        """The outermost loop over N panels (output channels of group g)."""

        def full(jb):
            o0 = em.idx_mul(jb, nr)
            if not plan.pack_b:
                copy_panel(g, o0, nr, nr)
            rows_of(n, g, jb, o0, nr // lanes, nr)

        if full_panels:
            em.loop(full_panels, full, parallel=by_panels)
        if tail:
            nvec = -(-tail // lanes)
            o0 = em.index(full_panels * nr)
            if not plan.pack_b:
                copy_panel(g, o0, tail, nvec * lanes)
            rows_of(n, g, em.index(full_panels), o0, nvec, tail)

    def image(n):
        emit_padded_copy(em, plan, x, n, xq)
        em.loop(plan.groups, lambda g: panel_loop(n, g))

    em.loop(plan.n_img, image)


# --------------------------------------------------------------------------
# depthwise
# --------------------------------------------------------------------------

#: Vectors of one output row accumulated together (independent FMA chains).
DW_VECS = 4


def plan_depthwise(conv: graph.Conv2dOp, target: Target) -> ConvPlan | None:
    """A depthwise conv (one input and one output channel per group): each
    output row is a few vectors of the target's lanes of pixels accumulated
    over the taps in registers, reading the same padded, phase-split copy as
    the GEMM form, one channel at a time."""
    tile = GemmTile.for_target(target)
    n_img, c, h, w = tensor_of(conv.input).get_shape()
    o, cg, kh, kw = tensor_of(conv.weight).get_shape()
    _, _, oh, ow = tensor_of(conv.result).get_shape()
    if conv.group_count != c or o != c or cg != 1 or ow < tile.lanes // 2 or oh * ow * c * kh * kw < MIN_FLOP_VOLUME:
        return None
    if conv.stride_values != (1, 1):
        # Measured: with stride 2 the phase-split copy (a strided gather)
        # costs more than the direct loops it replaces (96@56: 79 -> 250 us).
        return None
    (sy, sx), (pt, pl), (dy, dx) = conv.stride_values, conv.pad_values[:2], conv.dilation_values
    plan = ConvPlan(
        conv, conv.input, conv.weight, False,
        c, n_img, c, h, w, 1, 1, kh, kw, oh, ow, (sy, sx), (pt, pl), (dy, dx), tile,
    )  # fmt: skip
    _set_phases_and_taps(plan)
    # Whole vectors of every row stay inside the row (zero columns past it).
    plan.wq = -(-ow // tile.lanes) * tile.lanes + max(t[4] for t in plan.taps)
    plan.depthwise = True
    if len(plan.phases) * plan.hq * plan.wq * 4 > MAX_XQ_BYTES:  # one channel
        return None
    return plan


def emit_depthwise(em: KernelEmitter, plan: ConvPlan, root: SSAValue, out: SSAValue) -> None:
    """``out[n, c, oy, x0 .. x0+16v)`` = sum over taps of ``w[c, tap]`` times a
    contiguous vector of the padded copy; the vectors of a row tile stay in
    registers over all taps, then the fused epilogue stores the valid pixels.

    Each iteration of the parallel channel loop first copies its own channel
    (``xq`` holds one: per-thread scratch, in L1), so the copy is split with
    the conv in one region and no thread waits for a serial copy (384 @14 in
    MobileNetV2 ran slower on 2 threads than on 1 with the copy serial)."""
    conv = plan.anchor
    x = em.sources[plan.a]
    lanes = plan.tile.lanes
    vt = VectorType(f32, [lanes])
    zero_v = em.splat(em.scalar_constant(0.0, f32), vt)
    xq = em.local_buffer([1, len(plan.phases), plan.hq, plan.wq], f32)
    c0 = em.index(0)
    tile = em.local_buffer([DW_VECS * lanes], f32)
    width = DW_VECS * lanes
    full, rest = divmod(plan.ow, width)

    def row_tile(n, c, oy, x0: SSAValue, nvec: int, cols: int, weights) -> None:
        accs = [zero_v] * nvec
        for t, (_ky, _kx, slot, qy, qx) in enumerate(plan.taps):
            i = idx_plus(em, oy, qy)
            for v in range(nvec):
                a = em.vload(xq, [c0, em.index(slot), i, idx_plus(em, x0, qx + v * lanes)], vt)
                accs[v] = em.fma(a, weights[t], accs[v])
        for v in range(nvec):
            em.vstore(accs[v], tile, [em.index(v * lanes)])

        def r_body(r):
            store_from_tile(em, root, out, (conv, (n, c, oy, em.idx_add(x0, r)), tile, r))

        em.loop(cols, r_body)

    def channel(n, c):
        emit_padded_channel(em, plan, x, n, c, xq, c0)
        # value_at: a buffer load, or the scalar of a splat weight.
        weights = [
            em.splat(em.value_at(plan.b, [c, em.index(0), em.index(ky), em.index(kx)]), vt)
            for ky, kx, *_ in plan.taps
        ]

        def oy_body(oy):
            wants_llvm_unrolling(oy)  # a row of 14 (576@14) 20% faster
            if full:
                em.loop(full, lambda t: row_tile(n, c, oy, em.idx_mul(t, width), DW_VECS, width, weights))
            if rest:
                row_tile(n, c, oy, em.index(full * width), -(-rest // lanes), rest, weights)

        em.loop(plan.oh, oy_body)

    def image(n):
        em.loop(plan.c, lambda c: channel(n, c), parallel=True)

    em.loop(plan.n_img, image)
