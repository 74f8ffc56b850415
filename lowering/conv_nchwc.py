"""The NCHWc conv micro-kernel (``graph.conv2d_nchwc``) and the compute rules
of the blocked-layout ops (``dialects/graph/blocked.py``).

Output ``[N, O/b, OH, OW, b]`` with ``b`` channels a block, one vector
register of f32 on the target (16 with AVX-512, 8 with AVX2: the layout
pass blocks so), input ``[N, C/cl, H, W, cl]`` (``cl = b``, or ``cl = 1``:
an NCHW input read as 1-channel blocks), weight packed at compile time as
``[ceil(O/nr), C/cl, KH, KW, cl, nr]`` (zero-padded), ``nr = NB * b`` the
output channels of a register tile:

    xq = zero-padded copy of x[n]                     (only when there is padding)
    for p in panels of NB blocks                      (parallel, or the strips)
      for strips of ~100 pixels (whole rows, or a run of a flat plane):
        tile[t] = 0 for the strip's register tiles t
        for each accumulation block (>= 128 products: input blocks ib0..):
          for t = tiles of R pixels of the strip (+ the shorter last ones):
            acc[r][v] = 0                             (R x NB vector accumulators)
            for ib, ky, kx, ci:
              acc[r][v] = fma(bcast(xq[ib, oy*sy + ky, (ox0 + r)*sx + kx, ci]), W[p, ib, ky, kx, ci, b*v], acc[r][v])
            tile[t] += acc                            (through a mid-level sum when many)
        out[n, NB*p + v, oy, ox0 + r, :] = epilogue(tile[t][r][v])   (one vector store each)

The register tile (NB blocks x R pixels) comes from the target's vector
registers (:func:`register_tiles`): its accumulators, the vectors one step
keeps live (NB weights, or R broadcasts when fewer) and one more must fit,
or LLVM spills accumulators on every step.  32 registers (AVX-512): 4 x 6
for pointwise convs, 2 x 7 (or 8) for the others, as tuned below; 16
(AVX2): 4 x 3 for both, a weight at a time against the 3 broadcasts, each
tap's channels in the inner step (a row's taps straight, at stride 1, share
their broadcast pixels: more live values than 16 registers hold).

A padded input larger than BANDED_ABOVE_BYTES (VGG's 224x224x64 is 13 MB)
is copied in bands of output rows, each band's padded rows into a stack
buffer of at most BAND_BYTES of its thread's, the bands in parallel
(:func:`band_rows`), so an image of any size takes the micro-kernel.
(Tried and left out: a flat plane's strips outermost, each over every
panel, where that moves fewer bytes (AVX2's narrower panels re-read the
plane twice as often): ResNet-50 at one thread within 0.5% either way, at
two threads slower with the AVX-512 build.)

The block's weights (a pointwise conv: 128 channels x 32, 16 KB) stay in L1
over the strip's tiles.  While the first tiles of a strip run a block, each
weight row they read also prefetches (``loop.prefetch``) one line of the same
row of the next block (a strip of one tile: every line of it), of the next
panel after the last block when a panel is one strip, so the next block
arrives from L2 or memory while this one computes, not on the first tile's
loads.  Measured in one process, interleaved, ResNet-50 at one thread:
46.3 -> 42.6 ms (onnxruntime 43.6); locality 2 against 3, 1 and 0: 42.5
against 43.3, 44.6 and 44.0 ms.
Every tile reads whole 64-byte lines of the input (the 16 channels of a
pixel) and writes whole lines of the output and residual, in sequence, where
the NCHW GEMM's tile writes a short run into each of hundreds of channel
rows.  The fused epilogue runs on the accumulator vectors (the lanes are
the channels of a block: a per-channel bias is one ``[b]`` load), no
transpose.  Sums over K are blocked as in ``conv_gemm``: whole input
blocks of at least 128 products from zero in registers, the block sums
added to a tile (two levels when there are many), so the rounding error
grows with the block length, not K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import (
    BytesAttr, DenseIntOrFPElementsAttr, IntegerAttr, MemRefType, StringAttr, TensorType, UnitAttr, VectorType, f32,
    i1, i64,
)
from xdsl.ir import SSAValue

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import tensor_of
from graphopt.dialects.loop import PrefetchOp
from graphopt.lowering.compute_rules import elem_type, lowest, register_compute_rule, s_mac, s_max
from graphopt.lowering.conv_gemm import TWO_LEVEL_BLOCKS, channel_block, idx_plus
from graphopt.lowering.kernel_emitter import INDEX, KernelEmitter
from graphopt.lowering.nchwc_tiles import (
    NARROW_ROWS, STRIP_PIXELS, accumulation_products, channels_per_step, register_tiles, row_tiles, strip_rows,
    strip_tile_count,
)
from graphopt.lowering.parallel_split import parallel_copy, split_panels
from graphopt.lowering.register_tile import VectorEpilogue, store_from_tile, tile_value
from graphopt.lowering.rules_nn import Window, reduce_dims, window_unroll
from graphopt.lowering.rules_tensor import select
from graphopt.target import Target


#: A pointwise conv with a smaller weight panel runs a tile a strip (its
#: panel streams from L2 well enough).  Measured in one process: 64 KB
#: panels (256 channels x 64) in strips, 256->512 /2 @56 1.16 -> 1.02 ms,
#: 256->64 @56 unchanged, ResNet-50 41.05 -> 40.40 ms; 32 KB ones, slower.
MIN_STRIP_PANEL_BYTES = 64 * 1024
#: A strided pointwise conv's tiles also run over its output plane (each
#: pixel reads its own input row), so they can be wide: measured warm, one
#: thread, in one process: 256->512 /2 @56 1.73 -> 1.33 ms, 1024->2048 /2
#: @14 1.73 -> 1.57.  (3x3 convs over the plane: the same tiles, a little
#: slower; wide 3x3 tiles, their 36 KB weight blocks: slower still.)
PLANE_TILES = True
#: Largest weight panel of a wide tile: every tile streams its panel from L2,
#: next to the input (2048->512 @7: 512 KB + 400 KB of input, slower wide).
WIDE_PANEL_BYTES = 256 * 1024
#: f32 per cache line: the weight prefetch fetches a panel row's lines.
LINE_FLOATS = 16
#: Largest zero-padded input copy (a stack buffer), as in conv_gemm.
MAX_XQ_BYTES = 4 * 1024 * 1024
#: A padded input larger than this is copied in bands of output rows
#: (:func:`band_rows`), each band's rows at most BAND_BYTES (in L2 beside
#: the weights).  Measured warm, one thread: VGG's 3x3 64 @224 (13 MB
#: padded) 110.7 GFLOP/s banded; banding the convs that fit whole (256 @56,
#: 512 @28, ResNet's): no change, nor bands of 256 KB or 1 MB.
BANDED_ABOVE_BYTES = MAX_XQ_BYTES
BAND_BYTES = 512 * 1024
#: Prefetch the next accumulation block's weights (module docstring), with
#: LLVM's locality 2 (keep in L2 and L1).
PREFETCH_WEIGHTS = True
PREFETCH_LOCALITY = 2
#: A flat plane's one-tile strips (a panel under MIN_STRIP_PANEL_BYTES: the
#: AVX2 build's 32-channel panels) read their panel from L1 and L2 after its
#: first tile (with ``prefetch_alone`` off, AVX2, they prefetch none of it);
#: each prefetches its share of the next panel's weights, so the panel
#: after arrives while this one computes, not on its first tile's loads
#: (:func:`prefetch_next_panel`; weights are cold in a model whose weights
#: outgrow L3).  Measured, AVX2 build on Zen 4, ResNet-50 at one thread,
#: interleaved: 76.4 -> 76.2 ms; AVX-512 build unchanged.
PANEL_AHEAD = True
#: ``arith.cmpi`` unsigned less-than (a negative index is a large unsigned one).
ULT = 6


@dataclass
class NchwcPlan:
    """The schedule of one ``conv2d_nchwc`` kernel (see the module docstring);
    ``a``, ``b``, ``pack_b``, ``packed`` are what ``graph_to_loop`` and
    ``gemm.plan_gemm`` ask of every GEMM-class plan."""

    anchor: graph.Conv2dNchwcOp
    a: SSAValue
    b: SSAValue
    n: int
    cb: int  # input channel blocks
    cl: int  # channels per input block (1: an NCHW input)
    h: int
    w: int
    o: int
    kh: int
    kw: int
    oh: int
    ow: int
    stride: tuple[int, int]
    pad: tuple[int, int, int, int]
    lanes: int  # channels per output block (one vector: the layout's block, the target's f32 lanes)
    nb: int = 2  # output blocks per panel (and per register tile)
    mr: int = 7  # pixels per register tile
    flat: bool = False  # tiles run over the whole plane (pointwise)
    taps_straight: bool = True  # a kernel row's taps straight (else a tap's channels, or a loop)
    prefetch_alone: bool = True  # a strip of one tile prefetches the next block's weights
    band_rows: int = 0  # output rows per band of a banded padded copy (0: the whole image's)
    pack_b: bool = True
    packed: SSAValue | None = None

    @property
    def padded(self) -> bool:
        return any(self.pad)

    @property
    def collapsed(self) -> bool:
        """A pointwise stride-1 conv: its pixels are one row of the input too."""
        return (self.kh, self.kw) == (1, 1) and self.stride == (1, 1) and not self.padded and self.cl > 1

    @property
    def strip_rows(self) -> int:
        """Whole output rows per strip: as many as divide the plane within
        STRIP_PIXELS (rows of more pixels run a tile a strip)."""
        return strip_rows(self.oh, self.ow)

    @property
    def hp(self) -> int:
        return self.h + self.pad[0] + self.pad[2]

    @property
    def wp(self) -> int:
        return self.w + self.pad[1] + self.pad[3]

    def packed_global(self, const: graph.ConstantOp, name: str) -> memref.GlobalOp:
        packed = pack_nchwc_weight(np.asarray(const.reference()[0], dtype=np.float32), self.cl, self.nb * self.lanes)
        attr = DenseIntOrFPElementsAttr(TensorType(f32, packed.shape), BytesAttr(packed.tobytes()))
        return memref.GlobalOp.get(
            StringAttr(name), MemRefType(f32, packed.shape), attr, constant=UnitAttr(), alignment=64
        )

    def emit(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        emit_nchwc(em, self, root, out)


def pack_nchwc_weight(w: np.ndarray, cl: int, nr: int) -> np.ndarray:
    """``w[O, C, KH, KW]`` as ``[ceil(O/nr), C/cl, KH, KW, cl, nr]``, zero-padded:
    panels of ``nr`` output channels (a register tile's blocks)."""
    o, c, kh, kw = w.shape
    panels = -(-o // nr)
    padded = np.zeros((panels * nr, c, kh, kw), np.float32)
    padded[:o] = w
    blocked = padded.reshape(panels, nr, c // cl, cl, kh, kw)
    return np.ascontiguousarray(blocked.transpose(0, 2, 4, 5, 3, 1))


def plan_nchwc(conv: graph.Conv2dNchwcOp, constants: dict, target: Target) -> NchwcPlan | None:
    """The micro-kernel for a constant-weight f32 conv with unit dilations
    and output blocks of whole vectors (a multiple of 4 channels); its
    register tile from the target's registers (:func:`register_tiles`), its
    padded input copied whole or, larger than MAX_XQ_BYTES, in bands of
    output rows (:func:`band_rows`); else None (the compute rule's loops)."""
    lanes = conv.block_size
    if conv.weight not in constants or conv.dilation_values != (1, 1) or lanes % 4:
        return None
    x = tensor_of(conv.input).get_shape()
    n, cb, h, w, cl = x if len(x) == 5 else (*x[:2], *x[2:], 1)
    o, _, kh, kw = tensor_of(conv.weight).get_shape()
    _, _, oh, ow, _ = tensor_of(conv.result).get_shape()
    plan = NchwcPlan(conv, conv.input, conv.weight, n, cb, cl, h, w, o, kh, kw, oh, ow,
                     conv.stride_values, conv.pad_values, lanes)  # fmt: skip
    if plan.padded and cb * cl * plan.hp * plan.wp * 4 > BANDED_ABOVE_BYTES:
        plan.band_rows = band_rows(plan)
        if not plan.band_rows:
            return None
    tiles = register_tiles(target, lanes)
    plan.flat = (kh, kw) == (1, 1) and cl > 1 and (plan.collapsed or PLANE_TILES) and not plan.band_rows
    width = oh * ow if plan.flat else ow
    wide_blocks = tiles.wide[0]
    wide_panel = cb * cl * kh * kw * wide_blocks * lanes * 4
    wide = (o // lanes) % wide_blocks == 0 and width > NARROW_ROWS and wide_panel <= WIDE_PANEL_BYTES and kh * kw == 1
    plan.nb, plan.mr = tiles.wide if wide else tiles.narrow(width)
    plan.taps_straight, plan.prefetch_alone = tiles.taps_straight, tiles.prefetch_alone
    return plan


def band_rows(plan: NchwcPlan) -> int:
    """Output rows per band of a conv whose padded input is too large to
    copy whole: each band copies the padded rows it reads, at most
    BAND_BYTES, into a stack buffer of its thread's.  Whole strips of rows;
    the most that divide the plane, unless a remainder band allows twice as
    many; 0 when even one strip's rows exceed MAX_XQ_BYTES."""
    step = plan.strip_rows
    row_bytes = plan.cb * plan.cl * plan.wp * 4

    def size(rows: int) -> int:
        return ((rows - 1) * plan.stride[0] + plan.kh) * row_bytes

    fits = [b for b in range(step, plan.oh + 1, step) if size(b) <= BAND_BYTES]
    if not fits:
        return step if size(step) <= MAX_XQ_BYTES else 0
    dividing = [b for b in fits if plan.oh % b == 0]
    return max(dividing) if dividing and 2 * max(dividing) >= max(fits) else max(fits)


rules.GEMM_PLAN.register(graph.Conv2dNchwcOp, plan_nchwc)


# --------------------------------------------------------------------------
# emission
# --------------------------------------------------------------------------


def emit_padded(
    em: KernelEmitter, plan: NchwcPlan, x: SSAValue, n: SSAValue, xq: SSAValue, band: tuple[SSAValue, int] | None = None
) -> None:
    """``xq[ib, i, j, :] = x[n, ib, i - pt, j - pl, :]``, zero outside ``x``:
    static ranges, a vector per pixel of a block.  With ``band`` (its first
    padded row ``r0``, its rows): ``xq[ib, i, ...]`` is padded row ``r0 +
    i``, a row outside ``x`` zero by a select (the band's place is known at
    run time only)."""
    pt, pl = plan.pad[:2]
    cl = plan.cl
    vt = VectorType(f32, [cl])
    zero = em.scalar_constant(0.0, f32)
    zero_v = em.emit(vector.BroadcastOp(zero, vt)).results[0] if cl > 1 else zero

    def put(value: SSAValue, at: list[SSAValue]) -> None:
        if cl > 1:
            em.emit_here(vector.StoreOp(value, xq, [*at, em.index(0)]))
        else:
            em.store(value, xq, [*at, em.index(0)])

    def block(ib: SSAValue) -> None:
        def zeros(i: SSAValue, lo: int, hi: int) -> None:
            if hi > lo:
                em.loop(hi, lambda j: put(zero_v, [ib, i, j]), start=lo)

        def row(i: SSAValue, src_row: SSAValue, inside: SSAValue | None) -> None:
            def col(j: SSAValue) -> None:
                q = em.emit(arith.SubiOp(j, em.index(pl))).results[0] if pl else j
                if cl > 1:
                    v = em.emit_here(vector.LoadOp(x, [n, ib, src_row, q, em.index(0)], vt)).results[0]
                else:
                    v = em.emit_here(memref.LoadOp.get(x, [n, ib, src_row, q])).results[0]
                put(v if inside is None else em.pure(arith.SelectOp, (inside, v, zero_v), v.type), [ib, i, j])

            zeros(i, 0, pl)
            em.loop(pl + plan.w, col, start=pl)
            zeros(i, pl + plan.w, plan.wp)

        if band is not None:
            r0, rows = band

            def band_row(i: SSAValue) -> None:
                src = em.pure(arith.SubiOp, (em.idx_add(r0, i), em.index(pt)), INDEX)
                inside = em.pure(arith.CmpiOp, (src, em.index(plan.h)), i1, {"predicate": IntegerAttr(ULT, i64)})
                low = em.pure(arith.MaxSIOp, (src, em.index(0)), INDEX)
                row(i, em.pure(arith.MinSIOp, (low, em.index(plan.h - 1)), INDEX), inside)

            em.loop(rows, band_row)
            return
        if pt:
            em.loop(pt, lambda i: zeros(i, 0, plan.wp))
        em.loop(pt + plan.h, lambda i: row(i, em.emit(arith.SubiOp(i, em.index(pt))).results[0] if pt else i, None), start=pt)
        if plan.hp > pt + plan.h:
            em.loop(plan.hp, lambda i: zeros(i, 0, plan.wp), start=pt + plan.h)

    parallel = band is None and parallel_copy(plan.cb * plan.cl * plan.hp * plan.wp)
    em.loop(plan.cb, block, parallel=parallel)


def _collapsed_pixels(em: KernelEmitter, buf: SSAValue) -> SSAValue:
    """``[N, CB, H, W, c]`` as ``[N, CB, H*W, c]``: a flat pixel index."""
    return em.collapse(buf, ((0,), (1,), (2, 3), (4,)))


def emit_nchwc(em: KernelEmitter, plan: NchwcPlan, root: SSAValue, out: SSAValue) -> None:
    """The whole output nest of an NCHWc conv kernel (the module docstring)."""
    conv = plan.anchor
    x = em.sources[plan.a]
    lanes = plan.lanes
    vt = VectorType(f32, [lanes])
    zero_v = em.emit(vector.BroadcastOp(em.scalar_constant(0.0, f32), vt)).results[0]
    x_flat = _collapsed_pixels(em, x) if plan.collapsed else None
    mr, nb, nr = plan.mr, plan.nb, plan.nb * lanes
    taps = plan.kh * plan.kw * plan.cl
    # Input blocks per accumulation block (:func:`accumulation_products`).
    cbk = channel_block(plan.cb, taps, accumulation_products(taps))
    nblocks = -(-plan.cb // cbk)
    epilogue_v = VectorEpilogue.plan(conv, root, em.sources, (4,))
    # The register tile goes through a stack tile when block sums add up
    # there, or when the scalar epilogue reads it.
    width = plan.oh * plan.ow if plan.flat else plan.ow
    full_tiles, tail = row_tiles(width, mr)
    full_panels, last_blocks = divmod(plan.o // lanes, nb)
    # Strips: a flat plane in runs of about STRIP_PIXELS (the last one takes
    # the short tiles), else whole rows, as many as divide the plane within
    # STRIP_PIXELS, or single tiles when a row is longer (or a flat plane's
    # panel small).
    tile_strips = not plan.flat and plan.ow > STRIP_PIXELS
    tail_px = sum(tail)
    if plan.flat:
        panel = plan.cb * plan.cl * nr * 4
        strip_tiles = strip_tile_count(full_tiles, mr) if panel >= MIN_STRIP_PANEL_BYTES else 1
        # Strips that divide the full tiles run in one loop, the last tiles
        # a strip of their own (one copy of the strip's code, not two).
        whole_strips = full_tiles > 0 and full_tiles % strip_tiles == 0
        if whole_strips:
            strips = full_tiles // strip_tiles + (1 if tail else 0)
            strip_px = max(strip_tiles * mr, tail_px)
        else:
            strips = max(1, -(-full_tiles // strip_tiles))
            strip_px = max(strip_tiles * mr, width - (strips - 1) * strip_tiles * mr)
        strip_rows = 1
    elif tile_strips:
        strip_rows, strips, strip_tiles, strip_px = 1, plan.oh, 1, max(mr, *tail) if tail else mr
    else:
        strip_rows = plan.strip_rows
        strips = plan.oh // strip_rows
        strip_tiles, strip_px = full_tiles, strip_rows * plan.ow
    tile = em.local_buffer([strip_px, nr], f32) if nblocks > 1 or epilogue_v is None else None
    mid = em.local_buffer([strip_px, nr], f32) if nblocks > TWO_LEVEL_BLOCKS else None
    # Blocks per mid-level sum: about sqrt(blocks), a divisor when one is near
    # (one copy of the block loop, no remainder group).
    group = max(2, round(nblocks**0.5))
    group = next((d for d in range(group, max(2, group // 2) - 1, -1) if nblocks % d == 0), group)
    sy, sx = plan.stride
    # A banded conv's padded band: the rows of the band being emitted, from
    # output row ``origin`` (its row 0 is padded row origin * sy).
    origin: SSAValue | None = None
    xq = None
    if plan.padded:
        rows = plan.hp if not plan.band_rows else (plan.band_rows - 1) * sy + plan.kh
        xq = em.local_buffer([plan.cb, rows, plan.wp, plan.cl], f32)

    def a_load(n, ib, iy, ix, ci) -> SSAValue:
        if xq is not None:
            buf, at = xq, [ib, iy, ix, ci]
        elif x_flat is not None:
            buf, at = x_flat, [n, ib, ix, ci]
        else:
            buf, at = x, [n, ib, iy, ix, ci] if plan.cl > 1 else [n, ib, iy, ix]
        return em.emit_here(memref.LoadOp.get(buf, at)).results[0]

    panels = plan.packed.type.get_shape()[0]  # type: ignore[union-attr]

    def prefetch_lanes(off: SSAValue, nvec: int, tiles: int) -> tuple[SSAValue, list[SSAValue]] | None:
        """How far ahead (input blocks) and which 64-byte lines of a weight
        row (``nvec`` blocks) the tile at strip offset ``off`` prefetches:
        the first tiles of a strip one line each, the others none (a step of
        0: their own row, already in L1), a strip of fewer tiles than lines
        every line.  None when the next block is always this one (a panel
        of one block and many strips)."""
        if not PREFETCH_WEIGHTS or (nblocks == 1 and strips_per_panel > 1) or (tiles == 1 and not plan.prefetch_alone):
            return None
        lines = -(-nvec * lanes // LINE_FLOATS)
        if tiles < lines:
            return em.index(cbk), [em.index(v * LINE_FLOATS) for v in range(lines)]
        later = em.pure(arith.MinSIOp, (em.idx_div(off, lines * mr), em.index(1)), em.index(0).type)
        step = em.pure(arith.SubiOp, (em.index(cbk), em.idx_mul(later, cbk)), later.type)
        return step, [em.idx_mul(em.idx_rem(em.idx_div(off, mr), lines), LINE_FLOATS)]

    def prefetch_next(p: SSAValue, ib: SSAValue, ahead: tuple[SSAValue, list[SSAValue]], row: list[SSAValue]) -> None:
        """Prefetch weight ``row`` (ky, kx, ci) of the block ``step`` input
        blocks on from ``ib``: into the next panel when a panel is one strip
        (the last panel's last block fetches its own), else back to block 0."""
        if ahead is None:
            return
        step, offsets = ahead
        nib = em.idx_add(ib, step)
        if strips_per_panel == 1:
            linear = em.pure(arith.MinSIOp, (em.idx_add(em.idx_mul(p, plan.cb), nib), em.index(panels * plan.cb - 1)), nib.type)
            p, nib = em.idx_div(linear, plan.cb), em.idx_rem(linear, plan.cb)
        else:
            nib = em.idx_rem(nib, plan.cb)
        for lane in offsets:
            em.emit_here(PrefetchOp(plan.packed, [p, nib, *row, lane], PREFETCH_LOCALITY))

    def block_sum(n, p, oy, ox0, rows: int, nvec: int, ib0: SSAValue, count: int, ahead) -> list[SSAValue]:
        """The accumulators over input blocks ``ib0 .. ib0 + count``, each
        weight row prefetching as ``ahead`` (:func:`prefetch_lanes`) says.

        A pointwise conv runs the block's channels a step at a time
        straight (:func:`channels_per_step`); a conv with more taps loops
        over the channels and runs each kernel row's taps straight (an NCHW
        input has no channels), or with ``taps_straight`` off (16 registers:
        a row's taps straight share their broadcast pixels at stride 1, more
        than the registers hold) loops over the taps and runs each tap's
        channels a step at a time straight (an NCHW input: one tap a step).

        Each step loads the tile's weight vectors and broadcasts its pixels
        into FMAs: a pixel's broadcast against every weight (the weights
        live), or, when a tile has fewer pixels than blocks (4 x 3 on 16
        registers: 3 broadcasts + 1 weight + 12 accumulators), a weight
        against every pixel's broadcast (the broadcasts live)."""
        pointwise = plan.kh * plan.kw == 1
        ci_step = channels_per_step(plan.cl, rows * nvec)
        if plan.cl == 1:
            names, extents, unroll = ("ib", "ky", "kx"), [count, plan.kh, plan.kw], (False, False, plan.taps_straight)
        elif pointwise:
            names, extents, unroll = ("ib", "c4", "c1"), [count, plan.cl // ci_step, ci_step], (False, False, True)
        elif plan.taps_straight:
            names, extents, unroll = ("ib", "ky", "ci", "kx"), [count, plan.kh, plan.cl, plan.kw], (False,) * 3 + (True,)
        else:
            names = ("ib", "ky", "kx", "c4", "c1")
            extents, unroll = [count, plan.kh, plan.kw, plan.cl // ci_step, ci_step], (False,) * 4 + (True,)

        def body(ivs, accs):
            iv = dict(zip(names, ivs))
            ib = em.idx_add(ib0, iv["ib"])
            ky, kx = iv.get("ky", em.index(0)), iv.get("kx", em.index(0))
            ci = em.idx_add(em.idx_mul(iv["c4"], ci_step), iv["c1"]) if "c4" in iv else iv.get("ci", em.index(0))
            iy = None
            if oy is not None:
                local = oy if origin is None else em.pure(arith.SubiOp, (oy, origin), INDEX)
                iy = em.idx_add(em.idx_mul(local, sy), ky)
            prefetch_next(p, ib, ahead, [ky, kx, ci])
            def weight(v: int) -> SSAValue:
                return em.emit_here(vector.LoadOp(plan.packed, [p, ib, ky, kx, ci, em.index(v * lanes)], vt)).results[0]

            def pixel(r: int) -> SSAValue:
                px, row = idx_plus(em, ox0, r), iy
                if oy is None and x_flat is None:  # a plane tile: each pixel's own row
                    row = em.idx_add(em.idx_mul(em.idx_div(px, plan.ow), sy), ky)
                    px = em.idx_rem(px, plan.ow)
                ix = em.idx_add(em.idx_mul(px, sx), kx)
                return em.emit(vector.BroadcastOp(a_load(n, ib, row, ix, ci), vt)).results[0]

            nxt = list(accs)
            if rows < nvec:  # the fewer live vectors: the broadcasts
                avs = [pixel(r) for r in range(rows)]
                for v in range(nvec):
                    wv = weight(v)
                    for r in range(rows):
                        nxt[r * nvec + v] = em.emit(vector.FMAOp(avs[r], wv, nxt[r * nvec + v])).results[0]
                return nxt
            ws = [weight(v) for v in range(nvec)]
            for r in range(rows):
                av = pixel(r)
                for v in range(nvec):
                    nxt[r * nvec + v] = em.emit(vector.FMAOp(av, ws[v], nxt[r * nvec + v])).results[0]
            return nxt

        return em.reduce(extents, [zero_v] * (rows * nvec), body, unroll)

    def at(off: SSAValue, r: int, v: int) -> list[SSAValue]:
        return [idx_plus(em, off, r), em.index(v * lanes)]

    def add_into(buf: SSAValue, off: SSAValue, accs: list[SSAValue], rows: int, nvec: int) -> None:
        for r in range(rows):
            for v in range(nvec):
                old = em.emit_here(vector.LoadOp(buf, at(off, r, v), vt)).results[0]
                new = em.emit(arith.AddfOp(old, accs[r * nvec + v])).results[0]
                em.emit_here(vector.StoreOp(new, buf, at(off, r, v)))

    def clear(buf: SSAValue, off: SSAValue, rows: int, nvec: int) -> None:
        for r in range(rows):
            for v in range(nvec):
                em.emit_here(vector.StoreOp(zero_v, buf, at(off, r, v)))

    def loaded(buf: SSAValue, off: SSAValue, rows: int, nvec: int) -> list[SSAValue]:
        return [em.emit_here(vector.LoadOp(buf, at(off, r, v), vt)).results[0] for r in range(rows) for v in range(nvec)]

    def finish(n, p, pos: tuple, rows: int, nvec: int, accs: list[SSAValue] | None) -> None:
        """The epilogue of the register tile at ``pos`` (see ``strip``): its
        sums in ``accs`` or in the strip's tile buffer."""
        oy, x0, off = pos
        for r in range(rows):
            px = idx_plus(em, x0, r)
            yy, xx = (em.idx_div(px, plan.ow), em.idx_rem(px, plan.ow)) if oy is None else (oy, px)
            for v in range(nvec):
                blk = idx_plus(em, em.idx_mul(p, nb), v)
                if epilogue_v is not None:
                    idx = [n, blk, yy, xx, em.index(0)]
                    t = accs[r * nvec + v] if accs is not None else em.emit_here(vector.LoadOp(tile, at(off, r, v), vt)).results[0]
                    em.emit_here(vector.StoreOp(epilogue_v.emit(em, idx, t, lanes), out, idx))
                else:
                    em.loop(lanes, lambda c, r=r, v=v, yy=yy, xx=xx, blk=blk: store_from_tile(
                        em, root, out, (conv, (n, blk, yy, xx, c), tile, idx_plus(em, off, r), idx_plus(em, c, v * lanes))))

    def strip(n, p, oy0: SSAValue | None, x0: SSAValue, count: int, tail: tuple[int, ...], rows: int, nvec: int) -> None:
        """The register tiles of one strip, ``nvec`` blocks of panel ``p``:
        ``rows`` rows from ``oy0`` (one of the flat plane: None), each
        ``count`` tiles of ``mr`` pixels then one of each ``tail`` size from
        pixel ``x0``.  Each accumulation block of the weights runs over all
        of them while it is in L1.  A tile's position is (its row or None,
        its first pixel, its offset in the strip's buffers)."""
        row_px = count * mr + sum(tail)

        def each_tile(fn) -> None:
            def row(r: SSAValue) -> None:
                oy = None if oy0 is None else em.idx_add(oy0, r)
                start = em.idx_mul(r, row_px)
                if count:
                    em.loop(count, lambda t: fn((oy, em.idx_add(x0, em.idx_mul(t, mr)), em.idx_add(start, em.idx_mul(t, mr))), mr))
                at_px = count * mr
                for size in tail:
                    fn((oy, idx_plus(em, x0, at_px), idx_plus(em, start, at_px)), size)
                    at_px += size

            em.loop(rows, row)

        tiles = rows * (count + len(tail))

        def sums(pos: tuple, size: int, ib0: SSAValue, blocks: int) -> list[SSAValue]:
            oy, x, off = pos
            return block_sum(n, p, oy, x, size, nvec, ib0, blocks, prefetch_lanes(off, nvec, tiles))

        if nblocks == 1:

            def whole(pos: tuple, size: int) -> None:
                accs = sums(pos, size, em.index(0), plan.cb)
                if tile is not None:
                    for r in range(size):
                        for v in range(nvec):
                            em.emit_here(vector.StoreOp(accs[r * nvec + v], tile, at(pos[2], r, v)))
                finish(n, p, pos, size, nvec, accs)

            each_tile(whole)
            return
        each_tile(lambda pos, size: clear(tile, pos[2], size, nvec))
        if mid is None:
            em.loop_blocks(plan.cb, cbk, lambda ib0, c: each_tile(
                lambda pos, size: add_into(tile, pos[2], sums(pos, size, ib0, c), size, nvec)))
        else:

            def grouped(g0: SSAValue, blocks: int) -> None:
                each_tile(lambda pos, size: clear(mid, pos[2], size, nvec))
                em.loop_blocks(blocks, cbk, lambda ib0, c: each_tile(
                    lambda pos, size: add_into(mid, pos[2], sums(pos, size, em.idx_add(g0, ib0), c), size, nvec)))
                each_tile(lambda pos, size: add_into(tile, pos[2], loaded(mid, pos[2], size, nvec), size, nvec))

            em.loop_blocks(plan.cb, group * cbk, grouped)
        each_tile(lambda pos, size: finish(n, p, pos, size, nvec, None))

    def panel_strips(out_rows: int) -> int:
        """Strips of one panel over ``out_rows`` output rows (the prefetch's
        next block: the panel's next strip or, one strip, the next panel)."""
        if tile_strips:
            return out_rows * (full_tiles + len(tail))
        return strips if plan.flat else out_rows // strip_rows

    strips_per_panel = panel_strips(plan.band_rows or plan.oh)
    k = plan.cb * plan.cl * plan.kh * plan.kw
    by_panels = split_panels(strips, full_panels, plan.o * k, plan.cb * plan.cl * plan.hp * plan.wp)

    def prefetch_next_panel(p: SSAValue, s: SSAValue, count: int) -> None:
        """Strip ``s`` of ``count`` one-tile strips of panel ``p`` prefetches
        its share of the next panel's weight lines (the last panel: its own
        last lines, already there; PANEL_AHEAD)."""
        per_row = -(-nr // LINE_FLOATS)
        lines = plan.cb * plan.kh * plan.kw * plan.cl * per_row
        share = -(-lines // count)
        nxt = em.pure(arith.MinSIOp, (idx_plus(em, p, 1), em.index(panels - 1)), INDEX)
        for j in range(share):
            line = em.pure(arith.MinSIOp, (idx_plus(em, em.idx_mul(s, share), j), em.index(lines - 1)), INDEX)
            row, lane = em.idx_div(line, per_row), em.idx_mul(em.idx_rem(line, per_row), LINE_FLOATS)
            ci, rest = em.idx_rem(row, plan.cl), em.idx_div(row, plan.cl)
            kx, rest = em.idx_rem(rest, plan.kw), em.idx_div(rest, plan.kw)
            ky, ib = em.idx_rem(rest, plan.kh), em.idx_div(rest, plan.kh)
            em.emit_here(PrefetchOp(plan.packed, [nxt, ib, ky, kx, ci, lane], PREFETCH_LOCALITY))

    def rows_of(n, p, nvec: int, oy0: SSAValue, out_rows: int) -> None:
        """Panel ``p``'s strips over output rows ``oy0 .. oy0 + out_rows``
        (parallel over them unless a band loop is)."""
        if plan.flat and whole_strips:
            size = strip_tiles * mr

            def one(s: SSAValue) -> None:
                if PANEL_AHEAD and strip_tiles == 1 and panels > 1:
                    prefetch_next_panel(p, s, full_tiles)
                strip(n, p, None, em.idx_mul(s, size), strip_tiles, (), 1, nvec)

            em.loop(full_tiles // strip_tiles, one, parallel=True)
            if tail:
                strip(n, p, None, em.index(full_tiles * mr), 0, tail, 1, nvec)
        elif plan.flat:
            size = strip_tiles * mr
            if strips > 1:
                em.loop(strips - 1, lambda s: strip(n, p, None, em.idx_mul(s, size), strip_tiles, (), 1, nvec), parallel=True)
            last = full_tiles - (strips - 1) * strip_tiles
            strip(n, p, None, em.index((strips - 1) * size), last, tail, 1, nvec)
        elif tile_strips:

            def row(r: SSAValue) -> None:
                oy = em.idx_add(oy0, r)
                if full_tiles:
                    em.loop(full_tiles, lambda t: strip(n, p, oy, em.idx_mul(t, mr), 1, (), 1, nvec))
                at_px = full_tiles * mr
                for size in tail:
                    strip(n, p, oy, em.index(at_px), 0, (size,), 1, nvec)
                    at_px += size

            em.loop(out_rows, row, parallel=True)
        else:
            em.loop(out_rows // strip_rows, lambda s: strip(
                n, p, em.idx_add(oy0, em.idx_mul(s, strip_rows)), em.index(0), full_tiles, tail, strip_rows, nvec),
                parallel=True)  # fmt: skip

    def panels_of(n, oy0: SSAValue, out_rows: int, parallel: bool) -> None:
        if full_panels:
            em.loop(full_panels, lambda p: rows_of(n, p, nb, oy0, out_rows), parallel=parallel)
        if last_blocks:
            rows_of(n, em.index(full_panels), last_blocks, oy0, out_rows)

    def band(n, oy0: SSAValue, out_rows: int) -> None:
        """A band of output rows from its own padded copy of the rows it reads."""
        nonlocal origin, strips_per_panel
        emit_padded(em, plan, x, n, xq, (em.idx_mul(oy0, sy), (out_rows - 1) * sy + plan.kh))
        origin, strips_per_panel = oy0, panel_strips(out_rows)
        panels_of(n, oy0, out_rows, False)
        origin, strips_per_panel = None, panel_strips(plan.band_rows)

    def image(n):
        if plan.band_rows:
            full_bands, last_rows = divmod(plan.oh, plan.band_rows)
            em.loop(full_bands, lambda b: band(n, em.idx_mul(b, plan.band_rows), plan.band_rows), parallel=True)
            if last_rows:
                band(n, em.index(full_bands * plan.band_rows), last_rows)
            return
        if xq is not None:
            emit_padded(em, plan, x, n, xq)
        panels_of(n, em.index(0), plan.oh, by_panels)

    em.loop(plan.n, image)


# --------------------------------------------------------------------------
# compute rules (the blocked ops anywhere else: epilogues, other layouts)
# --------------------------------------------------------------------------


@register_compute_rule(graph.ReorderNchwcOp)
def _reorder_nchwc(em: KernelEmitter, op: graph.ReorderNchwcOp, _: int, idx: list[SSAValue]) -> SSAValue:
    n, cb, y, x, c = idx
    return em.value_at(op.input, [n, em.idx_add(em.idx_mul(cb, op.block_size), c), y, x])


@register_compute_rule(graph.ReorderNchwOp)
def _reorder_nchw(em: KernelEmitter, op: graph.ReorderNchwOp, _: int, idx: list[SSAValue]) -> SSAValue:
    n, c, y, x = idx
    b = tensor_of(op.input).get_shape()[4]
    return em.value_at(op.input, [n, em.idx_div(c, b), y, x, em.idx_rem(c, b)])


@register_compute_rule(graph.MaxPool2dNchwcOp)
def _max_pool2d_nchwc(em: KernelEmitter, op: graph.MaxPool2dNchwcOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Window maximum of one channel of a block; out-of-bounds taps read as
    -inf.  The channels are the innermost, contiguous loop (LLVM vectorises
    it): a pool the window kernel does not take (``depthwise_nchwc``), or
    its tile."""
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled
    n, cb, y, x, c = idx
    _, _, h, w, _ = tensor_of(op.input).get_shape()
    t = elem_type(op.result)
    low = em.scalar_constant(lowest(t), t)
    win = Window(em, op, [y, x], [h, w])

    def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        (ih, iw), ok = win.at(*ivs)
        v = em.value_at(op.input, [n, cb, ih, iw, c])
        return s_max(em, acc, v if ok is None else select(em, ok, v, low))

    return reduce_dims(em, op.kernel_values, low, body, window_unroll(*op.kernel_values))


@register_compute_rule(graph.Conv2dNchwcOp)
def _conv2d_nchwc(em: KernelEmitter, op: graph.Conv2dNchwcOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``out[n, ob, y, x, oc] = sum_{ib, ci, ky, kx} in[n, ib, iy, ix, ci] *
    w[ob*b + oc, ib*cl + ci, ky, kx]``: a dot product per element (or the
    micro-kernel's tile)."""
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled
    n, ob, y, x, oc = idx
    shape = tensor_of(op.input).get_shape()
    cb, h, w, cl = (shape[1], shape[2], shape[3], shape[4]) if len(shape) == 5 else (shape[1], shape[2], shape[3], 1)
    _, _, kh, kw = tensor_of(op.weight).get_shape()
    o = em.idx_add(em.idx_mul(ob, op.block_size), oc)
    win = Window(em, op, [y, x], [h, w])
    zero = em.scalar_constant(0.0, elem_type(op.result))

    def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        ib, ci, ky, kx = ivs
        (iy, ix), ok = win.at(ky, kx)
        v = em.value_at(op.input, [n, ib, iy, ix, ci] if len(shape) == 5 else [n, ib, iy, ix])
        if ok is not None:
            v = select(em, ok, v, zero)
        c = em.idx_add(em.idx_mul(ib, cl), ci) if cl > 1 else ib
        return s_mac(em, acc, v, em.value_at(op.weight, [o, c, ky, kx]), reduction=True)

    return reduce_dims(em, [cb, cl, kh, kw], zero, body)


__all__ = ["NchwcPlan", "pack_nchwc_weight", "plan_nchwc"]
