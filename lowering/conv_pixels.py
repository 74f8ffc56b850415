"""Conv schedule with the vector lanes over output pixels, for convs whose
output rows are whole vectors of pixels (the ResNet-50 stem: 112 pixels).

The implicit GEMM of :mod:`graphopt.lowering.conv_gemm` runs its lanes over
output channels, so its MR-pixel x NR-channel tile reaches the NCHW output
transposed, through a scalar epilogue (a quarter of the stem's time).  Here
the tile is 16 channels x L pixels of one output row, L the target's f32
lanes:

    for oy, ox0 (L pixels), o0 (16 channels):
      for channel blocks, c in block, taps (ky looped when the conv allows, kx unrolled):
        a = vector.load xq[c, phase, oy + qy, ox0 + qx .. +L]      (contiguous: the padded copy)
        acc[j] = fma(a, bcast(B[k, o0 + j]), acc[j])               (j < 16; B: the packed weight)
      T[j] += acc[j]
    out[n, o0 + j, oy, ox0 .. +L] = epilogue(T[j])                 (L consecutive pixels)

The 16 accumulators need a target with 32 vector registers (AVX-512): with
AVX2's 16, a tile of 8 channels (8 accumulators, a broadcast weight per
FMA) ran 20-35% slower than the channel lanes (3x3 64->64 @56 3.0 against
2.4 ms, the stem 2.9 against 2.7 ms), so there every conv keeps them.

The epilogue runs on vectors (``register_tile.VectorEpilogue``) when its ops
allow, else element by element from the same tile.  Sums run in the same
order over K as in ``conv_gemm`` (blocks of channels, taps in order, two
levels of block sums when there are many), so both forms give the same bits.
Measured with AVX-512, one thread: stem 2.4 -> 1.9 ms, 3x3 64->64 @64 2.9
-> 2.1 ms, @48 and 128->128 @32 equal.  Rows of 56 with a last vector of 8
pixels were slower (64->64 @56: 2.4 -> 2.9 ms), so rows that are not whole
vectors keep the channel lanes.
"""

from __future__ import annotations

from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt.lowering.conv_gemm import (
    TWO_LEVEL_BLOCKS, ConvPlan, channel_block, emit_padded_copy, idx_plus, tap_reads,
)
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.parallel_split import split_panels
from graphopt.lowering.register_tile import GemmTile, VectorEpilogue, store_from_tile

#: Output channels per tile (accumulators: one vector of pixels each).
CHANNELS = 16


def fits_pixel_tile(tile: GemmTile) -> bool:
    """Whether the target's registers hold the 16 accumulators, the pixels and
    the broadcast weight, and its panels hold whole tiles of channels."""
    return CHANNELS + 2 <= tile.registers and tile.cols % CHANNELS == 0


def suits_pixel_lanes(plan: ConvPlan) -> bool:
    """Output rows of whole vectors of pixels, whole panels of channels, a
    packed weight, a target whose registers hold the tile."""
    lanes, nr = plan.tile.lanes, plan.tile.cols
    return (
        PIXEL_LANES and fits_pixel_tile(plan.tile) and plan.pack_b and not plan.depthwise
        and plan.ow % lanes == 0 and plan.og % nr == 0
    )  # fmt: skip


#: Off only to measure the channel-lane form on the same convs.
PIXEL_LANES = True


