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
order over K as in ``conv_gemm`` (blocks of channels, taps in order).
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt.lowering.conv_gemm import LANES, NR, TWO_LEVEL_BLOCKS, ConvPlan, channel_block, emit_padded_copy
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.parallel_split import split_panels
from graphopt.lowering.register_tile import VectorEpilogue, set_tile

#: Output channels per tile (accumulators: one vector of 16 pixels each).
CHANNELS = 16


def suits_pixel_lanes(plan: ConvPlan) -> bool:
    """Whole 16-pixel vectors per output row, whole panels of 32 channels, a
    packed weight, and few enough channel blocks that ``conv_gemm`` sums
    them in one level too (so both forms give the same bits)."""
    if not (PIXEL_LANES and plan.pack_b and not plan.depthwise and plan.ow % LANES == 0 and plan.og % NR == 0):
        return False
    return -(-plan.cg // channel_block(plan.cg, len(plan.taps))) <= TWO_LEVEL_BLOCKS


#: Off only to measure the channel-lane form on the same convs.
PIXEL_LANES = True


def _add(em: KernelEmitter, a: SSAValue, c: int) -> SSAValue:
    return em.idx_add(a, em.index(c)) if c else a


def emit_pixel_lane_conv(em: KernelEmitter, plan: ConvPlan, root: SSAValue, out: SSAValue) -> None:
    conv = plan.anchor
    x = em.sources[plan.a]
    vt = VectorType(f32, [LANES])
    zero_v = em.emit(vector.BroadcastOp(em.scalar_constant(0.0, f32), vt)).results[0]
    xq = em.local_buffer([plan.c, len(plan.phases), plan.hq, plan.wq], f32)
    tile = em.local_buffer([CHANNELS, LANES], f32)
    ntaps = len(plan.taps)
    cb = channel_block(plan.cg, ntaps)
    vector_epilogue = VectorEpilogue.plan(conv, root, em.sources, (3,))

    def micro_kernel(g, jb, col0: int, oy, ox0) -> None:
        """T[j] = the 16 pixels ``ox0..`` of row ``oy``, channel ``col0 + j`` of panel ``jb``."""
        c_base = em.idx_mul(g, plan.cg)
        for j in range(CHANNELS):
            em.emit_here(vector.StoreOp(zero_v, tile, [em.index(j), em.index(0)]))

        def block(c0: SSAValue, count: int) -> None:
            def taps_at(c: SSAValue, ky: SSAValue | None, accs: list[SSAValue]) -> list[SSAValue]:
                ch = em.idx_add(c_base, c)
                nxt = list(accs)
                for t, (tky, tkx, slot, qy, qx) in enumerate(plan.taps):
                    if ky is None:
                        k = _add(em, em.idx_mul(c, ntaps), t)
                        i, s_at = _add(em, oy, qy), em.index(slot)
                    elif tky == 0:  # one tap per column of row ky
                        k = _add(em, em.idx_add(em.idx_mul(c, ntaps), em.idx_mul(ky, plan.kw)), tkx)
                        sy, dy = plan.stride[0], plan.dilation[0]
                        yoff = em.idx_mul(ky, dy)
                        i = em.idx_add(oy, em.idx_div(yoff, sy))
                        s_at = _add(em, em.idx_mul(em.idx_rem(yoff, sy), plan.nx), slot) if sy > 1 else em.index(slot)
                    else:
                        continue
                    a = em.emit_here(vector.LoadOp(xq, [ch, s_at, i, _add(em, ox0, qx)], vt)).results[0]
                    for j in range(CHANNELS):
                        w = em.emit_here(memref.LoadOp.get(plan.packed, [g, jb, k, em.index(col0 + j)])).results[0]
                        wv = em.emit(vector.BroadcastOp(w, vt)).results[0]
                        nxt[j] = em.emit(vector.FMAOp(a, wv, nxt[j])).results[0]
                return nxt

            def body(ivs, accs):
                return taps_at(em.idx_add(c0, ivs[0]), ivs[1] if plan.loop_ky else None, accs)

            extents = [count, plan.kh] if plan.loop_ky else [count]
            accs = em.reduce(extents, [zero_v] * CHANNELS, body)
            for j in range(CHANNELS):
                at = [em.index(j), em.index(0)]
                total = em.emit_here(vector.LoadOp(tile, at, vt)).results[0]
                em.emit_here(vector.StoreOp(em.emit(arith.AddfOp(total, accs[j])).results[0], tile, at))

        em.loop_blocks(plan.cg, cb, block)

    def epilogue(n, g, o0: SSAValue, oy, ox0) -> None:
        def c_body(j):
            o = em.idx_add(em.idx_add(em.idx_mul(g, plan.og), o0), j)
            if vector_epilogue is not None:
                idx = [n, o, oy, ox0]
                t = em.emit_here(vector.LoadOp(tile, [j, em.index(0)], vt)).results[0]
                em.emit_here(vector.StoreOp(vector_epilogue.emit(em, idx, t, LANES), out, idx))
                return

            def r_body(r):
                idx = (n, o, oy, em.idx_add(ox0, r))
                set_tile(em, (conv, idx, tile, j, r))
                val = em.value_at(root, list(idx))
                set_tile(em, None)
                em.store(val, out, list(idx))

            em.loop(LANES, r_body)

        em.loop(CHANNELS, c_body)

    panels = -(-plan.og // NR)
    by_panels = split_panels(plan.oh, panels, plan.og * plan.k, plan.cg * len(plan.phases) * plan.hq * plan.wq)

    def panel(n, g, jb) -> None:
        o_panel = em.idx_mul(jb, NR)

        def oy_body(oy):
            def tile_body(t):
                ox0 = em.idx_mul(t, LANES)
                for col0 in range(0, NR, CHANNELS):
                    micro_kernel(g, jb, col0, oy, ox0)
                    epilogue(n, g, _add(em, o_panel, col0), oy, ox0)

            em.loop(plan.ow // LANES, tile_body)

        em.loop(plan.oh, oy_body, parallel=True)

    def image(n):
        emit_padded_copy(em, plan, x, n, xq)
        em.loop(plan.groups, lambda g: em.loop(panels, lambda jb: panel(n, g, jb), parallel=by_panels))

    em.loop(plan.n_img, image)
