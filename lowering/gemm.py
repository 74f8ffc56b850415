"""GEMM schedule: register-tiled FMA micro-kernels for f32 matmul kernels.

The schedule decision (:func:`plan_gemm`) picks this path for a kernel whose
single output is a large enough f32 anchor with a GEMM schedule rule
(:data:`graphopt.rules.GEMM_PLAN`: ``graph.matmul``, a 1x1 ``graph.conv2d``), possibly under a fused
elementwise epilogue (bias add, relu, ...), when both matmul operands are
kernel buffers.  The kernel is then emitted as

    for batch...:                     (batched matmul)
      for mb in M blocks:             (cache block: MB rows of A, about twice the L2)
        for jb in N panels (NR columns = 2 vectors of L lanes):
          for ib in row tiles of MR rows:
            acc[MR][2] = 0                           (vector registers)
            for k: b = vector.load B-panel[k]; acc[r] = vector.fma(bcast(a[r,k]), b, acc[r])
            vector.store acc -> tile T[MR][NR]       (a stack buffer, in L1)
            for r, c: out[i, j] = epilogue(T[r, c])  (fused epilogue, then the store)

The tile comes from the target (``register_tile.GemmTile``): L = its f32
lanes, NR = 2L, MR the rows whose 2 MR accumulators leave room for the two B
vectors and a broadcast -- 8 x 32 (16 zmm accumulators) with AVX-512, 6 x 16
(12 ymm) with AVX2, 8 x 8 with NEON.  The cache blocks derive from its L2.

Remainders: a last row tile of ``M % MR`` rows uses the same micro-kernel with
fewer accumulators.  A constant B is packed at compile time into panels
``[ceil(N/NR), K, NR]``, zero-padded, so every panel is full and the last
one's epilogue stores only its valid columns.  A B that is not constant is
read in place (rows of B are contiguous): NR- and L-column panels, and the
last ``N % L`` columns take the scalar dot-product form.

A matmul with at most ``GEMV_MAX_ROWS`` rows of A per batch (a fully
connected layer at batch 1) reads each element of B once or twice: it is
bound by memory, and the row tile would also pack a constant B at compile
time (411 MB for VGG-19's first FC layer).  It runs as a matrix-vector
product instead (``gemv.emit_gemv``): B streamed in place, row-major, 8 rows
at a time, with the next rows prefetched.

The epilogue is the ordinary compute-inline codegen: the matmul's compute rule
returns ``T[r, c]`` when asked for the element at exactly the tile nest's
``(i, j)`` (see :func:`graphopt.lowering.register_tile.tile_value`); any other read falls back to the dot
product, so a result is never wrong, only slower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp, tensor_of
from graphopt.lowering.conv_gemm import (
    ConvPlan, add_to_tile, emit_conv_gemm, idx_plus, plan_conv, plan_depthwise, readonly_global, store_tile,
)
from graphopt.lowering.compute_rules import anchor_under, shape_broadcast_indices
from graphopt.lowering.conv_grad import EMITS_ITSELF
from graphopt.lowering.conv_nchwc import NchwcPlan
from graphopt.lowering.depthwise_nchwc import DepthwiseNchwcPlan
from graphopt.lowering import parallel_split
from graphopt.lowering.conv_pixels import emit_pixel_lane_conv, suits_pixel_lanes
from graphopt.lowering.gemv import emit_gemv
from graphopt.lowering.register_tile import GemmTile, VectorEpilogue, store_from_tile
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.target import Target

#: Bytes of A (MB rows x K) per cache block while the N panels sweep over
#: it, in L2 sizes of the target.  Each block re-copies every B panel, so
#: blocks are large: measured on the conv-as-GEMM shapes with a 1 MiB L2
#: (196x2304x256: 72 GF/s at 512 KiB, 105 at 2 MiB; 1024^3 unchanged).
L2_BLOCKS_PER_L2 = 2
#: Smallest M*N*K for which the micro-kernel is used (and N of a vector).
MIN_FLOP_VOLUME = 32 * 32 * 32
#: Products summed from zero in registers before they are added to the tile
#: (blocked accumulation over K: the rounding error grows with the block
#: length plus the number of blocks, not with K).
K_BLOCK = 128
#: Largest K x NR panel of a non-constant B copied to the stack per panel
#: (a panel read in place, rows of B a power of two apart, runs at half speed).
PANEL_COPY_BYTES = 1024 * 1024
#: K chunking (see ``emit_gemm``): rows of K per chunk and the largest C
#: scratch buffer (a stack buffer); K is chunked when a panel of B plus a
#: block of A do not fit the target's L2.
K_CHUNK = 512
C_SCRATCH_BYTES = 512 * 1024
#: Pointwise convs whose B (the image) copied whole into panels fits the
#: target's L2 run their row tiles outermost (see ``emit_gemm``);
#: ROWS_OUTER off only to measure the other order.
ROWS_OUTER = True
#: Run the fused epilogue on vectors of the tile where it can (see
#: ``register_tile.VectorEpilogue``); off only to measure the scalar one.
VECTOR_EPILOGUE = True
#: Matmuls with at most this many rows of A per batch are matrix-vector
#: products (``emit_gemv``): B is streamed once, row by row, in place.
#: Measured at 4096x4096, one thread, B a constant: 2 rows 2.7 ms against
#: 5.2 for the packed row tile, 3 and 4 rows equal, 3 rows of an
#: L2-resident 1024x1024 B 0.10 against 0.07.
GEMV_MAX_ROWS = 2
@dataclass
class GemmPlan:
    """The schedule of one GEMM kernel: ``C[batch, i, j] = sum_k A[batch, i, k]
    * B[batch, k, j]``, and where A, B and C elements live in the op's own
    buffers (``*_index(em, batch, x, y)`` give the memref indices)."""

    anchor: GraphOp  # the matmul or the 1x1 conv
    a: SSAValue
    b: SSAValue
    batch_shape: tuple[int, ...]
    m: int
    n: int
    k: int
    pack_b: bool  # B is a dense 2-D constant, packed at compile time
    tile: GemmTile  # the register tile of the target (NR: the packed panels' width)
    a_index: Callable = None  # type: ignore[assignment]
    b_index: Callable = None  # type: ignore[assignment]
    out_index: Callable = None  # type: ignore[assignment]
    packed: SSAValue | None = None  # the kernel argument holding packed B
    #: The output axes a row of the tile runs along contiguously (a vector
    #: of the tile row is a vector of consecutive output elements).
    lane_axes: tuple[int, ...] = ()
    #: A matrix-vector product (a few rows of A): B streamed row by row in
    #: place (``emit_gemv``), never packed.
    gemv: bool = False

    def packed_global(self, const: graph.ConstantOp, name: str) -> memref.GlobalOp:
        """The compile-time packed copy of constant B, as a read-only global."""
        return readonly_global(name, pack_b_panels(np.asarray(const.reference()[0], dtype=np.float32), self.tile.cols))


def find_matmul(root: SSAValue) -> GraphOp | None:
    """The matmul under ``root``, looking through an elementwise epilogue of
    the same shape (the way the epilogue reads the anchor)."""
    value = anchor_under(root, lambda op: rules.GEMM_PLAN.lookup(op) is not None, unique=True)
    return None if value is None else value.owner  # type: ignore[return-value]


def plan_gemm(roots: list[SSAValue], sources: dict, constants: dict, target: Target) -> GemmPlan | ConvPlan | None:
    """The schedule decision: a :class:`GemmPlan` or ``None`` (today's path).

    ``sources`` maps kernel-level values to their buffers; ``constants`` maps a
    kernel-level value to the :class:`graph.ConstantOp` it comes from;
    ``target`` is what the micro-kernels are shaped for (none where it has no
    vector FMA: the compute rules' loops, the scalar-safe path)."""
    if len(roots) != 1 or not target.has_micro_kernels:
        return None
    mm = find_matmul(roots[0])
    if mm is None:
        return None
    if any(tensor_of(v).element_type != f32 for v in (*mm.operands, mm.results[0])):
        return None
    plan: GemmPlan | ConvPlan | None = rules.GEMM_PLAN.lookup(mm)(mm, constants, target)  # type: ignore[misc]
    if plan is None or not (isinstance(sources.get(plan.a), SSAValue) or plan.a in constants):
        return None
    # B is read from its buffer unless it is packed at compile time (a dense
    # or splat constant); a depthwise weight may be a splat (a scalar).
    if not plan.pack_b and not isinstance(sources.get(plan.b), SSAValue):
        if not (isinstance(plan, ConvPlan) and plan.depthwise and plan.b in constants):
            return None
    if isinstance(plan, GemmPlan) and (plan.n < plan.tile.lanes or plan.m * plan.n * plan.k < MIN_FLOP_VOLUME):
        return None
    return plan


#: ``@register_gemm_plan(OpClass)``: ``rule(op, constants, target) -> GemmPlan | None``,
#: how an anchor of that class maps onto the micro-kernel's ``C = A . B``.
register_gemm_plan = rules.GEMM_PLAN.register


@register_gemm_plan(graph.MatmulOp)
def _matmul_plan(mm: graph.MatmulOp, constants: dict, target: Target) -> GemmPlan:
    a_shape, b_shape = tensor_of(mm.lhs).get_shape(), tensor_of(mm.rhs).get_shape()
    out_shape = tensor_of(mm.result).get_shape()
    m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
    const = constants.get(mm.rhs)
    gemv = m <= GEMV_MAX_ROWS and (const is None or const.splat is None)
    pack = const is not None and len(b_shape) == 2 and not gemv
    return GemmPlan(
        mm, mm.lhs, mm.rhs, tuple(out_shape[:-2]), m, n, k, pack, GemmTile.for_target(target),
        a_index=lambda em, batch, i, kk: [*shape_broadcast_indices(em, a_shape[:-2], batch), i, kk],
        b_index=lambda em, batch, kk, j: [*shape_broadcast_indices(em, b_shape[:-2], batch), kk, j],
        out_index=lambda em, batch, i, j: [*batch, i, j],
        lane_axes=(len(out_shape) - 1,), gemv=gemv,
    )  # fmt: skip


@register_gemm_plan(graph.Conv2dOp)
def _conv_plan(conv: graph.Conv2dOp, constants: dict, target: Target) -> GemmPlan | ConvPlan | None:
    """A 1x1 stride-1 conv is a plain GEMM over the image; other convs are an
    implicit GEMM (``conv_gemm``), depthwise ones a register-accumulated loop."""
    return _pointwise_conv_plan(conv, target) or plan_conv(conv, constants, target) or plan_depthwise(conv, target)


def _pointwise_conv_plan(conv: graph.Conv2dOp, target: Target) -> GemmPlan | None:
    """A 1x1 conv, stride 1, no padding, one group, is per image the GEMM
    ``out[n][O, H*W] = w[O, C] @ x[n][C, H*W]``: B is the image itself, whose
    ``H*W`` pixels of one channel are contiguous (a vector may run from one
    row of pixels into the next)."""
    out_ch, cg, kh, kw = tensor_of(conv.weight).get_shape()
    n_img, c, h, w = tensor_of(conv.input).get_shape()
    if (kh, kw) != (1, 1) or conv.group_count != 1 or any(conv.pad_values) or any(s != 1 for s in conv.stride_values):
        return None

    def pixel(em: KernelEmitter, p: SSAValue) -> list[SSAValue]:
        return [em.idx_div(p, w), em.idx_rem(p, w)] if h > 1 else [em.index(0), p]

    zero = lambda em: em.index(0)  # noqa: E731
    return GemmPlan(
        conv, conv.weight, conv.input, (n_img,), out_ch, h * w, c, False, GemmTile.for_target(target),
        a_index=lambda em, batch, i, kk: [i, kk, zero(em), zero(em)],
        b_index=lambda em, batch, kk, p: [batch[0], kk, *pixel(em, p)],
        out_index=lambda em, batch, i, p: [batch[0], i, *pixel(em, p)],
        lane_axes=(2, 3),
    )  # fmt: skip


def pack_b_panels(b: np.ndarray, nr: int) -> np.ndarray:
    """``B[K, N]`` as panels ``[ceil(N/nr), K, nr]``, zero-padded (``nr``:
    the tile's NR columns)."""
    k, n = b.shape
    panels = -(-n // nr)
    packed = np.zeros((panels, k, nr), dtype=np.float32)
    full = n // nr
    packed[:full] = b[:, : full * nr].reshape(k, full, nr).transpose(1, 0, 2)
    if full < panels:
        packed[full, :, : n - full * nr] = b[:, full * nr :]
    return packed


# --------------------------------------------------------------------------
# emission
# --------------------------------------------------------------------------


def emit_gemm(em: KernelEmitter, plan: GemmPlan | ConvPlan, root: SSAValue, out: SSAValue) -> None:
    """The whole output nest of a GEMM kernel (see the module docstring)."""
    if isinstance(plan, (*EMITS_ITSELF, NchwcPlan, DepthwiseNchwcPlan)):  # conv backward (conv_grad.py), NCHWc convs
        plan.emit(em, root, out)
        return
    if isinstance(plan, ConvPlan):
        if suits_pixel_lanes(plan):
            emit_pixel_lane_conv(em, plan, root, out)
        else:
            emit_conv_gemm(em, plan, root, out)
        return
    if plan.gemv:
        emit_gemv(em, plan, root, out, K_BLOCK, VECTOR_EPILOGUE)
        return
    mm = plan.anchor
    batch_shape = plan.batch_shape
    a_buf = em.sources[plan.a]
    b_buf = plan.packed if plan.pack_b else em.sources[plan.b]
    m, n, k = plan.m, plan.n, plan.k
    lanes, mr, nr = plan.tile.lanes, plan.tile.rows, plan.tile.cols
    l2_bytes = em.target.l2_bytes
    vt = VectorType(f32, [lanes])
    tile_buf = em.local_buffer([mr, nr], f32)
    zero_v = em.cached(("gemm.zero",), (), lambda: em.splat(em.scalar_constant(0.0, f32), vt))

    # A B read in place is copied one panel at a time into a contiguous stack
    # buffer: rows of B a power of two apart alias in L1 and the TLB.
    copy_panels = not plan.pack_b and k * nr * 4 <= PANEL_COPY_BYTES
    n_panels = -(-n // nr)
    # A pointwise conv whose whole B fits in L2 runs its row tiles (output
    # channels) outermost over all of B copied once into panels: each tile
    # then writes its output channels' rows (and reads the residual's) in
    # sequence, not 128 bytes of every channel row per panel -- hundreds of
    # interleaved streams the prefetchers do not follow.  Measured cold, one
    # thread: 64->256 @56 +res 2.4 -> 1.3 ms, 128->512 @28 +res 1.7 -> 1.25,
    # 512->2048 @7 +res 1.6 -> 1.4; the others within noise.
    rows_outer = (
        ROWS_OUTER and isinstance(mm, graph.Conv2dOp) and copy_panels
        and 4 * k * n_panels * nr <= l2_bytes
    )  # fmt: skip
    b_panels = em.local_buffer([n_panels, k, nr], f32) if rows_outer else None
    panel_buf = em.local_buffer([k, nr], f32) if copy_panels and not rows_outer else None

    def copy_panel(
        b_b, j0: SSAValue, cols: int = nr, dst: SSAValue | None = None, at: tuple = (),
        k0: SSAValue | None = None, rows: int = k,
    ) -> None:  # fmt: skip
        """Columns ``j0 .. j0 + cols`` of B (``rows`` rows from ``k0``) into
        the panel buffer (or ``dst[*at]``), zero past ``cols``."""
        dst = panel_buf if dst is None else dst

        def body(kk):
            k_b = lambda: kk if k0 is None else em.idx_add(k0, kk)  # noqa: E731
            for v in range(nr // lanes):
                to = [*at, kk, em.index(v * lanes)]
                if cols == nr:
                    row = em.vload(b_buf, plan.b_index(em, b_b, k_b(), idx_plus(em, j0, v * lanes)), vt)
                    em.vstore(row, dst, to)
                else:
                    em.vstore(zero_v, dst, to)
            if cols < nr:
                em.loop(cols, lambda c: em.store(em.load(b_buf, plan.b_index(em, b_b, k_b(), em.idx_add(j0, c))), dst, [*at, kk, c]))

        em.loop(rows, body)

    def micro_kernel(
        a_b, b_b, i0: SSAValue, j0: SSAValue, jb: SSAValue, rows: int, nvec: int,
        chunk: tuple[SSAValue, int, SSAValue, SSAValue, SSAValue] | None = None,
    ) -> None:
        """acc[rows][nvec] over all of K, stored into the tile buffer; or, for
        ``chunk = (k0, length, C, row0, col0)``, over rows ``k0 ..`` of K (B's
        in the panel buffer) and added to ``C[row0 + r, col0 + c]``."""
        a_rows = [em.idx_add(i0, em.index(r)) if r else i0 for r in range(rows)]
        k_len = k if chunk is None else chunk[1]
        dst = tile_buf if chunk is None else chunk[2]

        def t_at(r: int, v: int) -> list[SSAValue]:
            if chunk is None:
                return [em.index(r), em.index(v * lanes)]
            return [em.idx_add(chunk[3], em.index(r)), em.idx_add(chunk[4], em.index(v * lanes))]

        def body(ivs, accs):
            (kk,) = ivs
            ka = kk if chunk is None else em.idx_add(chunk[0], kk)
            bs = []
            for v in range(nvec):
                if plan.pack_b or b_panels is not None:
                    at = [jb, kk, em.index(v * lanes)]
                elif copy_panels and nvec == nr // lanes:
                    at = [kk, em.index(v * lanes)]
                else:
                    at = plan.b_index(em, b_b, kk, em.idx_add(j0, em.index(v * lanes)) if v else j0)
                src = b_panels if b_panels is not None else panel_buf if (copy_panels and nvec == nr // lanes) else b_buf
                bs.append(em.vload(src, at, vt))
            nxt = []
            for r in range(rows):
                if isinstance(a_buf, SSAValue):
                    a = em.load_here(a_buf, plan.a_index(em, a_b, a_rows[r], ka))
                else:  # a splat constant A (a pointwise conv's uniform weight)
                    a = em.value_at(plan.a, plan.a_index(em, a_b, a_rows[r], ka))
                av = em.splat(a, vt)
                for v in range(nvec):
                    nxt.append(em.fma(av, bs[v], accs[r * nvec + v]))
            return nxt

        zeros = [zero_v] * (rows * nvec)
        nkb = k_len // K_BLOCK
        if nkb <= 1 and chunk is None:  # one sequential sum over K
            store_tile(em, tile_buf, rows, nvec, lanes, em.reduce([k], zeros, body).__getitem__)
            return
        # Blocked accumulation: each block of K_BLOCK products is summed from
        # zero in registers, then added to the tile (a chunk adds to C).
        if chunk is None:
            store_tile(em, tile_buf, rows, nvec, lanes, lambda _: zero_v)

        def block(k0: SSAValue, count: int) -> None:
            accs = em.reduce([count], zeros, lambda ivs, a: body([em.idx_add(k0, ivs[0])], a))
            add_to_tile(em, dst, rows, nvec, lanes, lambda i, _: accs[i], t_at)

        em.loop_blocks(k_len, K_BLOCK, block)

    vector_epilogue = VectorEpilogue.plan(mm, root, em.sources, plan.lane_axes) if VECTOR_EPILOGUE else None

    def epilogue(batch, i0: SSAValue, j0: SSAValue, rows: int, cols: int, c_buf: SSAValue | None = None) -> None:
        """out[batch, i0 + r, j0 + c] = root at those indices, T (or the C
        scratch ``c_buf`` at ``[i0 + r, j0 + c]``) feeding the matmul: on
        vectors of a tile row when the panel is full and every epilogue op
        runs on vectors, else element by element."""
        if vector_epilogue is not None and cols == nr:

            def vr_body(r):
                i = em.idx_add(i0, r)
                for v in range(nr // lanes):
                    j = idx_plus(em, j0, v * lanes)
                    idx = plan.out_index(em, batch, i, j)
                    at = [r, em.index(v * lanes)] if c_buf is None else [i, j]
                    t = em.vload(tile_buf if c_buf is None else c_buf, at, vt)
                    em.vstore(vector_epilogue.emit(em, idx, t, lanes), out, idx)

            em.loop(rows, vr_body)
            return

        def r_body(r):
            i = em.idx_add(i0, r)

            def c_body(c):
                j = em.idx_add(j0, c)
                idx = tuple(plan.out_index(em, batch, i, j))
                store_from_tile(em, root, out, (mm, idx, tile_buf, r, c) if c_buf is None else (mm, idx, c_buf, i, j))

            em.loop(cols, c_body)

        em.loop(rows, r_body)

    def scalar_block(batch, j_start: int) -> None:
        """Columns ``j_start..n`` of every row, by the ordinary compute rules."""

        def r_body(i):
            def c_body(j):
                idx = plan.out_index(em, batch, i, j)
                em.store(em.value_at(root, idx), out, idx)

            em.loop(n, c_body, start=j_start)

        em.loop(m, r_body)

    full_tiles, rem_rows = divmod(m, mr)

    def row_tiles(body: Callable[[SSAValue, int], None], parallel: bool = False) -> None:
        """``body(i0, rows)`` for the full row tiles (one loop), then the last, shorter one."""
        if full_tiles:
            em.loop(full_tiles, lambda ib: body(em.idx_mul(ib, mr), mr), parallel=parallel)
        if rem_rows:
            body(em.index(full_tiles * mr), rem_rows)

    # Row tiles per cache block (MB = per_block * MR rows of A near the L2
    # budget); a last, shorter block takes the tiles left over.
    per_block = max(1, min(full_tiles, L2_BLOCKS_PER_L2 * l2_bytes // (mr * k * 4)))
    blocks, tail_tiles = divmod(full_tiles, per_block)

    # Panels: (first column, vectors, epilogue columns).
    panels: list[tuple[int, int, int]] = []
    if plan.pack_b:
        panels = [(p * nr, nr // lanes, min(nr, n - p * nr)) for p in range(-(-n // nr))]
        scalar_from = n
    else:
        j = 0
        while j + nr <= n:
            panels.append((j, nr // lanes, nr))
            j += nr
        if copy_panels and j < n:
            # The last, partial panel is copied zero-padded and runs the same
            # micro-kernel: every column is summed in the same order, so
            # equal columns of B give bitwise-equal columns of C.
            panels.append((j, nr // lanes, n - j))
            j = n
        if j + lanes <= n:
            panels.append((j, 1, lanes))
            j += lanes
        scalar_from = j

    def run_panels(batch, row_loop) -> None:
        a_b = b_b = batch
        # Full-width panels run as one loop over jb; the others one by one.
        groups: list[tuple[int, int, int, int]] = []  # (first column, count, nvec, cols)
        for j_first, nvec, cols in panels:
            if groups and groups[-1][2] == nvec and groups[-1][3] == cols == nr and nvec == nr // lanes:
                g = groups[-1]
                groups[-1] = (g[0], g[1] + 1, g[2], g[3])
            else:
                groups.append((j_first, 1, nvec, cols))
        for j_first, count, nvec, cols in groups:

            def jb_body(jb_local, j_first=j_first, nvec=nvec, cols=cols):
                jb = em.idx_add(jb_local, em.index(j_first // nr)) if j_first else jb_local
                j0 = em.idx_mul(jb, nr) if nvec == nr // lanes or plan.pack_b else em.index(j_first)
                if not plan.pack_b and nvec != nr // lanes:
                    jb = em.index(0)
                if copy_panels and nvec == nr // lanes:
                    copy_panel(batch, j0, cols)
                row_loop(batch, a_b, b_b, j0, jb, nvec, cols)

            em.loop(count, jb_body, parallel=True)

    def rows_of_block(mb: SSAValue | None, count: int, first_tile: int):
        def row_loop(batch, a_b, b_b, j0, jb, nvec, cols):
            def ib_body(ib):
                t = em.idx_add(em.idx_mul(mb, per_block), ib) if mb is not None else ib
                i0 = em.idx_mul(t, mr)
                micro_kernel(a_b, b_b, i0, j0, jb, mr, nvec)
                epilogue(batch, i0, j0, mr, cols)

            # Split when the panel loop around it is not (one full-width panel:
            # a narrow GEMM, or the tail panel of a pointwise conv at 14x14).
            em.loop(first_tile + count, ib_body, start=first_tile,
                    parallel=nvec == nr // lanes and parallel_split.split_panel_rows(m, k))  # fmt: skip

        return row_loop

    def rem_row_loop(batch, a_b, b_b, j0, jb, nvec, cols):
        i0 = em.index(full_tiles * mr)
        micro_kernel(a_b, b_b, i0, j0, jb, rem_rows, nvec)
        epilogue(batch, i0, j0, rem_rows, cols)

    def rows_outer_batch(batch) -> None:
        """All panels of B copied once (the last one zero-padded), then the
        row tiles outermost, each over every panel."""
        full, last = divmod(n, nr)

        def copy(jb, cols: int = nr) -> None:
            copy_panel(batch, em.idx_mul(jb, nr), cols, b_panels, (jb,))

        def panel_at(i0: SSAValue, rows: int, jb: SSAValue, cols: int = nr) -> None:
            j0 = em.idx_mul(jb, nr)
            micro_kernel(batch, batch, i0, j0, jb, rows, nr // lanes)
            epilogue(batch, i0, j0, rows, cols)

        def tiles(i0: SSAValue, rows: int, first: int | SSAValue, count: int, partial: bool) -> None:
            """Row tile ``i0`` over ``count`` full panels from ``first``, then the partial one."""
            at = (lambda p: em.idx_add(first, p)) if isinstance(first, SSAValue) else (lambda p: idx_plus(em, p, first))  # noqa: E731
            if count:
                em.loop(count, lambda p: panel_at(i0, rows, at(p)))
            if partial and last:
                panel_at(i0, rows, em.index(full), last)

        # Pixel blocks: each block of panels is copied and run by one thread,
        # row tiles outermost within it; the panels left over, after, on the
        # caller.  Else the copy, then the row tiles, split.
        blocks = parallel_split.pixel_blocks(full, m, n)
        size = full // blocks if blocks else 0
        done = size * blocks
        # Serial copies first: parallel.py takes a buffer whose next use
        # after a parallel loop is a store for per-thread scratch.
        if last:
            copy(em.index(full), last)
        if blocks:
            if full > done:
                em.loop(full, copy, start=done)

            def block(b) -> None:
                first = em.idx_mul(b, size)
                em.loop(size, lambda p: copy(em.idx_add(first, p)))
                row_tiles(lambda i0, rows: tiles(i0, rows, first, size, False))

            em.loop(blocks, block, parallel=True)
        elif full:
            em.loop(full, copy, parallel=True)
        if full > done or last:
            row_tiles(lambda i0, rows: tiles(i0, rows, done, full - done, True), parallel=not blocks)

    def blocked_batch(batch) -> None:
        """One batch in M blocks (or row tiles outermost), each over the panels."""
        if rows_outer:
            rows_outer_batch(batch)
            return
        if blocks > 1:
            em.loop(blocks, lambda mb: run_panels(batch, rows_of_block(mb, per_block, 0)), parallel=True)
        elif blocks == 1:
            run_panels(batch, rows_of_block(None, per_block, 0))
        if tail_tiles:
            run_panels(batch, rows_of_block(None, tail_tiles, blocks * per_block))
        if rem_rows:
            run_panels(batch, rem_row_loop)
        if scalar_from < n:
            scalar_block(batch, scalar_from)

    # K chunks at the cache level: when a panel of B and the block of A do not
    # stay in L2 together (49x4608x512: 590 KB + 900 KB), K is cut into
    # chunks of K_CHUNK rows; every tile adds a chunk's sum into a C scratch
    # buffer and the epilogue runs after the last chunk.
    full_panels, last_cols = divmod(n, nr)
    n_pad = -(-n // nr) * nr
    # The chunk: about K_CHUNK rows, fewer when the chunk of A would not
    # stay in L2 with a chunk of a panel; it replaces the M blocks.
    chunk_rows = min(K_CHUNK, l2_bytes // (4 * (m + nr)) // K_BLOCK * K_BLOCK)
    # Pointwise convs keep the M blocks: chunked, 1024->256 @14, 1024->512
    # @14 and 2048->512 @7 ran 5-20% slower (interleaved A/B, cold caches).
    k_chunked = (
        isinstance(mm, graph.MatmulOp) and copy_panels and not plan.pack_b and chunk_rows >= K_BLOCK and k >= 2 * chunk_rows
        and 4 * k * (nr + m) > l2_bytes and 4 * (full_tiles + 1) * mr * n_pad <= C_SCRATCH_BYTES
    )  # fmt: skip
    if k_chunked:
        m_pad = full_tiles * mr + (mr if rem_rows else 0)
        c_buf = em.local_buffer([m_pad, n_pad], f32)

        def chunk_of(batch, k0: SSAValue, length: int) -> None:
            def panel(j0: SSAValue, jb: SSAValue | None, cols: int = nr) -> None:
                """Panel ``jb`` (None: the last, partial one, copied zero-padded)."""
                copy_panel(batch, j0, cols, k0=k0, rows=length)
                jb = em.index(full_panels) if jb is None else jb
                row_tiles(lambda i0, rows: micro_kernel(
                    batch, batch, i0, j0, jb, rows, nr // lanes, chunk=(k0, length, c_buf, i0, j0)))

            if full_panels:
                em.loop(full_panels, lambda jb: panel(em.idx_mul(jb, nr), jb), parallel=True)
            if last_cols:
                panel(em.index(full_panels * nr), None, last_cols)

        def chunked_batch(batch) -> None:
            em.loop(m_pad, lambda i: [em.vstore(zero_v, c_buf, [i, em.index(v * lanes)]) for v in range(n_pad // lanes)])
            full_chunks, k_rest = divmod(k, chunk_rows)
            em.loop(full_chunks, lambda c: chunk_of(batch, em.idx_mul(c, chunk_rows), chunk_rows))
            if k_rest:
                chunk_of(batch, em.index(full_chunks * chunk_rows), k_rest)

            def epi(j0: SSAValue, cols: int) -> None:
                row_tiles(lambda i0, rows: epilogue(batch, i0, j0, rows, cols, c_buf))

            if full_panels:
                em.loop(full_panels, lambda jb: epi(em.idx_mul(jb, nr), nr), parallel=True)
            if last_cols:
                epi(em.index(full_panels * nr), last_cols)

    def batch_level(d: int, batch: list[SSAValue]) -> None:
        if d == len(batch_shape):
            (chunked_batch if k_chunked else blocked_batch)(batch)
            return
        em.loop(batch_shape[d], lambda b: batch_level(d + 1, [*batch, b]))

    batch_level(0, [])
