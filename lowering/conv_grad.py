"""Schedules of the conv backward ops on the register-tiled FMA micro-kernels.

``conv2d_grad_input`` is the transposed conv: ``dx`` is the conv, stride 1,
of the gradient with the weight transposed per group and flipped, padded by
``(K-1)*d - p``.  At stride ``s`` the output rows ``s*i + r`` of one phase
``r`` read only the taps with ``(r + p - ky*d) % s == 0``: each phase is such a
conv over those taps (no multiply by the zeros a dilated gradient would
hold), stored at every s-th pixel.  Each runs on :mod:`conv_gemm` through a
:class:`ConvPlan` whose hooks read the flipped weight (packed at compile
time when it is a constant, at stride 1) and place the output.

The micro-kernel multiplies the zero padding of the gradient by the weight;
the op (the reference, ONNX ConvTranspose: a scatter of the real gradient)
has no such term, so a non-finite weight would give NaN (0 * inf) at the
borders.  A constant non-finite weight keeps the scalar loops; a weight read
at run time is scanned first (one pass, ``w - w`` is NaN only for inf and
NaN), and the kernel runs the scalar loops instead when it holds one.

``conv2d_grad_filter`` is per group the GEMM ``dw[F, Cg*KH*KW] = g[F, P] .
im2col(x)[P, Cg*KH*KW]``, summed over the pixels ``P = N*OH*OW``:

    xq = padded, phase-split copy of x[n]; gT[p, f] = g[n, f, p]   (per image)
    for panels of NR filters, tiles of MR channels (parallel), taps (ky, kx):
      for blocks of output rows:  acc[r][v] = sum_p fma(bcast(xq[c0 + r, tap at p]), gT[p, L v], acc)
        S[c0 + r, ky, kx, L v] += acc                              (blocked sums)
    dw[f, c, ky, kx] = epilogue(S[g, c, ky, kx, f])

MR x NR and the L lanes are the target's register tile
(``register_tile.GemmTile``: 8 x 32 with AVX-512, 6 x 16 with AVX2), as for
the forward conv.

Each element is summed in the same order for any thread count (the threads
split the channel tiles, never a sum), so results are bitwise equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from collections.abc import Callable
from math import prod

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import MemRefType, VectorType, f32
from xdsl.ir import Block, Region, SSAValue

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp, tensor_of
from graphopt.lowering.conv_gemm import MAX_XQ_BYTES, MIN_FLOP_VOLUME, MIN_OG, ConvPlan, emit_conv_gemm
from graphopt.lowering.conv_gemm import _set_phases_and_taps, add_to_tile, emit_padded_copy, row_taps_fit
from graphopt.lowering.conv_pixels import emit_pixel_lane_conv, suits_pixel_lanes
from graphopt.lowering.kernel_emitter import KernelEmitter, Scope
from graphopt.lowering.register_tile import GemmTile, store_from_tile
from graphopt.target import Target

#: grad_filter: products (pixels) summed from zero before they are added to S.
BLOCK_PRODUCTS = 128
#: grad_input: products per block of the transposed conv, finer than the
#: forward conv's 128.  onnxruntime's ConvTranspose sums F products per tap
#: (a GEMM), then the taps (col2im), so with 128 its error was lower: 3x3
#: 64->64 @56 against float64, s1 2.0e-7 (ort 1.8e-7), s2 3.4e-7 (2.2e-7;
#: a stride-2 phase sums 64-256 products in 1-2 blocks).  With 36 (s1: 4
#: channels x 9 taps, 16 blocks in two levels; s2: 32 per block): 1.6e-7 and
#: 1.4e-7; interleaved CPU time s1 1.8 -> 1.55 ms, s2 0.50 -> 0.52 ms.
GRAD_INPUT_BLOCK_PRODUCTS = 36
#: Off only to measure the scalar loops on the same ops.
MICRO_KERNELS = True


class TransposedConvPlan(ConvPlan):
    """``dx`` (or one stride phase of it) as a conv of the gradient: the weight
    ``w[F, Cg, KH, KW]`` read as ``w'[g*Cg + c, f, t, u] = w[g*Fg + f, c, kys[t], kxs[u]]``
    (``kys``: the kernel rows, flipped), output pixel ``(i, j)`` stored at
    ``(sy*i + ry, sx*j + rx)``."""

    kys: list[int]
    kxs: list[int]
    phase: tuple[int, int, int, int] = (1, 0, 1, 0)  # (sy, ry, sx, rx)
    runtime_weight: bool = False  # read at run time: scanned for inf and NaN first

    def emit(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        """dx of a stride-1 conv (the whole kernel)."""
        tiled = emit_pixel_lane_conv if suits_pixel_lanes(self) else emit_conv_gemm
        emit_unless_non_finite(em, self.runtime_weight, self.b, root, out, lambda: tiled(em, self, root, out))

    def conv_weight(self, w: np.ndarray) -> np.ndarray:
        f, cg, kh, kw = w.shape
        g = self.groups
        t = w.reshape(g, f // g, cg, kh, kw).transpose(0, 2, 1, 3, 4)[:, :, :, self.kys][:, :, :, :, self.kxs]
        return np.ascontiguousarray(t.reshape(g * cg, f // g, len(self.kys), len(self.kxs)))

    def weight_index(self, em: KernelEmitter, o: SSAValue, c: SSAValue, ky: int, kx: int) -> list[SSAValue]:
        f = em.idx_add(em.idx_mul(em.idx_div(o, self.og), self.cg), c) if self.groups > 1 else c
        oc = em.idx_rem(o, self.og) if self.groups > 1 else o
        return [f, oc, em.index(self.kys[ky]), em.index(self.kxs[kx])]

    @property
    def rows_contiguous(self) -> bool:
        return self.phase[2] == 1

    def out_index(self, em: KernelEmitter, n: SSAValue, o: SSAValue, oy: SSAValue, ox: SSAValue) -> tuple:
        sy, ry, sx, rx = self.phase
        return (n, o, em.idx_add(em.idx_mul(oy, sy), em.index(ry)), em.idx_add(em.idx_mul(ox, sx), em.index(rx)))


def _phase_taps(k: int, d: int, s: int, p: int, r: int) -> tuple[list[int], int, int]:
    """Output rows ``s*i + r`` of dx read g row ``i + m`` at tap ``ky`` when
    ``m = (r + p - ky*d) / s`` is exact: the taps (flipped: ``m`` ascending),
    the pad ``-m_min`` and the dilation (step of ``m``) of that phase's conv."""
    kys = [ky for ky in range(k - 1, -1, -1) if (r + p - ky * d) % s == 0]
    ms = [(r + p - ky * d) // s for ky in kys]
    return kys, -ms[0] if ms else 0, ms[1] - ms[0] if len(ms) > 1 else 1


@dataclass
class PhasedPlan:
    """dx of a strided conv: one stride-1 :class:`TransposedConvPlan` per
    output phase ``(ry, rx)``; a phase no tap reaches is the epilogue of 0."""

    anchor: GraphOp
    a: SSAValue
    b: SSAValue
    phases: list[TransposedConvPlan | tuple[int, int]]
    pack_b: bool = False
    packed: SSAValue | None = None
    runtime_weight: bool = False

    def emit(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        emit_unless_non_finite(em, self.runtime_weight, self.b, root, out, lambda: self.emit_phases(em, root, out))

    def emit_phases(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        n_img, c, h, w = tensor_of(self.anchor.results[0]).get_shape()
        sy, sx = self.anchor.stride_values
        for plan in self.phases:
            if isinstance(plan, TransposedConvPlan):
                emit_conv_gemm(em, plan, root, out)
                continue
            zero = em.local_buffer([1], f32)
            em.store(em.scalar_constant(0.0, f32), zero, [em.index(0)])
            ry, rx = plan
            em.loop(n_img, lambda n: em.loop(c, lambda o: em.loop(-(-(h - ry) // sy), lambda i: em.loop(
                -(-(w - rx) // sx), lambda j: store_from_tile(em, root, out, (self.anchor, (
                    n, o, em.idx_add(em.idx_mul(i, sy), em.index(ry)), em.idx_add(em.idx_mul(j, sx), em.index(rx))
                ), zero, em.index(0)))))))  # fmt: skip


def _plan_grad_input(op: graph.Conv2dGradInputOp, constants: dict, target: Target) -> TransposedConvPlan | PhasedPlan | None:
    n_img, c, h, w = tensor_of(op.result).get_shape()
    f, cg, kh, kw = tensor_of(op.weight).get_shape()
    oh, ow = tensor_of(op.grad).get_shape()[2:]
    groups = op.group_count
    (sy, sx), (dy, dx) = op.stride_values, op.dilation_values
    pt, pl = op.pad_values[:2]
    if not MICRO_KERNELS or cg < MIN_OG or h * w * c * (f // groups) * kh * kw < MIN_FLOP_VOLUME or h < sy or w < sx:
        return None
    if op.weight in constants and not np.isfinite(constants[op.weight].reference()[0]).all():
        return None
    tile = GemmTile.for_target(target)
    phases: list[TransposedConvPlan | tuple[int, int]] = []
    for ry in range(sy):
        kys, py, ddy = _phase_taps(kh, dy, sy, pt, ry)
        for rx in range(sx):
            kxs, px, ddx = _phase_taps(kw, dx, sx, pl, rx)
            if not kys or not kxs:
                phases.append((ry, rx))
                continue
            plan = TransposedConvPlan(
                op, op.grad, op.weight, op.weight in constants and (sy, sx) == (1, 1),
                groups, n_img, f, oh, ow, cg, f // groups, len(kys), len(kxs),
                -(-(h - ry) // sy), -(-(w - rx) // sx), (1, 1), (py, px), (ddy, ddx), tile,
            )  # fmt: skip
            plan.kys, plan.kxs, plan.phase = kys, kxs, (sy, ry, sx, rx)
            plan.block_products = GRAD_INPUT_BLOCK_PRODUCTS
            plan.runtime_weight = op.weight not in constants
            _set_phases_and_taps(plan)
            plan.loop_ky = plan.kh > 1
            plan.loop_kx = plan.kw > 1 and not row_taps_fit(tile, plan.mr, plan.kw)
            if f * plan.hq * plan.wq * 4 > MAX_XQ_BYTES:
                return None
            phases.append(plan)
    if len(phases) == 1:
        return phases[0]  # type: ignore[return-value]
    return PhasedPlan(op, op.grad, op.weight, phases, runtime_weight=op.weight not in constants)


def any_non_finite(em: KernelEmitter, weight: SSAValue) -> SSAValue:
    """An ``i1``: whether the buffer holds an inf or a NaN.  ``w - w`` is +0
    for every finite ``w``, NaN otherwise; the sum of those over the buffer,
    in four vector accumulators of the target's lanes, is NaN exactly when
    one is."""
    t = weight.type
    assert isinstance(t, MemRefType)
    n = prod(t.get_shape())
    flat = em.collapse(weight, (tuple(range(len(t.get_shape()))),))
    lanes = em.target.f32_lanes
    vt = VectorType(f32, [lanes])
    zero_v = em.splat(em.scalar_constant(0.0, f32), vt)

    def diff(at: SSAValue, ty=vt) -> SSAValue:
        v = em.vload(flat, [at], ty) if ty is vt else em.load_here(flat, [at])
        return em.emit(arith.SubfOp(v, v)).results[0]

    quads, rest = divmod(n // lanes, 4)

    def body(ivs, accs):
        base = em.idx_mul(ivs[0], 4 * lanes)
        return [em.addf(a, diff(em.idx_add(base, em.index(u * lanes)))) for u, a in enumerate(accs)]

    accs = em.reduce([quads], [zero_v] * 4, body) if quads else [zero_v] * 4
    for u in range(rest):
        accs[u] = em.addf(accs[u], diff(em.index((4 * quads + u) * lanes)))
    lane_buf = em.local_buffer([lanes], f32)
    em.vstore(em.addf(em.addf(accs[0], accs[1]), em.addf(accs[2], accs[3])), lane_buf, [em.index(0)])
    s = em.load_here(lane_buf, [em.index(0)])
    for i in [*range(1, lanes), *range(n - n % lanes, n)]:
        s = em.addf(s, em.load_here(lane_buf, [em.index(i)]) if i < lanes else diff(em.index(i), f32))
    return em.emit(arith.CmpfOp(s, s, "uno")).results[0]


def emit_if(em: KernelEmitter, cond: SSAValue, then: Callable[[], None], other: Callable[[], None]) -> None:
    """``scf.if cond { then() } else { other() }``, each branch a scope of its
    own (values it needs from outside are hoisted before the ``if``)."""
    if_op = scf.IfOp(cond, [], Region(Block()), Region(Block()))
    em.emit_here(if_op)
    parent = em.current
    for region, body in ((if_op.true_region, then), (if_op.false_region, other)):
        term = scf.YieldOp()
        region.block.add_op(term)
        scope = Scope(region.block, parent, parent.depth + 1, terminator=term)
        parent.open_loops.append(if_op)
        with em.at(scope):
            body()
        parent.open_loops.pop()


def emit_unless_non_finite(
    em: KernelEmitter, runtime_weight: bool, weight: SSAValue, root: SSAValue, out: SSAValue, tiled: Callable[[], None]
) -> None:
    """``tiled()``, or for a weight read at run time: the scalar loops (no
    padding term, as the op) when it holds an inf or NaN, else ``tiled()``."""
    if not runtime_weight:
        tiled()
        return
    emit_if(em, any_non_finite(em, em.sources[weight]), lambda: em.store_nest(root, out), tiled)


# --------------------------------------------------------------------------
# grad_filter
# --------------------------------------------------------------------------


class GradFilterPlan(ConvPlan):
    """The forward conv's geometry (its padded copy of x, its taps); ``a`` is
    x, ``b`` the output gradient, ``og`` the filters per group."""

    def emit(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        emit_grad_filter(em, self, root, out)


def _plan_grad_filter(op: graph.Conv2dGradFilterOp, constants: dict, target: Target) -> GradFilterPlan | None:
    n_img, c, h, w = tensor_of(op.input).get_shape()
    f, oh, ow = tensor_of(op.grad).get_shape()[1:]
    kh, kw = tensor_of(op.result).get_shape()[2:]
    groups = op.group_count
    fg, cg = f // groups, c // groups
    if not MICRO_KERNELS or fg < MIN_OG or n_img * oh * ow * f * cg * kh * kw < MIN_FLOP_VOLUME or oh * ow == 0:
        return None
    tile = GemmTile.for_target(target)
    plan = GradFilterPlan(
        op, op.input, op.grad, False,
        groups, n_img, c, h, w, fg, cg, kh, kw, oh, ow, op.stride_values, op.pad_values[:2], op.dilation_values, tile,
    )  # fmt: skip
    ys, xs = _set_phases_and_taps(plan)
    # The taps' phase slots are computed from (ky, kx): phases 0.. in order.
    if ys != list(range(len(ys))) or xs != list(range(len(xs))):
        return None
    fpad = -(-fg // tile.cols) * tile.cols
    if c * len(plan.phases) * plan.hq * plan.wq * 4 > MAX_XQ_BYTES or groups * oh * ow * fpad * 4 > MAX_XQ_BYTES:
        return None
    return plan if f * cg * kh * kw * fpad // fg * 4 <= MAX_XQ_BYTES else None


def emit_grad_filter(em: KernelEmitter, plan: GradFilterPlan, root: SSAValue, out: SSAValue) -> None:
    """The whole kernel of a grad_filter (see the module docstring)."""
    op: GraphOp = plan.anchor
    x, grad = em.sources[plan.a], em.sources[plan.b]
    (sy, sx), (dy, dx) = plan.stride, plan.dilation
    g_n, fg, cg, kh, kw, oh, ow = plan.groups, plan.og, plan.cg, plan.kh, plan.kw, plan.oh, plan.ow
    lanes, mr, nr = plan.tile.lanes, plan.tile.rows, plan.tile.cols
    fpad = -(-fg // nr) * nr
    vt = VectorType(f32, [lanes])
    zero = em.scalar_constant(0.0, f32)
    zero_v = em.splat(zero, vt)
    xq = em.local_buffer([plan.c, len(plan.phases), plan.hq, plan.wq], f32)
    gt = em.local_buffer([g_n, oh * ow, fpad], f32)
    acc_buf = em.local_buffer([g_n, cg, kh, kw, fpad], f32)
    rows_per_block = max(1, min(oh, BLOCK_PRODUCTS // ow))

    def vec_loop(extent: int, at) -> None:
        em.loop(extent // lanes, lambda v: em.vstore(zero_v, *at(em.idx_mul(v, lanes))))

    # S = 0; a zero-padded gT past the group's filters.
    em.loop(g_n, lambda g: em.loop(cg, lambda c: em.loop(kh, lambda i: em.loop(
        kw, lambda j: vec_loop(fpad, lambda v: (acc_buf, [g, c, i, j, v])))))
    )
    if fpad != fg:
        em.loop(g_n, lambda g: em.loop(oh * ow, lambda p: vec_loop(fpad, lambda v: (gt, [g, p, v]))))

    def transpose_grad(n: SSAValue) -> None:
        def filt(o: SSAValue) -> None:
            gi, fi = (em.idx_div(o, fg), em.idx_rem(o, fg)) if g_n > 1 else (em.index(0), o)

            def pix(oy: SSAValue) -> None:
                def px(ox: SSAValue) -> None:
                    em.store(em.load_here(grad, [n, o, oy, ox]), gt, [gi, em.idx_add(em.idx_mul(oy, ow), ox), fi])

                em.loop(ow, px)

            em.loop(oh, pix)

        em.loop(g_n * fg, filt)

    def micro_kernel(g, jb, c0: SSAValue, ky, kx, rows: int, nvec: int) -> None:
        """S[g, c0 + r, ky, kx, nr jb + lanes v] += the tile's sum over the pixels."""
        qy, py = em.idx_div(em.idx_mul(ky, dy), sy), em.idx_rem(em.idx_mul(ky, dy), sy)
        qx, px = em.idx_div(em.idx_mul(kx, dx), sx), em.idx_rem(em.idx_mul(kx, dx), sx)
        slot = em.idx_add(em.idx_mul(py, plan.nx), px)
        chans = [em.idx_add(em.idx_add(em.idx_mul(g, cg), c0), em.index(r)) for r in range(rows)]

        def block(oy0: SSAValue, count: int) -> None:
            def body(ivs, accs):
                oy, ox = em.idx_add(oy0, ivs[0]), ivs[1]
                p = em.idx_add(em.idx_mul(oy, ow), ox)
                bs = [em.vload(gt, [g, p, em.idx_add(em.idx_mul(jb, nr), em.index(v * lanes))], vt) for v in range(nvec)]
                i, j = em.idx_add(oy, qy), em.idx_add(ox, qx)
                nxt = list(accs)
                for r in range(rows):
                    av = em.splat(em.load_here(xq, [chans[r], slot, i, j]), vt)
                    for v in range(nvec):
                        nxt[r * nvec + v] = em.fma(av, bs[v], accs[r * nvec + v])
                return nxt

            accs = em.reduce([count, ow], [zero_v] * (rows * nvec), body)
            add_to_tile(em, acc_buf, rows, nvec, lanes, lambda i, _: accs[i], lambda r, v: [
                g, em.idx_add(c0, em.index(r)), ky, kx, em.idx_add(em.idx_mul(jb, nr), em.index(v * lanes))])

        em.loop_blocks(oh, rows_per_block, block)

    full_panels, tail = divmod(fg, nr)
    tiles, rem = divmod(cg, mr)

    def panel(g, jb, nvec: int) -> None:
        def taps(c0: SSAValue, rows: int) -> None:
            em.loop(kh, lambda ky: em.loop(kw, lambda kx: micro_kernel(g, jb, c0, ky, kx, rows, nvec)))

        if tiles:
            em.loop(tiles, lambda t: taps(em.idx_mul(t, mr), mr), parallel=True)
        if rem:
            taps(em.index(tiles * mr), rem)

    def image(n: SSAValue) -> None:
        emit_padded_copy(em, plan, x, n, xq)
        transpose_grad(n)

        def group(g: SSAValue) -> None:
            if full_panels:
                em.loop(full_panels, lambda jb: panel(g, jb, nr // lanes))
            if tail:
                panel(g, em.index(full_panels), -(-tail // lanes))

        em.loop(g_n, group)

    em.loop(plan.n_img, image)

    def epilogue(o: SSAValue) -> None:
        gi, fi = (em.idx_div(o, fg), em.idx_rem(o, fg)) if g_n > 1 else (em.index(0), o)
        em.loop(cg, lambda c: em.loop(kh, lambda i: em.loop(kw, lambda j: store_from_tile(
            em, root, out, (op, (o, c, i, j), acc_buf, gi, c, i, j, fi)))))

    em.loop(g_n * fg, epilogue, parallel=True)


#: The plans gemm.emit_gemm hands their own ``emit``.
EMITS_ITSELF = (GradFilterPlan, PhasedPlan, TransposedConvPlan)
rules.GEMM_PLAN.register(graph.Conv2dGradInputOp, _plan_grad_input)
rules.GEMM_PLAN.register(graph.Conv2dGradFilterOp, _plan_grad_filter)
