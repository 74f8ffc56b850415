"""Conv schedule with the vector lanes over output pixels, for convs whose
output rows are whole 16-pixel vectors (the ResNet-50 stem: 112 pixels).

The implicit GEMM of :mod:`graphopt.lowering.conv_gemm` runs its lanes over
output channels, so its 8-pixel x 32-channel tile reaches the NCHW output
transposed, through a scalar epilogue (a quarter of the stem's time).  Here
the tile is 16 channels x 16 pixels of one output row:

    for oy, ox0 (16 pixels), o0 (16 channels):
      for channel blocks, c in block, taps (ky looped when the conv allows, kx unrolled):
        a = vector.load xq[c, phase, oy + qy, ox0 + qx .. +16]     (contiguous: the padded copy)
        acc[j] = fma(a, bcast(B[k, o0 + j]), acc[j])               (j < 16; B: the packed weight)
      T[j] += acc[j]
    out[n, o0 + j, oy, ox0 .. +16] = epilogue(T[j])                (16 consecutive pixels)

The epilogue runs on vectors (``register_tile.VectorEpilogue``) when its ops
allow, else element by element from the same tile.  Sums run in the same
order over K as in ``conv_gemm`` (blocks of channels, taps in order, two
levels of block sums when there are many), so both forms give the same bits.
Measured, one thread: stem 2.4 -> 1.9 ms, 3x3 64->64 @64 2.9 -> 2.1 ms, @48
and 128->128 @32 equal.  Rows of 56 with a last vector of 8 pixels were
slower (64->64 @56: 2.4 -> 2.9 ms), so such rows keep the channel lanes.
"""

from __future__ import annotations

from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt.lowering.conv_gemm import (
    LANES, NR, TWO_LEVEL_BLOCKS, ConvPlan, channel_block, emit_padded_copy, idx_plus, tap_reads,
)
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.parallel_split import split_panels
from graphopt.lowering.register_tile import VectorEpilogue, store_from_tile

#: Output channels per tile (accumulators: one vector of 16 pixels each).
CHANNELS = 16


def suits_pixel_lanes(plan: ConvPlan) -> bool:
    """Output rows of whole 16-pixel vectors, whole panels of 32 channels, a packed weight."""
    return PIXEL_LANES and plan.pack_b and not plan.depthwise and plan.ow % LANES == 0 and plan.og % NR == 0


#: Off only to measure the channel-lane form on the same convs.
PIXEL_LANES = True


def emit_pixel_lane_conv(em: KernelEmitter, plan: ConvPlan, root: SSAValue, out: SSAValue) -> None:
    conv = plan.anchor
    x = em.sources[plan.a]
    xq = em.local_buffer([plan.c, len(plan.phases), plan.hq, plan.wq], f32)
    tile = em.local_buffer([CHANNELS, LANES], f32)
    ntaps = len(plan.taps)
    cb = channel_block(plan.cg, ntaps, plan.block_products)
    # Many blocks: two-level sums, grouped as in conv_gemm (the same bits).
    nblocks = -(-plan.cg // cb)
    mid = em.local_buffer([CHANNELS, LANES], f32) if nblocks > TWO_LEVEL_BLOCKS else None
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

    panels = -(-plan.og // NR)
    by_panels = split_panels(plan.oh, panels, plan.og * plan.k, plan.cg * len(plan.phases) * plan.hq * plan.wq)

    def panel(n, g, jb) -> None:
        o_panel = em.idx_mul(jb, NR)

        def oy_body(oy):
            def tile_body(ox0, width: int = LANES):
                for col0 in range(0, NR, CHANNELS):
                    micro_kernel(g, jb, col0, oy, ox0, width)
                    epilogue(n, g, idx_plus(em, o_panel, col0), oy, ox0, width)

            em.loop(plan.ow // LANES, lambda t: tile_body(em.idx_mul(t, LANES)))

        em.loop(plan.oh, oy_body, parallel=True)

    def image(n):
        emit_padded_copy(em, plan, x, n, xq)
        em.loop(plan.groups, lambda g: em.loop(panels, lambda jb: panel(n, g, jb), parallel=by_panels))

    em.loop(plan.n_img, image)