def emit_pixel_lane_conv(em: KernelEmitter, plan: ConvPlan, root: SSAValue, out: SSAValue) -> None:
    conv = plan.anchor
    x = em.sources[plan.a]
    lanes, nr = plan.tile.lanes, plan.tile.cols
    xq = em.local_buffer([plan.c, len(plan.phases), plan.hq, plan.wq], f32)
    tile = em.local_buffer([CHANNELS, lanes], f32)
    ntaps = len(plan.taps)
    cb = channel_block(plan.cg, ntaps, plan.block_products)
    # Many blocks: two-level sums, grouped as in conv_gemm (the same bits).
    nblocks = -(-plan.cg // cb)
    mid = em.local_buffer([CHANNELS, lanes], f32) if nblocks > TWO_LEVEL_BLOCKS else None
    group = max(2, round(nblocks**0.5))
    vector_epilogue = VectorEpilogue.plan(conv, root, em.sources, (3,))

    def micro_kernel(g, jb, col0: int, oy, ox0, width: int) -> None:
        """T[j] = the ``width`` pixels ``ox0..`` of row ``oy``, channel ``col0 + j`` of panel ``jb``."""
        vt = VectorType(f32, [width])
        zero_v = em.splat(em.scalar_constant(0.0, f32), vt)
        c_base = em.idx_mul(g, plan.cg)

        def clear(buf: SSAValue) -> None:
            for j in range(CHANNELS):
                em.vstore(zero_v, buf, [em.index(j), em.index(0)])

        def add_into(dst: SSAValue, parts) -> None:
            for j in range(CHANNELS):
                at = [em.index(j), em.index(0)]
                total = em.vload(dst, at, vt)
                em.vstore(em.addf(total, parts(j, at)), dst, at)

        clear(tile)

        def block(c0: SSAValue, count: int, dst: SSAValue = tile) -> None:
            def taps_at(c: SSAValue, ky: SSAValue | None, accs: list[SSAValue]) -> list[SSAValue]:
                ch = em.idx_add(c_base, c)
                nxt = list(accs)
                for k, i, s_at, qx in tap_reads(em, plan, c, ky, oy):
                    a = em.vload(xq, [ch, s_at, i, idx_plus(em, ox0, qx)], vt)
                    for j in range(CHANNELS):
                        w = em.load_here(plan.packed, [g, jb, k, em.index(col0 + j)])
                        wv = em.splat(w, vt)
                        nxt[j] = em.fma(a, wv, nxt[j])
                return nxt

            def body(ivs, accs):
                return taps_at(em.idx_add(c0, ivs[0]), ivs[1] if plan.loop_ky else None, accs)

            extents = [count, plan.kh] if plan.loop_ky else [count]
            accs = em.reduce(extents, [zero_v] * CHANNELS, body)
            add_into(dst, lambda j, at: accs[j])

        if mid is None:
            em.loop_blocks(plan.cg, cb, block)
            return

        def group_of_blocks(c0: SSAValue, count: int) -> None:
            clear(mid)
            em.loop_blocks(count, cb, lambda c1, n: block(em.idx_add(c0, c1), n, mid))
            add_into(tile, lambda j, at: em.vload(mid, at, vt))

        em.loop_blocks(plan.cg, group * cb, group_of_blocks)

    def epilogue(n, g, o0: SSAValue, oy, ox0, width: int) -> None:
        vt = VectorType(f32, [width])

        def c_body(j):
            o = em.idx_add(em.idx_add(em.idx_mul(g, plan.og), o0), j)
            if vector_epilogue is not None:
                idx = [n, o, oy, ox0]
                t = em.vload(tile, [j, em.index(0)], vt)
                em.vstore(vector_epilogue.emit(em, idx, t, width), out, idx)
                return

            def r_body(r):
                store_from_tile(em, root, out, (conv, (n, o, oy, em.idx_add(ox0, r)), tile, j, r))

            em.loop(width, r_body)

        em.loop(CHANNELS, c_body)

    panels = -(-plan.og // nr)
    by_panels = split_panels(plan.oh, panels, plan.og * plan.k, plan.cg * len(plan.phases) * plan.hq * plan.wq)

    def panel(n, g, jb) -> None:
        o_panel = em.idx_mul(jb, nr)

        def oy_body(oy):
            def tile_body(ox0, width: int = lanes):
                for col0 in range(0, nr, CHANNELS):
                    micro_kernel(g, jb, col0, oy, ox0, width)
                    epilogue(n, g, idx_plus(em, o_panel, col0), oy, ox0, width)

            em.loop(plan.ow // lanes, lambda t: tile_body(em.idx_mul(t, lanes)))

        em.loop(plan.oh, oy_body, parallel=True)

    def image(n):
        emit_padded_copy(em, plan, x, n, xq)
        em.loop(plan.groups, lambda g: em.loop(panels, lambda jb: panel(n, g, jb), parallel=by_panels))

    em.loop(plan.n_img, image)
