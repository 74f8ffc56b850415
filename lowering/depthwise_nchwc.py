"""The depthwise NCHWc conv micro-kernel (``graph.depthwise_conv2d_nchwc``),
and the same window kernel for ``graph.max_pool2d_nchwc``.

Input ``[N, C/b, H, W, b]``, weight ``[C/b, KH, KW, b]``, output
``[N, C/b, OH, OW, b]``, ``b`` one vector register of f32 on the target (16
with AVX-512, 8 with AVX2): the channels of a pixel's block are one vector,
so a tap is one vector load of the input and one FMA by the tap's weight
vector, whatever the width of the rows (an NCHW depthwise conv runs along a
row of 7 or 14 pixels in 16-lane vectors, mostly empty):

    for n, block cb (parallel):
      wv[t] = w[cb, t, :]                          (the KH*KW weight vectors, in registers)
      for oy, tiles of R pixels ox0..:            (R: tile_pixels, 8 on AVX-512, 6 on AVX2 for 3x3)
        acc[r] = sum over taps t of x[n, cb, oy*sy + ky*dy - pt, (ox0 + r)*sx + kx*dx - pl, :] * wv[t]
        out[n, cb, oy, ox0 + r, :] = epilogue(acc[r])

Padding costs no test: the rows and tiles whose windows stay inside the
input run in loops, the border rows and tiles are emitted straight, each
with the taps that fall outside it left out (a padded tap adds ``0 * w``;
only a non-finite weight makes that differ, so a kernel whose weight is not
known finite at compile time keeps the generic rule, see
:func:`plan_depthwise_nchwc`).  Each output is summed in tap order, as the
reference does.

A max-pool runs the same nest, a tap taking the maximum of the vectors
(``arith.maximumf``: NaN-propagating as numpy's ``maximum``, taps in the
reference's order; a padded tap, ``-inf``, can change nothing, so it is
left out).  The one difference to the reference's scalar rule, numpy's
``a if a > b or isnan(a) else b``: of a window's ``+0`` and ``-0``,
``maximumf`` gives ``+0`` where numpy gives the later one (xDSL's
``arith.select`` and ``arith.cmpf`` take no vectors, as for the conv
epilogues' relu in ``register_tile``).  The generic rule's loop over the
channels of a block became 4-lane vectors on AVX2 (8 channels).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import tensor_of
from graphopt.lowering.compute_rules import elem_type, lowest, register_compute_rule, s_mac
from graphopt.lowering.conv_gemm import idx_plus
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.register_tile import VectorEpilogue, store_from_tile, tile_value
from graphopt.lowering.rules_nn import Window, reduce_dims, window_unroll
from graphopt.lowering.rules_tensor import select
from graphopt.target import Target

#: Pixels per register tile: R accumulators next to the KH*KW weights, at
#: most TILE_PIXELS and, when the registers leave fewer than MIN_TILE_PIXELS,
#: TILE_PIXELS (see :func:`tile_pixels`).  Measured with the AVX2 build on
#: Zen 4 (MobileNetV2's 3x3 shapes, warm, one thread): tiles of 4 to 8
#: pixels within 3% of each other (the kernel waits on memory, not on
#: registers); the rule keeps the weights in registers.  AVX-512's 5x5
#: tiles of 6 pixels (were 8): the same times.
TILE_PIXELS = 8
MIN_TILE_PIXELS = 4
#: Pixels per tile of the max-pool (no weights: the tile's size only sets
#: the loads in flight).  Measured warm, one thread, tiles of 4 against 8
#: and the generic rule: AVX-512 build, 2x2 /2 64 @224 0.30 / 0.41 / 0.37
#: ms, 3x3 /2 64 @112 0.131 / 0.135 / 0.153; AVX2 build (the rule's loop
#: over the 8 channels of a block ran on 4-lane vectors): 0.50 / 0.62 /
#: 1.25 ms and 0.105 / 0.104 / 0.74.
POOL_TILE_PIXELS = 4


@dataclass
class DepthwiseNchwcPlan:
    """The schedule of one ``depthwise_conv2d_nchwc`` kernel; ``a``, ``b``,
    ``pack_b`` and ``packed`` are what ``graph_to_loop`` asks of every
    GEMM-class plan (the weight is read as it is, not packed)."""

    anchor: graph.DepthwiseConv2dNchwcOp | graph.MaxPool2dNchwcOp
    a: SSAValue
    b: SSAValue
    pixels: int = TILE_PIXELS  # per register tile
    pack_b: bool = False
    packed: SSAValue | None = None

    def window(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]:
        """(kernel, strides, dilations, top and left padding)."""
        op = self.anchor
        _, kh, kw, _ = tensor_of(op.weight).get_shape()
        return (kh, kw), op.stride_values, op.dilation_values, op.pad_values[:2]

    def emit(self, em: KernelEmitter, root: SSAValue, out: SSAValue) -> None:
        emit_window_nchwc(em, self, root, out)


@dataclass
class MaxPoolNchwcPlan(DepthwiseNchwcPlan):
    """The same window kernel for ``max_pool2d_nchwc``: a tap takes the
    maximum (numpy's, NaN-propagating, in the taps' order as the reference
    does: a padded tap, ``-inf``, never changes it, so it is left out) where
    the depthwise conv multiplies and adds; ``b`` is the input (no weight)."""

    def window(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]:
        op = self.anchor
        return op.kernel_values, op.stride_values, (1, 1), op.pad_values[:2]


def tile_pixels(target: Target, block: int, taps: int) -> int:
    """Pixels per register tile: as many as fit the registers beside the
    ``taps`` weight vectors and one input vector, at most TILE_PIXELS (a
    vector wider than the target's takes several of its registers).  When
    fewer than MIN_TILE_PIXELS would fit (5x5 on 16 registers), the weights
    are reloaded from L1 anyway, so the tile keeps TILE_PIXELS."""
    regs = target.vector_registers // max(1, -(-block // target.f32_lanes))
    fit = regs - taps - 1
    return min(TILE_PIXELS, fit) if fit >= MIN_TILE_PIXELS else TILE_PIXELS


def plan_depthwise_nchwc(op: graph.DepthwiseConv2dNchwcOp, constants: dict, target: Target) -> DepthwiseNchwcPlan | None:
    """The micro-kernel for an f32 depthwise conv over blocks of whole
    vectors (a multiple of 4 channels) whose weight is a finite constant (a
    padded tap is left out, not multiplied)."""
    shape = tensor_of(op.input).get_shape()
    const = constants.get(op.weight)
    if shape[4] % 4 or const is None or not np.isfinite(const.reference()[0]).all():
        return None
    _, kh, kw, _ = tensor_of(op.weight).get_shape()
    return DepthwiseNchwcPlan(op, op.input, op.weight, tile_pixels(target, shape[4], kh * kw))


rules.GEMM_PLAN.register(graph.DepthwiseConv2dNchwcOp, plan_depthwise_nchwc)


def plan_max_pool_nchwc(op: graph.MaxPool2dNchwcOp, constants: dict, target: Target) -> MaxPoolNchwcPlan | None:
    """The window kernel for an f32 max-pool over blocks of whole vectors;
    tiles of TILE_PIXELS pixels (no weights beside them)."""
    if tensor_of(op.input).get_shape()[4] % 4:
        return None
    return MaxPoolNchwcPlan(op, op.input, op.input, POOL_TILE_PIXELS)


rules.GEMM_PLAN.register(graph.MaxPool2dNchwcOp, plan_max_pool_nchwc)


def _inside(start: int, stride: int, tap: int, pad: int, extent: int) -> bool:
    """Whether output position ``start``'s tap reads inside the input."""
    return 0 <= start * stride + tap - pad < extent


def _interior(count: int, ok) -> tuple[int, int]:
    """``[lo, hi)`` from the first to the last position of ``range(count)``
    where ``ok`` holds (a window's failing positions lie at the two ends)."""
    good = [i for i in range(count) if ok(i)]
    return (good[0], good[-1] + 1) if good else (0, 0)


def emit_window_nchwc(em: KernelEmitter, plan: DepthwiseNchwcPlan, root: SSAValue, out: SSAValue) -> None:
    """The whole output nest (the module docstring): a depthwise conv's
    taps multiply-add, a max-pool's take the maximum."""
    op = plan.anchor
    pool = isinstance(plan, MaxPoolNchwcPlan)
    x = em.sources[plan.a]
    n_img, cb, h, wd, lanes = tensor_of(op.input).get_shape()
    _, _, oh, ow, _ = tensor_of(op.result).get_shape()
    (kh, kw), (sy, sx), (dy, dx), (pt, pl) = plan.window()
    vt = VectorType(f32, [lanes])
    zero = em.splat(em.scalar_constant(lowest(f32) if pool else 0.0, f32), vt)
    epilogue = VectorEpilogue.plan(op, root, em.sources, (4,))
    size = min(plan.pixels, ow)
    tiles, rem = divmod(ow, size)
    tile = em.local_buffer([size, lanes], f32) if epilogue is None else None

    def row_ok(oy: int) -> bool:
        return all(_inside(oy, sy, ky * dy, pt, h) for ky in range(kh))

    def tile_ok(t: int) -> bool:
        return all(_inside(t * size + r, sx, kx * dx, pl, wd) for r in range(size) for kx in range(kw))

    y_lo, y_hi = _interior(oh, row_ok)
    t_lo, t_hi = _interior(tiles, tile_ok)

    def run_tile(n, c, wv, oy: SSAValue, oy_s: int | None, ox0: SSAValue, ox0_s: int | None, count: int) -> None:
        """``count`` pixels from ``ox0`` of row ``oy`` (``_s``: known at
        compile time, a border, whose outside taps are left out)."""
        accs = [zero] * count
        for ky in range(kh):
            if oy_s is not None and not _inside(oy_s, sy, ky * dy, pt, h):
                continue
            iy = em.idx_add(em.idx_mul(oy, sy), em.index(ky * dy - pt))
            for kx in range(kw):
                for r in range(count):
                    if ox0_s is not None and not _inside(ox0_s + r, sx, kx * dx, pl, wd):
                        continue
                    ix = em.idx_add(em.idx_mul(idx_plus(em, ox0, r), sx), em.index(kx * dx - pl))
                    a = em.vload(x, [n, c, iy, ix, em.index(0)], vt)
                    accs[r] = em.pure(arith.MaximumfOp, (accs[r], a), vt) if pool else em.fma(a, wv[ky * kw + kx], accs[r])
        for r in range(count):
            ox = idx_plus(em, ox0, r)
            at = [n, c, oy, ox, em.index(0)]
            if epilogue is not None:
                em.emit_here(vector.StoreOp(epilogue.emit(em, at, accs[r], lanes), out, at))
                continue
            em.vstore(accs[r], tile, [em.index(r), em.index(0)])
            em.loop(lanes, lambda lane, r=r, ox=ox: store_from_tile(
                em, root, out, (op, (n, c, oy, ox, lane), tile, em.index(r), lane)))  # fmt: skip

    def row(n, c, wv, oy: SSAValue, oy_s: int | None) -> None:
        for t in [*range(t_lo), *range(t_hi, tiles)]:
            run_tile(n, c, wv, oy, oy_s, em.index(t * size), t * size, size)
        if t_hi > t_lo:
            em.loop(t_hi, lambda t: run_tile(n, c, wv, oy, oy_s, em.idx_mul(t, size), None, size), start=t_lo)
        if rem:
            run_tile(n, c, wv, oy, oy_s, em.index(tiles * size), tiles * size, rem)

    def block(n, c) -> None:
        w = em.sources[plan.b]
        wv = [] if pool else [em.vload(w, [c, em.index(ky), em.index(kx), em.index(0)], vt) for ky in range(kh) for kx in range(kw)]
        for oy in [*range(y_lo), *range(y_hi, oh)]:
            row(n, c, wv, em.index(oy), oy)
        if y_hi > y_lo:
            em.loop(y_hi, lambda oy: row(n, c, wv, oy, None), start=y_lo)

    em.loop(n_img, lambda n: em.loop(cb, lambda c: block(n, c), parallel=True))


@register_compute_rule(graph.DepthwiseConv2dNchwcOp)
def _depthwise_conv2d_nchwc(
    em: KernelEmitter, op: graph.DepthwiseConv2dNchwcOp, _: int, idx: list[SSAValue]
) -> SSAValue:
    """``out[n, cb, y, x, c] = sum over taps of in[n, cb, iy, ix, c] *
    w[cb, ky, kx, c]``, the taps straight: the block's 16 channels are the
    innermost, contiguous loop, one vector of input and one of weight a tap
    once LLVM vectorises it: the kernels the micro-kernel does not take
    (a weight not known finite), or its tile."""
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled
    n, cb, y, x, c = idx
    _, _, h, w, _ = tensor_of(op.input).get_shape()
    _, kh, kw, _ = tensor_of(op.weight).get_shape()
    win = Window(em, op, [y, x], [h, w])
    zero = em.scalar_constant(0.0, elem_type(op.result))

    def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        ky, kx = ivs
        (iy, ix), ok = win.at(ky, kx)
        v = em.value_at(op.input, [n, cb, iy, ix, c])
        if ok is not None:
            v = select(em, ok, v, zero)
        return s_mac(em, acc, v, em.value_at(op.weight, [cb, ky, kx, c]), reduction=False)

    return reduce_dims(em, [kh, kw], zero, body, window_unroll(kh, kw))


__all__ = ["DepthwiseNchwcPlan", "MaxPoolNchwcPlan", "plan_depthwise_nchwc", "plan_max_pool_nchwc"]
