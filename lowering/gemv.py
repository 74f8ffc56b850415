"""Matrix-vector products: a matmul with at most ``gemm.GEMV_MAX_ROWS`` rows
of A per batch (a fully connected layer at batch 1).

Each element of B is used once or twice, so the kernel is bound by reading
B; the GEMM's row tile would also pack a constant B at compile time (411 MB
for VGG-19's first FC layer).  :func:`emit_gemv` streams B once, in place,
in its own row-major order, several rows at a time with the next rows
prefetched, and sums in the GEMM's blocks of K so the results have the
micro-kernel's bits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt.dialects.loop import PrefetchOp
from graphopt.lowering.conv_gemm import idx_plus
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.register_tile import VectorEpilogue, store_from_tile

if TYPE_CHECKING:
    from graphopt.lowering.gemm import GemmPlan

#: The GEMV's columns per chunk (the unit of the thread split: whole rows
#: of up to 16 KB; halves ran 15% slower on 25088x4096) and rows of B read
#: together (concurrent streams from memory: 8 streamed 25088x4096 at 24.8
#: GB/s, 4 at 22.8, 2 at 19.6, 1 at 15.3).
GEMV_CHUNK_COLS = 4096
GEMV_ROWS_AT_ONCE = 8
#: While it reads a group of rows, the GEMV prefetches the next group's
#: line at the same column into L2 (locality 2): 25088x4096 24 -> 29 GB/s,
#: above OpenBLAS's sgemv (24 GB/s); into L1 the same, a line 4 KB ahead
#: in the same rows 26 GB/s, non-temporal 21 GB/s.
GEMV_PREFETCH_LOCALITY = 2
#: f32 per cache line: the GEMV prefetches once per line.
LINE_F32 = 64 // 4


def emit_gemv(
    em: KernelEmitter, plan: GemmPlan, root: SSAValue, out: SSAValue, k_block: int, vector_epilogue_on: bool,
) -> None:
    """A matrix-vector product ``C[batch, i, :] = A[batch, i, :] . B[batch]``
    for ``i < m <= GEMV_MAX_ROWS``: every element of B is used m times, so
    the kernel is bound by reading B, which it streams once, in place, in its
    own row-major order (no packing: a 411 MB weight costs no compile-time
    copy)::

        for chunk of GEMV_CHUNK_COLS columns (split over threads):
          T[m, chunk] = 0
          for blocks of K_BLOCK rows of B:
            P[m, chunk] = 0
            for groups of GEMV_ROWS_AT_ONCE rows k (that many streams):
              for vectors j of the chunk:
                P[i, j] = fma(bcast(A[i, k]), B[k, j], P[i, j]) for each k of the group
                prefetch B[k + GEMV_ROWS_AT_ONCE, j] for each k        (into L2)
            T += P
          out[i, chunk] = epilogue(T[i, chunk])

    Each element is the same blocked sum as in the register tile (products
    in order of k from zero per block, the blocks added to the total), so a
    column of C has the bits it would have from the packed micro-kernel
    (``k_block``: the GEMM's block of K; ``vector_epilogue_on``: the fused
    epilogue on vectors where it can, as the tile's)."""
    mm = plan.anchor
    a_buf, b_buf = em.sources[plan.a], em.sources[plan.b]
    m, n, k = plan.m, plan.n, plan.k
    lanes = plan.tile.lanes
    vt = VectorType(f32, [lanes])
    chunk_cols = min(n, GEMV_CHUNK_COLS)
    total = em.local_buffer([m, chunk_cols], f32)
    part = em.local_buffer([m, chunk_cols], f32)
    zero = em.scalar_constant(0.0, f32)
    vector_epilogue = VectorEpilogue.plan(mm, root, em.sources, plan.lane_axes) if vector_epilogue_on else None

    def over_chunk(
        cols: int, body: Callable[[SSAValue, VectorType], None], group: int = 1,
        once: Callable[[SSAValue], None] | None = None,
    ) -> None:  # fmt: skip
        """``body(column, vector type)`` over the vectors of a chunk of
        ``cols`` columns, ``group`` vectors an iteration, then ``once(its
        first column)``; the vectors left over one by one, the last one
        shorter when ``cols`` is no multiple of the lanes."""
        full, rest = divmod(cols, lanes)
        groups, singles = divmod(full, group)

        def iteration(g: SSAValue) -> None:
            j = em.idx_mul(g, group * lanes)
            for v in range(group):
                body(idx_plus(em, j, v * lanes), vt)
            if once is not None:
                once(j)

        if groups:
            em.loop(groups, iteration)
        for j, t in [*(((groups * group + v) * lanes, vt) for v in range(singles)),
                     *([(full * lanes, VectorType(f32, [rest]))] if rest else [])]:  # fmt: skip
            body(em.index(j), t)
            if once is not None:
                once(em.index(j))

    def clear(buf: SSAValue, cols: int) -> None:
        for i in range(m):
            over_chunk(cols, lambda j, t, i=i: em.vstore(em.splat(zero, t), buf, [em.index(i), j]))

    def chunk(batch: list[SSAValue], j0: SSAValue, cols: int) -> None:
        clear(total, cols)

        def rows(k0: SSAValue, count: int) -> None:
            """``P[i, :] += A[i, k] * B[k, j0 + :]`` for the ``count`` rows ``k0 ..``."""
            def a_at(i: int, u: int) -> SSAValue:
                at = plan.a_index(em, batch, em.index(i), idx_plus(em, k0, u))
                return em.load_here(a_buf, at) if isinstance(a_buf, SSAValue) else em.value_at(plan.a, at)

            a = [[a_at(i, u) for u in range(count)] for i in range(m)]

            def vec(j: SSAValue, t: VectorType) -> None:
                col = em.idx_add(j0, j)
                bs = [em.vload(b_buf, plan.b_index(em, batch, idx_plus(em, k0, u), col), t) for u in range(count)]
                for i in range(m):
                    p = em.vload(part, [em.index(i), j], t)
                    for u in range(count):
                        p = em.fma(em.splat(a[i][u], t), bs[u], p)
                    em.vstore(p, part, [em.index(i), j])

            def prefetch(j: SSAValue) -> None:
                """The line at column ``j`` of the next group's rows (the last row past the end)."""
                col = em.idx_add(j0, j)
                for u in range(count):
                    row = em.pure(arith.MinSIOp, (idx_plus(em, k0, u + count), em.index(k - 1)), col.type)
                    em.emit_here(PrefetchOp(b_buf, plan.b_index(em, batch, row, col), GEMV_PREFETCH_LOCALITY))

            over_chunk(cols, vec, max(1, LINE_F32 // lanes), prefetch)

        def block(k0: SSAValue, count: int) -> None:
            clear(part, cols)
            em.loop_blocks(count, GEMV_ROWS_AT_ONCE, lambda k1, c: rows(em.idx_add(k0, k1), c))
            for i in range(m):
                over_chunk(cols, lambda j, t, i=i: em.vstore(
                    em.addf(em.vload(total, [em.index(i), j], t), em.vload(part, [em.index(i), j], t)), total, [em.index(i), j]))

        em.loop_blocks(k, k_block, block)

        def store_row(i: int) -> None:
            row = em.index(i)

            def vec(j: SSAValue, t: VectorType) -> None:
                idx = plan.out_index(em, batch, row, em.idx_add(j0, j))
                em.vstore(vector_epilogue.emit(em, idx, em.vload(total, [row, j], t), t.get_shape()[0]), out, idx)

            if vector_epilogue is not None:
                over_chunk(cols, vec)
                return
            em.loop(cols, lambda c: store_from_tile(
                em, root, out, (mm, tuple(plan.out_index(em, batch, row, em.idx_add(j0, c))), total, row, c)))

        for i in range(m):
            store_row(i)

    full_chunks, last = divmod(n, chunk_cols)

    def batch_level(d: int, batch: list[SSAValue]) -> None:
        if d < len(plan.batch_shape):
            em.loop(plan.batch_shape[d], lambda b: batch_level(d + 1, [*batch, b]))
            return
        em.loop(full_chunks, lambda c: chunk(batch, em.idx_mul(c, chunk_cols), chunk_cols), parallel=True)
        if last:
            chunk(batch, em.index(full_chunks * chunk_cols), last)

    batch_level(0, [])
