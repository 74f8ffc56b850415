"""Compute rules for the window ops of ``graphopt.dialects.graph`` (conv2d,
pooling) and the normalizations (batch_norm, batch_norm_train, layer_norm).

Window ops read padded inputs without ever loading out of bounds: the input
index ``i = o*s - pad + k*d`` is checked with one unsigned compare
(``i < extent``, which also rejects negative ``i``), replaced by 0 when out of
range, loaded, and the loaded value replaced by the pad value.  Axes without
padding skip the check (the verifier guarantees the window fits).

Statistics (batch mean/variance, a layer_norm row's mean/variance) are
``em.cached`` on the indices they depend on, so they are computed once per
row or channel iteration, not per element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue

from graphopt.dialects import graph as nn
from graphopt.dialects import graph as norm
from graphopt.dialects.graph import tensor_of
from graphopt.lowering.compute_rules import (
    broadcast_indices,
    elem_type,
    lowest,
    register_compute_rule,
    register_loop_order,
    result,
    s_acc,
    s_add,
    s_div,
    s_max,
    s_mac,
    s_mul,
    s_sub,
)
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.to_llvm.cf import wants_llvm_unrolling
from graphopt.lowering.register_tile import tile_value
from graphopt.lowering.rules_tensor import idx_add_const, idx_lt, idx_sub_const, select

# --------------------------------------------------------------------------
# window helpers
# --------------------------------------------------------------------------


def window_origin(em: KernelEmitter, out: SSAValue, stride: int, pad: int) -> SSAValue:
    """``out*stride - pad``: the input index of the window's first tap (may be
    negative, as a signed index)."""
    return idx_sub_const(em, em.idx_mul(out, stride), pad)


def tap_index(
    em: KernelEmitter, origin: SSAValue, tap: SSAValue, dilation: int, extent: int, padded: bool
) -> tuple[SSAValue, SSAValue | None]:
    """The input index of one tap, clamped to 0 when outside ``[0, extent)``,
    and the in-bounds flag (None when the axis has no padding)."""
    i = em.idx_add(origin, em.idx_mul(tap, dilation))
    if not padded:
        return i, None
    ok = idx_lt(em, i, extent, unsigned=True)
    return select(em, ok, i, em.index(0)), ok


def and_flags(em: KernelEmitter, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
    if a is None or b is None:
        return a if b is None else b
    return result(em.emit(arith.AndIOp(a, b)))


class Window:
    """The two spatial axes of one output element of a window op."""

    def __init__(
        self,
        em: KernelEmitter,
        op: nn.WindowOp,
        out_hw: Sequence[SSAValue],
        in_hw: Sequence[int],
    ):
        self.em = em
        strides, pads, self.dilations = op.stride_values, op.pad_values, op.dilation_values
        self.in_hw = in_hw
        extra = op.extra_pad_values() if isinstance(op, nn.Pool2dOp) else (0, 0)
        self.padded = [pads[d] > 0 or pads[d + 2] > 0 or extra[d] > 0 for d in range(2)]
        self.origins = [window_origin(em, out_hw[d], strides[d], pads[d]) for d in range(2)]

    def at(self, kh: SSAValue, kw: SSAValue) -> tuple[list[SSAValue], SSAValue | None]:
        """Safe ``[ih, iw]`` for tap (kh, kw) and its in-bounds flag."""
        ih, ok_h = tap_index(self.em, self.origins[0], kh, self.dilations[0], self.in_hw[0], self.padded[0])
        iw, ok_w = tap_index(self.em, self.origins[1], kw, self.dilations[1], self.in_hw[1], self.padded[1])
        return [ih, iw], and_flags(self.em, ok_h, ok_w)


def reduce_dims(
    em: KernelEmitter,
    extents: Sequence[int],
    init: SSAValue,
    body,
    unroll: Sequence[bool] = (),
) -> SSAValue:
    """``em.reduce`` over ``extents`` with unit extents dropped (their index
    is the constant 0), the dims ``unroll`` marks emitted straight;
    ``body(ivs, acc)`` returns the next accumulator."""
    loops = [d for d, e in enumerate(extents) if e != 1]

    def step(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        full = [em.index(0)] * len(extents)
        for d, iv in zip(loops, ivs):
            full[d] = iv
        return [body(full, accs[0])]

    if not loops:
        return step([], [init])[0]
    marks = [d < len(unroll) and unroll[d] for d in loops]
    return em.reduce([extents[d] for d in loops], [init], step, marks)[0]


#: Window taps emitted straight (LLVM unrolls no loop): a row of up to
#: ``UNROLL_ROW`` taps, the whole window when it has at most ``UNROLL_TAPS``.
UNROLL_ROW, UNROLL_TAPS = 8, 16
#: Direct-conv rows up to this wide are emitted straight, every column (a
#: 28-wide stride-2 depthwise row: 1.6x faster than its column loops).
UNROLL_CONV_ROW = 32


def window_unroll(kh: int, kw: int) -> tuple[bool, bool]:
    """Which of a window's (rows, columns) loops are emitted straight."""
    return kh * kw <= UNROLL_TAPS, kw <= UNROLL_ROW


