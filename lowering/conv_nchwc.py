"""The NCHWc conv micro-kernel (``graph.conv2d_nchwc``) and the compute rules
of the blocked-layout ops (``dialects/graph/blocked.py``).

Output ``[N, O/16, OH, OW, 16]``, input ``[N, C/cl, H, W, cl]`` (``cl = 16``,
or ``cl = 1``: an NCHW input read as 1-channel blocks), weight packed at
compile time as ``[ceil(O/32), C/cl, KH, KW, cl, 32]`` (zero-padded):

    xq = zero-padded copy of x[n]                     (only when there is padding)
    for p in panels of 32 output channels (2 blocks)  (parallel, or the strips)
      for strips of ~100 pixels (whole rows, or a run of a flat plane):
        tile[t] = 0 for the strip's register tiles t
        for each accumulation block (~128 products: input blocks ib0..):
          for t = tiles of R = 7 (or 8) pixels of the strip (+ a shorter one):
            acc[r][v] = 0                             (R x 2 zmm accumulators)
            for ib, ky, kx, ci (ci by 4s):
              acc[r][v] = fma(bcast(xq[ib, oy*sy + ky, (ox0 + r)*sx + kx, ci]), W[p, ib, ky, kx, ci, 16v], acc[r][v])
            tile[t] += acc                            (through a mid-level sum when many)
        out[n, 2p + v, oy, ox0 + r, :] = epilogue(tile[t][r][v])   (one 64-byte store each)

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
rows.  The fused epilogue runs on the accumulator vectors (the 16 lanes are
the 16 channels of a block: a per-channel bias is one ``[16]`` load), no
transpose.  Sums over K are blocked as in ``conv_gemm``: about 128 products
from zero in registers, the block sums added to a tile (two levels when
there are many), so the rounding error grows with the block length, not K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import (
    BytesAttr, DenseIntOrFPElementsAttr, MemRefType, StringAttr, TensorType, UnitAttr, VectorType, f32,
)
from xdsl.ir import SSAValue

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import tensor_of
from graphopt.dialects.loop import PrefetchOp
from graphopt.lowering.compute_rules import elem_type, lowest, register_compute_rule, s_mac, s_max
from graphopt.lowering.conv_gemm import TWO_LEVEL_BLOCKS, channel_block, idx_plus
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.parallel_split import parallel_copy, split_panels
from graphopt.lowering.register_tile import VectorEpilogue, store_from_tile, tile_value
from graphopt.lowering.rules_nn import Window, reduce_dims, window_unroll
from graphopt.lowering.rules_tensor import select
from graphopt.target import Target

LANES = 16
#: Register tiles (output blocks x pixels): WIDE for a pointwise conv whose
#: output blocks come in fours (24 accumulators: 4 weight and 6 broadcast
#: loads per 24 FMAs), else NARROW (two blocks, 7 pixels when they divide the
#: row, else 8 and a shorter last tile).  Rows of at most NARROW_ROWS pixels
#: that are not flattened (a pointwise conv runs over the plane's pixels as
#: one row) take the narrow tile.  Measured, one thread, warm, interleaved:
#: wide 1x1 256->64 @56 0.78 -> 0.74 ms, 1024->256 @14 0.78 -> 0.72; narrow
#: 3x3 256 @14 2.20 -> 1.66 (6 + 6 + 2 pixels), 128 @28 1.53 -> 1.51.  A conv
#: with more taps is narrow: its wide block of weights (9 x 16 x 64 floats,
#: 36 KB) crowds L1 (in one process: 3x3 64 @56 1.41 -> 1.11 ms, 64 @48
#: 1.00 -> 0.80, the 7x7 stem 1.35 -> 1.14; ResNet-50 40.5 -> 39.8 ms).
WIDE = (4, 6)
NARROW = (2, 7)
NARROW_ROWS = 28
#: Pixels per strip: the register tiles of a strip (a run of a flat
#: plane, or whole rows, as many as divide the plane) take each
#: accumulation block of the weights in turn, all of them while it is in
#: L1, where each tile used to stream its whole panel (up to 512 KB) from L2.
#: Measured warm, one thread, in one process (a tile a strip -> strips):
#: 3x3 512 @7 1.78 -> 1.61 ms, 256 @14 1.48 -> 1.26, 64 @56 1.47 -> 1.33;
#: 1x1 2048->512 @7 0.89 -> 0.80, 1024->256 @14 0.72 -> 0.67.
STRIP_PIXELS = 100
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
#: Input channels of a block per straight-line step of a pointwise conv's
#: inner loop (code size against loop overhead).
UNROLL_CI = 4
#: Largest zero-padded input copy (a stack buffer), as in conv_gemm.
MAX_XQ_BYTES = 4 * 1024 * 1024
#: Prefetch the next accumulation block's weights (module docstring), with
#: LLVM's locality 2 (keep in L2 and L1).
PREFETCH_WEIGHTS = True
PREFETCH_LOCALITY = 2


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
    nb: int = 2  # output blocks per panel (and per register tile)
    mr: int = 7  # pixels per register tile
    flat: bool = False  # tiles run over the whole plane (pointwise)
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
    def hp(self) -> int:
        return self.h + self.pad[0] + self.pad[2]

    @property
    def wp(self) -> int:
        return self.w + self.pad[1] + self.pad[3]

    def packed_global(self, const: graph.ConstantOp, name: str) -> memref.GlobalOp:
        packed = pack_nchwc_weight(np.asarray(const.reference()[0], dtype=np.float32), self.cl, self.nb)
        attr = DenseIntOrFPElementsAttr(TensorType(f32, packed.shape), BytesAttr(packed.tobytes()))
        return memref.GlobalOp.get(
            StringAttr(name), MemRefType(f32, packed.shape), attr, constant=UnitAttr(), alignment=64
        )

    def emit(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        emit_nchwc(em, self, root, out)


def pack_nchwc_weight(w: np.ndarray, cl: int, nb: int) -> np.ndarray:
    """``w[O, C, KH, KW]`` as ``[ceil(O/16nb), C/cl, KH, KW, cl, 16nb]``, zero-padded."""
    o, c, kh, kw = w.shape
    nr = nb * LANES
    panels = -(-o // nr)
    padded = np.zeros((panels * nr, c, kh, kw), np.float32)
    padded[:o] = w
    blocked = padded.reshape(panels, nr, c // cl, cl, kh, kw)
    return np.ascontiguousarray(blocked.transpose(0, 2, 4, 5, 3, 1))


def plan_nchwc(conv: graph.Conv2dNchwcOp, constants: dict, target: Target) -> NchwcPlan | None:
    """The micro-kernel for a constant-weight f32 conv with unit dilations
    and 16-channel output blocks; else None (the compute rule's loops)."""
    if conv.weight not in constants or conv.dilation_values != (1, 1) or conv.block_size != LANES:
        return None
    x = tensor_of(conv.input).get_shape()
    n, cb, h, w, cl = x if len(x) == 5 else (*x[:2], *x[2:], 1)
    o, _, kh, kw = tensor_of(conv.weight).get_shape()
    _, _, oh, ow, _ = tensor_of(conv.result).get_shape()
    plan = NchwcPlan(conv, conv.input, conv.weight, n, cb, cl, h, w, o, kh, kw, oh, ow,
                     conv.stride_values, conv.pad_values)  # fmt: skip
    if plan.padded and cb * cl * plan.hp * plan.wp * 4 > MAX_XQ_BYTES:
        return None
    plan.flat = (kh, kw) == (1, 1) and cl > 1 and (plan.collapsed or PLANE_TILES)
    width = oh * ow if plan.flat else ow
    wide_panel = cb * cl * kh * kw * WIDE[0] * LANES * 4
    wide = (o // LANES) % WIDE[0] == 0 and width > NARROW_ROWS and wide_panel <= WIDE_PANEL_BYTES and kh * kw == 1
    plan.nb, plan.mr = WIDE if wide else NARROW
    if plan.nb == NARROW[0] and width % plan.mr:
        plan.mr = 8
    return plan


rules.GEMM_PLAN.register(graph.Conv2dNchwcOp, plan_nchwc)


# --------------------------------------------------------------------------
# emission
# --------------------------------------------------------------------------


def emit_padded(em: KernelEmitter, plan: NchwcPlan, x: SSAValue, n: SSAValue, xq: SSAValue) -> None:
    """``xq[ib, i, j, :] = x[n, ib, i - pt, j - pl, :]``, zero outside ``x``:
    static ranges, a vector per pixel of a 16-channel block."""
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

        def row(i: SSAValue) -> None:
            src_row = em.emit(arith.SubiOp(i, em.index(pt))).results[0] if pt else i

            def col(j: SSAValue) -> None:
                q = em.emit(arith.SubiOp(j, em.index(pl))).results[0] if pl else j
                if cl > 1:
                    put(em.emit_here(vector.LoadOp(x, [n, ib, src_row, q, em.index(0)], vt)).results[0], [ib, i, j])
                else:
                    put(em.emit_here(memref.LoadOp.get(x, [n, ib, src_row, q])).results[0], [ib, i, j])

            zeros(i, 0, pl)
            em.loop(pl + plan.w, col, start=pl)
            zeros(i, pl + plan.w, plan.wp)

        if pt:
            em.loop(pt, lambda i: zeros(i, 0, plan.wp))
        em.loop(pt + plan.h, row, start=pt)
        if plan.hp > pt + plan.h:
            em.loop(plan.hp, lambda i: zeros(i, 0, plan.wp), start=pt + plan.h)

    em.loop(plan.cb, block, parallel=parallel_copy(plan.cb * plan.cl * plan.hp * plan.wp))


def _collapsed_pixels(em: KernelEmitter, buf: SSAValue) -> SSAValue:
    """``[N, CB, H, W, c]`` as ``[N, CB, H*W, c]``: a flat pixel index."""
    return em.collapse(buf, ((0,), (1,), (2, 3), (4,)))


def emit_nchwc(em: KernelEmitter, plan: NchwcPlan, root: SSAValue, out: SSAValue) -> None:
    """The whole output nest of an NCHWc conv kernel (the module docstring)."""
    conv = plan.anchor
    x = em.sources[plan.a]
    vt = VectorType(f32, [LANES])
    zero_v = em.emit(vector.BroadcastOp(em.scalar_constant(0.0, f32), vt)).results[0]
    xq = em.local_buffer([plan.cb, plan.hp, plan.wp, plan.cl], f32) if plan.padded else None
    x_flat = _collapsed_pixels(em, x) if plan.collapsed else None
    mr, nb, nr = plan.mr, plan.nb, plan.nb * LANES
    taps = plan.kh * plan.kw * plan.cl
    cbk = channel_block(plan.cb, taps)  # input blocks per accumulation block
    nblocks = -(-plan.cb // cbk)
    epilogue_v = VectorEpilogue.plan(conv, root, em.sources, (4,))
    # The register tile goes through a stack tile when block sums add up
    # there, or when the scalar epilogue reads it.
    width = plan.oh * plan.ow if plan.flat else plan.ow
    full_tiles, rem = divmod(width, mr)
    full_panels, last_blocks = divmod(plan.o // LANES, nb)
    # Strips: a flat plane in runs of about STRIP_PIXELS (the last one takes
    # the short tile), else whole rows, as many as divide the plane within
    # STRIP_PIXELS, or single tiles when a row is longer (or a flat plane's
    # panel small).
    tile_strips = not plan.flat and plan.ow > STRIP_PIXELS
    if plan.flat:
        panel = plan.cb * plan.cl * nr * 4
        strip_tiles = max(1, STRIP_PIXELS // mr) if panel >= MIN_STRIP_PANEL_BYTES else 1
        strips = max(1, -(-full_tiles // strip_tiles))
        strip_px = max(strip_tiles * mr, width - (strips - 1) * strip_tiles * mr)
        strip_rows = 1
    elif tile_strips:
        strip_rows, strips, strip_tiles, strip_px = 1, plan.oh, 1, mr
    else:
        strip_rows = max(d for d in range(1, plan.oh + 1) if plan.oh % d == 0 and d * plan.ow <= STRIP_PIXELS)
        strips = plan.oh // strip_rows
        strip_tiles, strip_px = full_tiles, strip_rows * plan.ow
    tile = em.local_buffer([strip_px, nr], f32) if nblocks > 1 or epilogue_v is None else None
    mid = em.local_buffer([strip_px, nr], f32) if nblocks > TWO_LEVEL_BLOCKS else None
    # Blocks per mid-level sum: about sqrt(blocks), a divisor when one is near
    # (one copy of the block loop, no remainder group).
    group = max(2, round(nblocks**0.5))
    group = next((d for d in range(group, max(2, group // 2) - 1, -1) if nblocks % d == 0), group)
    sy, sx = plan.stride

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
        """How far ahead (input blocks) and which lines of a weight row the
        tile at strip offset ``off`` prefetches: the first ``nvec`` tiles of
        a strip one line each, the others none (a step of 0: their own row,
        already in L1), a strip of fewer tiles every line.  None when the
        next block is always this one (a panel of one block and many strips)."""
        if not PREFETCH_WEIGHTS or (nblocks == 1 and strips_per_panel > 1):
            return None
        if tiles < nvec:
            return em.index(cbk), [em.index(v * LANES) for v in range(nvec)]
        later = em.pure(arith.MinSIOp, (em.idx_div(off, nvec * mr), em.index(1)), em.index(0).type)
        step = em.pure(arith.SubiOp, (em.index(cbk), em.idx_mul(later, cbk)), later.type)
        return step, [em.idx_mul(em.idx_rem(em.idx_div(off, mr), nvec), LANES)]

    def prefetch_next(p: SSAValue, ib: SSAValue, ahead: tuple[SSAValue, list[SSAValue]], row: list[SSAValue]) -> None:
        """Prefetch weight ``row`` (ky, kx, ci) of the block ``step`` input
        blocks on from ``ib``: into the next panel when a panel is one strip
        (the last panel's last block fetches its own), else back to block 0."""
        if ahead is None:
            return
        step, lanes = ahead
        nib = em.idx_add(ib, step)
        if strips_per_panel == 1:
            linear = em.pure(arith.MinSIOp, (em.idx_add(em.idx_mul(p, plan.cb), nib), em.index(panels * plan.cb - 1)), nib.type)
            p, nib = em.idx_div(linear, plan.cb), em.idx_rem(linear, plan.cb)
        else:
            nib = em.idx_rem(nib, plan.cb)
        for lane in lanes:
            em.emit_here(PrefetchOp(plan.packed, [p, nib, *row, lane], PREFETCH_LOCALITY))

    def block_sum(n, p, oy, ox0, rows: int, nvec: int, ib0: SSAValue, count: int, ahead) -> list[SSAValue]:
        """The accumulators over input blocks ``ib0 .. ib0 + count``, each
        weight row prefetching as ``ahead`` (:func:`prefetch_lanes`) says.

        A pointwise conv runs the block's channels UNROLL_CI at a time
        straight; a conv with more taps loops over the channels and runs
        each kernel row's taps straight (an NCHW input has no channels)."""
        pointwise = plan.kh * plan.kw == 1
        if plan.cl == 1:
            names, extents, unroll = ("ib", "ky", "kx"), [count, plan.kh, plan.kw], (False, False, True)
        elif pointwise:
            names, extents, unroll = ("ib", "c4", "c1"), [count, plan.cl // UNROLL_CI, UNROLL_CI], (False, False, True)
        else:
            names, extents, unroll = ("ib", "ky", "ci", "kx"), [count, plan.kh, plan.cl, plan.kw], (False,) * 3 + (True,)

        def body(ivs, accs):
            iv = dict(zip(names, ivs))
            ib = em.idx_add(ib0, iv["ib"])
            ky, kx = iv.get("ky", em.index(0)), iv.get("kx", em.index(0))
            ci = em.idx_add(em.idx_mul(iv["c4"], UNROLL_CI), iv["c1"]) if "c4" in iv else iv.get("ci", em.index(0))
            iy = em.idx_add(em.idx_mul(oy, sy), ky) if oy is not None else None
            prefetch_next(p, ib, ahead, [ky, kx, ci])
            ws = [em.emit_here(vector.LoadOp(plan.packed, [p, ib, ky, kx, ci, em.index(v * LANES)], vt)).results[0]
                  for v in range(nvec)]  # fmt: skip
            nxt = list(accs)
            for r in range(rows):
                px, row = idx_plus(em, ox0, r), iy
                if oy is None and x_flat is None:  # a plane tile: each pixel's own row
                    row = em.idx_add(em.idx_mul(em.idx_div(px, plan.ow), sy), ky)
                    px = em.idx_rem(px, plan.ow)
                ix = em.idx_add(em.idx_mul(px, sx), kx)
                av = em.emit(vector.BroadcastOp(a_load(n, ib, row, ix, ci), vt)).results[0]
                for v in range(nvec):
                    nxt[r * nvec + v] = em.emit(vector.FMAOp(av, ws[v], nxt[r * nvec + v])).results[0]
            return nxt

        return em.reduce(extents, [zero_v] * (rows * nvec), body, unroll)

    def at(off: SSAValue, r: int, v: int) -> list[SSAValue]:
        return [idx_plus(em, off, r), em.index(v * LANES)]

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
                    em.emit_here(vector.StoreOp(epilogue_v.emit(em, idx, t, LANES), out, idx))
                else:
                    em.loop(LANES, lambda c, r=r, v=v, yy=yy, xx=xx, blk=blk: store_from_tile(
                        em, root, out, (conv, (n, blk, yy, xx, c), tile, idx_plus(em, off, r), idx_plus(em, c, v * LANES))))

    def strip(n, p, oy0: SSAValue | None, x0: SSAValue, count: int, rem: int, rows: int, nvec: int) -> None:
        """The register tiles of one strip, ``nvec`` blocks of panel ``p``:
        ``rows`` rows from ``oy0`` (one of the flat plane: None), each
        ``count`` tiles of ``mr`` pixels and one of ``rem`` from pixel
        ``x0``.  Each accumulation block of the weights runs over all of
        them while it is in L1.  A tile's position is (its row or None, its
        first pixel, its offset in the strip's buffers)."""

        def each_tile(fn) -> None:
            def row(r: SSAValue) -> None:
                oy = None if oy0 is None else em.idx_add(oy0, r)
                start = em.idx_mul(r, count * mr + rem)
                if count:
                    em.loop(count, lambda t: fn((oy, em.idx_add(x0, em.idx_mul(t, mr)), em.idx_add(start, em.idx_mul(t, mr))), mr))
                if rem:
                    fn((oy, idx_plus(em, x0, count * mr), idx_plus(em, start, count * mr)), rem)

            em.loop(rows, row)

        tiles = rows * (count + (rem > 0))

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

    strips_per_panel = strips * (full_tiles + (rem > 0)) if tile_strips else strips
    k = plan.cb * plan.cl * plan.kh * plan.kw
    by_panels = split_panels(strips, full_panels, plan.o * k, plan.cb * plan.cl * plan.hp * plan.wp)

    def rows_of(n, p, nvec: int) -> None:
        if plan.flat:
            size = strip_tiles * mr
            if strips > 1:
                em.loop(strips - 1, lambda s: strip(n, p, None, em.idx_mul(s, size), strip_tiles, 0, 1, nvec), parallel=True)
            last = full_tiles - (strips - 1) * strip_tiles
            strip(n, p, None, em.index((strips - 1) * size), last, rem, 1, nvec)
        elif tile_strips:

            def row(oy: SSAValue) -> None:
                if full_tiles:
                    em.loop(full_tiles, lambda t: strip(n, p, oy, em.idx_mul(t, mr), 1, 0, 1, nvec))
                if rem:
                    strip(n, p, oy, em.index(full_tiles * mr), 0, rem, 1, nvec)

            em.loop(plan.oh, row, parallel=True)
        else:
            em.loop(strips, lambda s: strip(n, p, em.idx_mul(s, strip_rows), em.index(0), full_tiles, rem, strip_rows, nvec),
                    parallel=True)  # fmt: skip

    def image(n):
        if xq is not None:
            emit_padded(em, plan, x, n, xq)
        if full_panels:
            em.loop(full_panels, lambda p: rows_of(n, p, nb), parallel=by_panels)
        if last_blocks:
            rows_of(n, em.index(full_panels), last_blocks)

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
    -inf.  The channels are the innermost, contiguous loop (LLVM vectorises it)."""
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