# --------------------------------------------------------------------------
# conv2d and pooling
# --------------------------------------------------------------------------


#: Output rows narrower than this use the dot-product form.
CONV_ROW_MIN_WIDTH = 4


@register_compute_rule(nn.Conv2dOp)
def _conv2d(em: KernelEmitter, op: nn.Conv2dOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``out[n,o,y,x] = sum_{c,ky,kx} in[n, g*Cg + c, y*sy - pt + ky*dy,
    x*sx - pl + kx*dx] * w[o, c, ky, kx]`` with ``g = o // (O / groups)``.

    When the output nest's innermost loop runs over ``x``, a whole output row
    is accumulated first, once per ``(n, o, y)``, into a stack buffer (see
    :func:`_conv2d_row`); otherwise each element is a dot product.
    """
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled
    n, o, y, x = idx
    _, _, h, w = tensor_of(op.input).get_shape()
    out_ch, cg, kh, kw = tensor_of(op.weight).get_shape()
    out_w = tensor_of(op.result).get_shape()[3]
    t = elem_type(op.result)
    groups = op.group_count
    base = None if groups == 1 else em.idx_mul(em.idx_div(o, out_ch // groups), cg)
    if row_wise(em, idx, out_w):
        row = em.cached(("conv2d.row", op), [n, o, y], lambda: _conv2d_row(em, op, n, o, y, base))
        return em.load(row, [x])
    win = Window(em, op, [y, x], [h, w])
    zero = em.scalar_constant(0.0, t)

    def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        c, ky, kx = ivs
        (ih, iw), ok = win.at(ky, kx)
        ch = c if base is None else base if cg == 1 else em.idx_add(base, c)
        v = em.value_at(op.input, [n, ch, ih, iw])
        if ok is not None:
            v = select(em, ok, v, zero)
        return s_mac(em, acc, v, em.value_at(op.weight, [o, c, ky, kx]), reduction=True)

    return reduce_dims(em, [cg, kh, kw], zero, body, (False, *window_unroll(kh, kw)))


def _conv2d_row(
    em: KernelEmitter, op: nn.Conv2dOp, n: SSAValue, o: SSAValue, y: SSAValue, base: SSAValue | None
) -> SSAValue:
    """``row[x] = out[n, o, y, x]`` for every ``x``, into a stack buffer.

    Loops ``c, ky`` run in the kernel; ``kx`` is unrolled, so for each tap the
    range of ``x`` whose input column is in bounds is known statically and the
    innermost loop over ``x`` reads the input row contiguously (for stride 1)
    with no bounds test -- it vectorises.  Padding is a real zero that is
    multiplied (ONNX, PyTorch): a padding row reads 0, and the columns whose
    tap lies in the side padding add ``0 * w``, so an infinite weight gives
    NaN there and a NaN input never leaks into a window that lies in the
    padding.
    """
    _, _, h, w = tensor_of(op.input).get_shape()
    _, cg, kh, kw = tensor_of(op.weight).get_shape()
    out_w = tensor_of(op.result).get_shape()[3]
    t = elem_type(op.result)
    (sy, sx), (pt, pl) = op.stride_values, op.pad_values[:2]
    dy, dx = op.dilation_values
    padded_h = op.pad_values[0] > 0 or op.pad_values[2] > 0
    zero = em.scalar_constant(0.0, t)
    short = out_w <= UNROLL_CONV_ROW
    wants_llvm_unrolling(y)  # 10-40% faster (depthwise 960@7, 96@112/2)
    row = row_buffer(em, out_w, zero, short)
    origin_y = window_origin(em, y, sy, pt)

    def channel(c: SSAValue) -> None:
        ch = c if base is None else base if cg == 1 else em.idx_add(base, c)

        def tap_row(ky: SSAValue) -> list:
            ih, ok = tap_index(em, origin_y, ky, dy, h, padded_h)
            taps = []
            for kx in range(kw):
                offset, lo, hi = tap_columns(kx * dx - pl, sx, w, out_w)
                wv = em.value_at(op.weight, [o, c, ky, em.index(kx)])

                def inside(acc: SSAValue, xx: SSAValue, wv: SSAValue = wv, offset: int = offset) -> SSAValue:
                    v = em.value_at(op.input, [n, ch, ih, idx_add_const(em, em.idx_mul(xx, sx), offset)])
                    if ok is not None:  # a padding row reads as 0 (never the clamped element)
                        v = select(em, ok, v, zero)
                    return s_mac(em, acc, v, wv, reduction=False)

                # Taps in the left/right padding: a real zero times the
                # weight (NaN for an infinite or NaN weight, as in ONNX).
                def outside(acc: SSAValue, xx: SSAValue, wv: SSAValue = wv) -> SSAValue:
                    return s_add(em, acc, s_mul(em, zero, wv))

                taps.append((lo, hi, inside, outside))
            return taps

        window_rows(em, row, out_w, (kh, kw), tap_row, short)

    em.loop(cg, channel)
    return row


def row_wise(em: KernelEmitter, idx: Sequence[SSAValue], out_w: int) -> bool:
    """Whether the output nest's innermost loop runs over a whole row of
    ``x = idx[3]`` inside the loops of the other indices: a row at once."""
    inner, x = em.innermost, idx[3]
    return (
        inner is not None
        and inner[0] is x
        and inner[1] == out_w >= CONV_ROW_MIN_WIDTH
        and all(em.scope_for([v]).depth < em.scope_for([x]).depth for v in idx[:3])
    )


def tap_columns(offset: int, sx: int, w: int, out_w: int) -> tuple[int, int, int]:
    """For a tap reading input column ``x * sx + offset``: the offset and the
    range ``[lo, hi)`` of output columns ``x`` where it lies in ``[0, w)``."""
    lo = -(offset // sx) if offset < 0 else 0  # ceil(-offset / sx)
    hi = min(out_w, (w - 1 - offset) // sx + 1)
    lo = min(lo, out_w)
    return offset, lo, max(hi, lo)


def row_buffer(em: KernelEmitter, out_w: int, init: SSAValue, short: bool) -> SSAValue:
    """A stack buffer of one output row, set to ``init`` (straight when
    ``short``: the row then lives in registers)."""
    row = em.local_buffer([out_w], init.type)
    em.loop(out_w, lambda xx: em.store(init, row, [xx]), unroll=short)
    return row


def window_rows(
    em: KernelEmitter, row: SSAValue, out_w: int, kernel: tuple[int, int], taps_of, short: bool, merge: bool = True
) -> None:
    """:func:`row_taps` over the taps ``taps_of(ky)`` of every window row: in
    a loop over ``ky``, or unrolled, of all rows at once if ``merge`` (a max
    over 9 taps in one loop measured 1.5x slower than three loops of 3)."""
    if not window_unroll(*kernel)[0]:
        em.loop(kernel[0], lambda ky: row_taps(em, row, out_w, taps_of(ky), short))
    elif merge:
        row_taps(em, row, out_w, [t for ky in range(kernel[0]) for t in taps_of(em.index(ky))], short)
    else:
        for ky in range(kernel[0]):
            row_taps(em, row, out_w, taps_of(em.index(ky)), short)


def row_taps(em: KernelEmitter, row: SSAValue, out_w: int, taps, short: bool) -> None:
    """``row[x] = tap(row[x], x)`` for each tap ``(lo, hi, inside, outside)``
    in order: ``inside`` for the columns ``[lo, hi)`` it reads inside the
    input, ``outside`` (``None``: nothing) for the others.  One loop runs
    over the columns where every tap is inside, doing all of them (one load
    and store of ``row[x]``, and no bounds test); the border columns are
    emitted straight (per-tap loops if there are many).  Each column sees
    its taps in order: the sums are those of a loop over the taps."""
    lo_all, hi_all = max(t[0] for t in taps), min(t[1] for t in taps)

    def update(xx: SSAValue, steps) -> None:
        acc = em.load(row, [xx])
        for step in steps:
            acc = step(acc, xx)
        em.store(acc, row, [xx])

    segments = [(0, out_w)]
    if lo_all < hi_all:
        em.loop(hi_all, lambda xx: update(xx, [t[2] for t in taps]), start=lo_all, unroll=short)
        segments = [(0, lo_all), (hi_all, out_w)]
    for s0, s1 in segments:
        if s1 - s0 <= UNROLL_ROW:  # a few border columns: each straight, all its taps
            for xc in range(s0, s1):
                steps = [inside if lo <= xc < hi else outside for lo, hi, inside, outside in taps]
                em.loop(xc + 1, lambda xx, steps=steps: update(xx, [s for s in steps if s is not None]), start=xc)
            continue
        for lo, hi, inside, outside in taps:
            parts = [(max(lo, s0), min(hi, s1), inside)]
            if outside is not None:
                parts += [(s0, min(lo, s1), outside), (max(hi, s0), s1, outside)]
            for a, b, step in parts:
                if a < b:
                    em.loop(b, lambda xx, step=step: update(xx, [step]), start=a, unroll=short)


def _pool_row(em: KernelEmitter, op: nn.Pool2dOp, n: SSAValue, c: SSAValue, y: SSAValue, init: SSAValue, combine):
    """``row[x] = combine`` over the window taps of output ``(n, c, y, x)`` for
    every ``x``, into a stack buffer starting at ``init``: per tap, only the
    columns it reads inside the input (a padding tap is ``init``'s identity,
    -inf for max, 0 for a sum), so the column loops have no bounds test."""
    _, _, h, w = tensor_of(op.input).get_shape()
    out_w = tensor_of(op.result).get_shape()[3]
    kh, kw = op.kernel_values
    (sy, sx), (dy, dx) = op.stride_values, op.dilation_values
    pt, pl, pb, _ = op.pad_values
    short = out_w <= UNROLL_ROW
    wants_llvm_unrolling(y)  # 5-150% faster (max-pool 3x3/2 @28, avg-pool 3x3 @28)
    row = row_buffer(em, out_w, init, short)
    origin_y = window_origin(em, y, sy, pt)

    def tap_row(ky: SSAValue) -> list:
        ih, ok = tap_index(em, origin_y, ky, dy, h, pt > 0 or pb > 0 or op.extra_pad_values()[0] > 0)
        taps = []
        for kx in range(kw):
            offset, lo, hi = tap_columns(kx * dx - pl, sx, w, out_w)

            def inside(acc: SSAValue, xx: SSAValue, offset: int = offset) -> SSAValue:
                v = em.value_at(op.input, [n, c, ih, idx_add_const(em, em.idx_mul(xx, sx), offset)])
                return combine(em, acc, v if ok is None else select(em, ok, v, init))

            taps.append((lo, hi, inside, None))
        return taps

    window_rows(em, row, out_w, (kh, kw), tap_row, short, merge=combine is not s_max)
    return row


@register_compute_rule(nn.MaxPool2dOp)
def _max_pool2d(em: KernelEmitter, op: nn.MaxPool2dOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Window maximum; out-of-bounds taps read as -inf.  A whole output row
    at once when the nest allows (:func:`_pool_row`)."""
    n, c, y, x = idx
    _, _, h, w = tensor_of(op.input).get_shape()
    t = elem_type(op.result)
    low = em.scalar_constant(lowest(t), t)
    if row_wise(em, idx, tensor_of(op.result).get_shape()[3]):
        row = em.cached(("max_pool2d.row", op), [n, c, y], lambda: _pool_row(em, op, n, c, y, low, s_max))
        return em.load(row, [x])
    win = Window(em, op, [y, x], [h, w])

    def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        (ih, iw), ok = win.at(*ivs)
        v = em.value_at(op.input, [n, c, ih, iw])
        return s_max(em, acc, v if ok is None else select(em, ok, v, low))

    return reduce_dims(em, op.kernel_values, low, body, window_unroll(*op.kernel_values))


def in_bounds_count(em: KernelEmitter, origin: SSAValue, k: int, extent: int) -> SSAValue:
    """How many of the taps ``origin .. origin+k-1`` lie in ``[0, extent)``."""
    lo = result(em.emit(arith.MaxSIOp(origin, em.index(0))))
    end = result(em.emit(arith.AddiOp(origin, em.index(k))))
    hi = result(em.emit(arith.MinSIOp(end, em.index(extent))))
    return result(em.emit(arith.SubiOp(hi, lo)))


def taps_between(
    em: KernelEmitter, origin: SSAValue, k: int, dilation: int, lo: int, hi: int
) -> SSAValue:
    """How many taps ``origin + i*dilation`` (``i < k``) lie in ``[lo, hi)``,
    as an index: a short loop over the taps (dilated or ceil-mode windows)."""

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        i = em.idx_add(origin, em.idx_mul(ivs[0], dilation))
        shifted = idx_sub_const(em, i, lo) if lo else i
        ok = idx_lt(em, shifted, hi - lo, unsigned=True)
        return [select(em, ok, em.idx_add(accs[0], em.index(1)), accs[0])]

    return em.reduce([k], [em.index(0)], body)[0]


@register_compute_rule(nn.AvgPool2dOp)
def _avg_pool2d(em: KernelEmitter, op: nn.AvgPool2dOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Window sum (padding reads as 0) over the divisor: the number of taps
    inside the input -- or, with ``count_include_pad``, inside the padded
    input -- from index arithmetic, cached per output row and column."""
    n, c, y, x = idx
    _, _, h, w = tensor_of(op.input).get_shape()
    kh, kw = op.kernel_values
    pt, pl, pb, pr = op.pad_values
    t = elem_type(op.result)
    win = Window(em, op, [y, x], [h, w])
    zero = em.scalar_constant(0.0, t)

    def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        (ih, iw), ok = win.at(*ivs)
        v = em.value_at(op.input, [n, c, ih, iw])
        return s_add(em, acc, v if ok is None else select(em, ok, v, zero))

    if row_wise(em, idx, tensor_of(op.result).get_shape()[3]):
        row = em.cached(("avg_pool2d.row", op), [n, c, y], lambda: _pool_row(em, op, n, c, y, zero, s_add))
        total = em.load(row, [x])
    else:
        total = reduce_dims(em, (kh, kw), zero, body, window_unroll(kh, kw))
    extra = op.extra_pad_values()
    if not any(win.padded) or (op.includes_pad and not any(extra)):
        return s_div(em, total, em.scalar_constant(float(kh * kw), t))
    dh, dw = op.dilation_values
    if op.includes_pad:
        bounds = ((-pt, h + pb), (-pl, w + pr))
    else:
        bounds = ((0, h), (0, w))

    def count(d: int) -> SSAValue:
        origin, k, dil, (lo, hi) = win.origins[d], (kh, kw)[d], (dh, dw)[d], bounds[d]
        if dil == 1:
            shifted = idx_add_const(em, origin, -lo) if lo else origin
            return in_bounds_count(em, shifted, k, hi - lo)
        return taps_between(em, origin, k, dil, lo, hi)

    rows = em.cached(("avg_pool2d.rows", op), [y], lambda: count(0))
    cols = em.cached(("avg_pool2d.cols", op), [x], lambda: count(1))
    count_i = result(em.emit(arith.IndexCastOp(result(em.emit(arith.MuliOp(rows, cols))), i64)))
    return s_div(em, total, result(em.emit(arith.SIToFPOp(count_i, t))))


@register_compute_rule(nn.GlobalAvgPoolOp)
def _global_avg_pool(em: KernelEmitter, op: nn.GlobalAvgPoolOp, _: int, idx: list[SSAValue]) -> SSAValue:
    shape = tensor_of(op.input).get_shape()
    t = elem_type(op.result)
    spatial = shape[2:]

    def step(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        for iv in ivs:
            wants_llvm_unrolling(iv)  # 2048@7: 25-50% faster
        return s_acc(em, acc, em.value_at(op.input, [idx[0], idx[1], *ivs]))

    total = reduce_dims(em, spatial, em.scalar_constant(0.0, t), step, window_unroll(*spatial) if len(spatial) == 2 else ())
    return s_div(em, total, em.scalar_constant(float(math.prod(spatial)), t))


# --------------------------------------------------------------------------
# normalization
# --------------------------------------------------------------------------


def s_sqrt(em: KernelEmitter, a: SSAValue) -> SSAValue:
    return result(em.emit(mathd.SqrtOp(a)))


@register_compute_rule(norm.BatchNormOp)
def _batch_norm(em: KernelEmitter, op: norm.BatchNormOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``(x - mean[c]) * (scale[c] / sqrt(var[c] + eps)) + bias[c]``; the
    per-channel factor is hoisted out of the spatial loops."""
    t = elem_type(op.result)
    c = [idx[1]]
    var = em.value_at(op.var, c)
    denom = s_sqrt(em, s_add(em, var, em.scalar_constant(op.epsilon, t)))
    factor = s_div(em, em.value_at(op.scale, c), denom)
    centred = s_sub(em, em.value_at(op.input, idx), em.value_at(op.mean, c))
    return s_add(em, s_mul(em, centred, factor), em.value_at(op.bias, c))


def _batch_stats(
    em: KernelEmitter, op: norm.BatchNormTrainOp, ch: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """Mean and biased variance of channel ``ch`` (two passes over N and the
    spatial axes), cached on the channel index."""
    shape = tensor_of(op.input).get_shape()
    t = elem_type(op.input)
    extents = [shape[0], *shape[2:]]
    count = em.scalar_constant(float(math.prod(extents)), t)
    zero = em.scalar_constant(0.0, t)

    def element(ivs: list[SSAValue]) -> SSAValue:
        return em.value_at(op.input, [ivs[0], ch, *ivs[1:]])

    def mean() -> SSAValue:
        total = reduce_dims(em, extents, zero, lambda ivs, acc: s_acc(em, acc, element(ivs)))
        return s_div(em, total, count)

    m = em.cached(("batch_norm_train.mean", op), [ch], mean)

    def var() -> SSAValue:
        def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
            d = s_sub(em, element(ivs), m)
            return s_mac(em, acc, d, d, reduction=True)

        return s_div(em, reduce_dims(em, extents, zero, body), count)

    v = em.cached(("batch_norm_train.var", op), [ch], var)
    return m, v


@register_loop_order(norm.BatchNormTrainOp)
def _batch_norm_train_order(op: norm.BatchNormTrainOp, result_index: int) -> list[int]:
    """Channel outermost: each channel's mean and variance are computed once."""
    rank = len(tensor_of(op.results[result_index]).get_shape())
    return axis_outermost(rank, 1) if result_index == 0 else list(range(rank))


def axis_outermost(rank: int, axis: int) -> list[int]:
    return [axis] + [d for d in range(rank) if d != axis]


@register_compute_rule(norm.BatchNormTrainOp)
def _batch_norm_train(
    em: KernelEmitter, op: norm.BatchNormTrainOp, result_index: int, idx: list[SSAValue]
) -> SSAValue:
    """Result 0: ``(x - mean) / sqrt(var + eps) * scale + bias`` with the
    batch statistics; results 1 and 2: the statistics themselves."""
    ch = idx[0] if result_index else idx[1]
    m, v = _batch_stats(em, op, ch)
    if result_index == 1:
        return m
    if result_index == 2:
        return v
    t = elem_type(op.result)
    denom = em.cached(
        ("batch_norm_train.denom", op),
        [ch],
        lambda: s_sqrt(em, s_add(em, v, em.scalar_constant(op.epsilon, t))),
    )
    centred = s_sub(em, em.value_at(op.input, idx), m)
    y = s_mul(em, s_div(em, centred, denom), em.value_at(op.scale, [ch]))
    return s_add(em, y, em.value_at(op.bias, [ch]))


@register_compute_rule(norm.LayerNormOp)
def _layer_norm(em: KernelEmitter, op: norm.LayerNormOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Row statistics over the axes from ``axis`` on, cached per row (the
    outer indices), then ``(x - mean) / sqrt(var + eps) * scale + bias``."""
    axis = op.normalized_axis
    shape = tensor_of(op.input).get_shape()
    t = elem_type(op.result)
    outer = idx[:axis]
    extents = shape[axis:]
    count = em.scalar_constant(float(math.prod(extents)), t)
    zero = em.scalar_constant(0.0, t)

    def element(ivs: list[SSAValue]) -> SSAValue:
        return em.value_at(op.input, [*outer, *ivs])

    def mean() -> SSAValue:
        total = reduce_dims(em, extents, zero, lambda ivs, acc: s_acc(em, acc, element(ivs)))
        return s_div(em, total, count)

    m = em.cached(("layer_norm.mean", op), outer, mean)

    def denom() -> SSAValue:
        def body(ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
            d = s_sub(em, element(ivs), m)
            return s_mac(em, acc, d, d, reduction=True)

        var = s_div(em, reduce_dims(em, extents, zero, body), count)
        sd = s_sqrt(em, s_add(em, var, em.scalar_constant(op.epsilon, t)))
        return s_div(em, em.scalar_constant(1.0, t), sd)

    # one reciprocal per row, a multiply per element (within 1 ulp of dividing)
    inv_sd = em.cached(("layer_norm.inv_denom", op), outer, denom)
    row = idx[axis:]
    y = s_mul(em, s_sub(em, em.value_at(op.input, idx), m), inv_sd)
    y = s_mul(em, y, em.value_at(op.scale, broadcast_indices(em, op.scale, row)))
    return s_add(em, y, em.value_at(op.bias, broadcast_indices(em, op.bias, row)))


# --------------------------------------------------------------------------
# local response normalization
# --------------------------------------------------------------------------


def s_pow(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(mathd.PowFOp(a, b)))


def lrn_square_sum(em: KernelEmitter, x: SSAValue, size: int, idx: list[SSAValue], channels: int) -> SSAValue:
    """``sum x[n, c'] ^ 2`` over the LRN window of channel ``idx[1]``; channels
    outside ``[0, C)`` are skipped (one unsigned compare each)."""
    before, _ = nn.lrn_window(size)
    t = elem_type(x)
    zero = em.scalar_constant(0.0, t)
    origin = idx_sub_const(em, idx[1], before)

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        ch, ok = tap_index(em, origin, ivs[0], 1, channels, True)
        v = em.value_at(x, [idx[0], ch, *idx[2:]])
        v = select(em, ok, v, zero)  # type: ignore[arg-type]
        return [s_add(em, accs[0], s_mul(em, v, v))]

    return em.reduce([size], [zero], body)[0]


def lrn_scale(em: KernelEmitter, op, x: SSAValue, size: int, idx: list[SSAValue]) -> SSAValue:
    """``bias + alpha/size * square_sum``."""
    alpha, _, bias = op.params
    t = elem_type(x)
    channels = tensor_of(x).get_shape()[1]
    total = lrn_square_sum(em, x, size, idx, channels)
    return s_add(em, em.scalar_constant(bias, t), s_mul(em, total, em.scalar_constant(alpha / size, t)))


@register_compute_rule(nn.LrnOp)
def _lrn(em: KernelEmitter, op: nn.LrnOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``x / scale ** beta``."""
    t = elem_type(op.result)
    scale = lrn_scale(em, op, op.input, op.window_size, idx)
    denom = s_pow(em, scale, em.scalar_constant(op.params[1], t))
    return s_div(em, em.value_at(op.input, idx), denom)
