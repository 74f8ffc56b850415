"""Compute rules for the gradient ops of ``graphopt.dialects.graph`` (add_n,
the window backward ops, lrn_grad, slice_grad, gather_grad).

The window backward ops read the output gradient "in reverse": for input
row ``h`` and kernel tap ``kh`` the output row is ``oh = (h + pad_top -
kh*dil) / stride``, which exists only if the division is exact and in range.
Indices are clamped into range before every load and the value is masked
with a select (never an out-of-bounds load).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from graphopt.dialects import graph as graph_grad
from graphopt.dialects.graph import tensor_of
from graphopt.lowering.compute_rules import elem_type, register_compute_rule, s_add, s_div, s_mul
from graphopt.lowering.kernel_emitter import KernelEmitter
from graphopt.lowering.register_tile import tile_value
from graphopt.lowering.rules_nn import lrn_scale, s_pow, tap_index


@register_compute_rule(graph_grad.AddNOp)
def _add_n(em: KernelEmitter, op: graph_grad.AddNOp, _: int, idx: list[SSAValue]) -> SSAValue:
    total = em.value_at(op.inputs[0], idx)
    for v in op.inputs[1:]:
        total = s_add(em, total, em.value_at(v, idx))
    return total


# -- index helpers -------------------------------------------------------------


def _r(em: KernelEmitter, op) -> SSAValue:
    return em.emit(op).results[0]


def _cmp(em: KernelEmitter, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    return _r(em, arith.CmpiOp(a, b, pred))


def _and(em: KernelEmitter, a: SSAValue | None, b: SSAValue) -> SSAValue:
    return b if a is None else _r(em, arith.AndIOp(a, b))


def _select(em: KernelEmitter, cond: SSAValue | None, a: SSAValue, b: SSAValue) -> SSAValue:
    return a if cond is None else _r(em, arith.SelectOp(cond, a, b))


def _clamp(em: KernelEmitter, v: SSAValue, hi: int) -> SSAValue:
    v = _r(em, arith.MaxSIOp(v, em.index(0)))
    return _r(em, arith.MinSIOp(v, em.index(hi)))


def reverse_window_index(
    em: KernelEmitter, i: SSAValue, tap: SSAValue, pad: int, stride: int, dil: int, out_extent: int
) -> tuple[SSAValue, SSAValue | None]:
    """The output position whose window reads input ``i`` at ``tap`` (clamped
    into range), and the i1 condition that it exists (None: always)."""
    t = em.idx_add(i, em.index(pad)) if pad else i
    t = _r(em, arith.SubiOp(t, em.idx_mul(tap, dil)))
    hi = stride * (out_extent - 1)
    valid = _and(em, _cmp(em, "sge", t, em.index(0)), _cmp(em, "sle", t, em.index(hi)))
    if stride > 1:
        rem = _r(em, arith.RemSIOp(t, em.index(stride)))
        valid = _and(em, valid, _cmp(em, "eq", rem, em.index(0)))
    return em.idx_div(_clamp(em, t, hi), stride), valid


def forward_window_index(
    em: KernelEmitter, o: SSAValue, tap: SSAValue, pad: int, stride: int, dil: int, in_extent: int
) -> tuple[SSAValue, SSAValue]:
    """The input position window ``o`` reads at ``tap`` (clamped) and whether
    it is inside the input."""
    t = em.idx_add(em.idx_mul(o, stride), em.idx_mul(tap, dil))
    if pad:
        t = _r(em, arith.SubiOp(t, em.index(pad)))
    valid = _and(em, _cmp(em, "sge", t, em.index(0)), _cmp(em, "slt", t, em.index(in_extent)))
    return _clamp(em, t, in_extent - 1), valid


# -- convolution -----------------------------------------------------------------


@register_compute_rule(graph_grad.Conv2dGradInputOp)
def _conv_grad_input(em: KernelEmitter, op: graph_grad.Conv2dGradInputOp, _: int, idx: list[SSAValue]) -> SSAValue:
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled  # the transposed-conv micro-kernel's (conv_grad.py)
    n, c, h, w = idx
    f, cg, kh, kw = tensor_of(op.weight).get_shape()
    oh, ow = tensor_of(op.grad).get_shape()[2:]
    (sh, sw), (dh, dw) = op.stride_values, op.dilation_values
    pt, pl, _, _ = op.pad_values
    groups = op.group_count
    fg = f // groups
    t = elem_type(op.result)
    zero = em.scalar_constant(0.0, t)
    cc = em.idx_rem(c, cg) if groups > 1 else c
    base = em.idx_mul(em.idx_div(c, cg), fg) if groups > 1 else None
    width = tensor_of(op.result).get_shape()[3]
    inner = em.innermost
    if (
        sw == 1
        and inner is not None
        and inner[0] is w
        and inner[1] == width >= ROW_MIN_WIDTH
        and all(em.scope_for([v]).depth < em.scope_for([w]).depth for v in (n, c, h))
    ):
        row = em.cached(
            ("conv2d_grad_input.row", op), [n, c, h],
            lambda: _conv_grad_input_row(em, op, n, h, cc, base),
        )
        return em.load(row, [w])

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        fi, i, j = ivs
        ff = em.idx_add(base, fi) if base is not None else fi
        r, vr = reverse_window_index(em, h, i, pt, sh, dh, oh)
        q, vq = reverse_window_index(em, w, j, pl, sw, dw, ow)
        prod = s_mul(em, em.value_at(op.grad, [n, ff, r, q]), em.value_at(op.weight, [ff, cc, i, j]))
        return [s_add(em, accs[0], _select(em, _and(em, vr, vq), prod, zero))]

    return em.reduce([fg, kh, kw], [zero], body)[0]


#: Rows narrower than this use the dot-product form.  (The f32 ops of 16 or
#: more channels per group take conv_grad.py's micro-kernel instead; the row
#: is 4-6x faster than the dot products for f64 and small groups.)
ROW_MIN_WIDTH = 4


def _conv_grad_input_row(
    em: KernelEmitter,
    op: graph_grad.Conv2dGradInputOp,
    n: SSAValue,
    h: SSAValue,
    cc: SSAValue,
    base: SSAValue | None,
) -> SSAValue:
    """``row[w] = dx[n, c, h, w]`` for every ``w`` (column stride 1), into a
    stack buffer: loops over the group's filters and the kernel rows run in
    the kernel, ``j`` is unrolled so each tap's valid range of ``w`` is
    static, and the inner loop reads a row of ``dy`` contiguously."""
    f, _, kh, kw = tensor_of(op.weight).get_shape()
    oh, ow = tensor_of(op.grad).get_shape()[2:]
    width = tensor_of(op.result).get_shape()[3]
    sh, _ = op.stride_values
    dh, dw = op.dilation_values
    pt, pl, _, _ = op.pad_values
    fg = f // op.group_count
    t = elem_type(op.result)
    zero = em.scalar_constant(0.0, t)
    row = em.local_buffer([width], t)
    em.loop(width, lambda ww: em.store(zero, row, [ww]))

    def filter_row(fi: SSAValue) -> None:
        ff = em.idx_add(base, fi) if base is not None else fi

        def tap_row(i: SSAValue) -> None:
            r, valid = reverse_window_index(em, h, i, pt, sh, dh, oh)
            for j in range(kw):
                offset = pl - j * dw  # dy column = w + offset
                lo, hi = max(0, -offset), min(width, ow - offset)
                if lo >= hi:
                    continue
                wv = em.value_at(op.weight, [ff, cc, i, em.index(j)])

                def column(ww: SSAValue, wv: SSAValue = wv, offset: int = offset) -> None:
                    q = em.idx_add(ww, em.index(offset)) if offset else ww
                    g = em.value_at(op.grad, [n, ff, r, q])
                    # No output row reads this input at tap i: no term at all
                    # (masking the product, not the weight, keeps a non-finite
                    # value read at the clamped row from leaking in).
                    prod = _select(em, valid, s_mul(em, g, wv), zero)
                    em.store(s_add(em, em.load(row, [ww]), prod), row, [ww])

                em.loop(hi, column, start=lo)

        em.loop(kh, tap_row) if kh > 1 else tap_row(em.index(0))

    em.loop(fg, filter_row) if fg > 1 else filter_row(em.index(0))
    return row


@register_compute_rule(graph_grad.Conv2dGradFilterOp)
def _conv_grad_filter(em: KernelEmitter, op: graph_grad.Conv2dGradFilterOp, _: int, idx: list[SSAValue]) -> SSAValue:
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled  # the GEMM micro-kernel's sum (conv_grad.py)
    f, cc, i, j = idx
    n, c, h, w = tensor_of(op.input).get_shape()
    fo, oh, ow = tensor_of(op.grad).get_shape()[1:]
    (sh, sw), (dh, dw) = op.stride_values, op.dilation_values
    pt, pl, _, _ = op.pad_values
    groups = op.group_count
    cg, fg = c // groups, fo // groups
    ch = em.idx_add(em.idx_mul(em.idx_div(f, fg), cg), cc) if groups > 1 else cc
    t = elem_type(op.result)
    zero = em.scalar_constant(0.0, t)

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        b, r, q = ivs
        ih, vh = forward_window_index(em, r, i, pt, sh, dh, h)
        iw, vw = forward_window_index(em, q, j, pl, sw, dw, w)
        # Padding is a real zero that is multiplied, as in the forward conv2d.
        x = _select(em, _and(em, vh, vw), em.value_at(op.input, [b, ch, ih, iw]), zero)
        return [s_add(em, accs[0], s_mul(em, em.value_at(op.grad, [b, f, r, q]), x))]

    return em.reduce([n, oh, ow], [zero], body)[0]


# -- pooling -----------------------------------------------------------------------


def _pool_grad_window(op: graph_grad.MaxPool2dGradOp | graph_grad.AvgPool2dGradOp):
    """``(H, W)`` of the input (the result), ``(OH, OW)`` of the gradient, the
    kernel, the strides, the dilations and the leading pads ``(top, left)``."""
    hin, win = tensor_of(op.result).get_shape()[2:]
    oh, ow = tensor_of(op.grad).get_shape()[2:]
    kh, kw = op.kernel.get_values()
    pt, pl, _, _ = op.pad_values
    return (hin, win), (oh, ow), (kh, kw), op.stride_values, op.dilation_values, (pt, pl)


@register_compute_rule(graph_grad.MaxPool2dGradOp)
def _max_pool_grad(em: KernelEmitter, op: graph_grad.MaxPool2dGradOp, _: int, idx: list[SSAValue]) -> SSAValue:
    n, c, h, w = idx
    (hin, win), (oh, ow), (kh, kw), (sh, sw), (dh, dw), (pt, pl) = _pool_grad_window(op)
    t = elem_type(op.result)
    zero = em.scalar_constant(0.0, t)

    def first_argmax(r: SSAValue, q: SSAValue) -> SSAValue:
        """The tap (i*KW + j) of the first maximum of window (r, q)."""

        def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
            i, j = ivs
            ih, vh = forward_window_index(em, r, i, pt, sh, dh, hin)
            iw, vw = forward_window_index(em, q, j, pl, sw, dw, win)
            x = _select(em, _and(em, vh, vw), em.value_at(op.input, [n, c, ih, iw]),
                        em.scalar_constant(-math.inf, t))
            # NaN counts as the maximum (numpy's argmax, PyTorch): the first
            # NaN of the window wins, and nothing after it.
            better = _r(em, arith.AndIOp(
                _r(em, arith.CmpfOp(x, accs[0], "ugt")), _r(em, arith.CmpfOp(accs[0], accs[0], "ord"))
            ))
            tap = em.idx_add(em.idx_mul(i, kw), j)
            return [_select(em, better, x, accs[0]), _select(em, better, tap, accs[1])]

        inits = [em.scalar_constant(-math.inf, t), em.index(0)]
        return em.reduce([kh, kw], inits, body)[1]

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        i, j = ivs
        r, vr = reverse_window_index(em, h, i, pt, sh, dh, oh)
        q, vq = reverse_window_index(em, w, j, pl, sw, dw, ow)
        best = em.cached(("max_pool.argmax", op), [n, c, r, q], lambda: first_argmax(r, q))
        hit = _cmp(em, "eq", best, em.idx_add(em.idx_mul(i, kw), j))
        cond = _and(em, _and(em, vr, vq), hit)
        return [s_add(em, accs[0], _select(em, cond, em.value_at(op.grad, [n, c, r, q]), zero))]

    return em.reduce([kh, kw], [zero], body)[0]


@register_compute_rule(graph_grad.AvgPool2dGradOp)
def _avg_pool_grad(em: KernelEmitter, op: graph_grad.AvgPool2dGradOp, _: int, idx: list[SSAValue]) -> SSAValue:
    n, c, h, w = idx
    (hin, win), (oh, ow), (kh, kw), (sh, sw), (dh, dw), (pt, pl) = _pool_grad_window(op)
    t = elem_type(op.result)
    zero, one = em.scalar_constant(0.0, t), em.scalar_constant(1.0, t)

    def taps_inside(o: SSAValue, k: int, pad: int, stride: int, dil: int, extent: int) -> SSAValue:
        def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
            _, inside = forward_window_index(em, o, ivs[0], pad, stride, dil, extent)
            return [s_add(em, accs[0], _select(em, inside, one, zero))]

        return em.reduce([k], [zero], body)[0]

    _, _, pb, pr = op.pad_values

    def divisor(r: SSAValue, q: SSAValue) -> SSAValue:
        if op.count_include_pad is not None:
            # taps inside the padded input; KH*KW when every window fits in it
            if ((oh - 1) * sh + (kh - 1) * dh < hin + pt + pb
                    and (ow - 1) * sw + (kw - 1) * dw < win + pl + pr):
                return em.scalar_constant(float(kh * kw), t)
            rows = em.cached(("avg_pool.rows", op), [r], lambda: taps_inside(r, kh, 0, sh, dh, hin + pt + pb))
            cols = em.cached(("avg_pool.cols", op), [q], lambda: taps_inside(q, kw, 0, sw, dw, win + pl + pr))
            return s_mul(em, rows, cols)
        rows = em.cached(("avg_pool.rows", op), [r], lambda: taps_inside(r, kh, pt, sh, dh, hin))
        cols = em.cached(("avg_pool.cols", op), [q], lambda: taps_inside(q, kw, pl, sw, dw, win))
        return s_mul(em, rows, cols)

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        i, j = ivs
        r, vr = reverse_window_index(em, h, i, pt, sh, dh, oh)
        q, vq = reverse_window_index(em, w, j, pl, sw, dw, ow)
        share = s_div(em, em.value_at(op.grad, [n, c, r, q]), divisor(r, q))
        return [s_add(em, accs[0], _select(em, _and(em, vr, vq), share, zero))]

    return em.reduce([kh, kw], [zero], body)[0]


@register_compute_rule(graph_grad.LrnGradOp)
def _lrn_grad(em: KernelEmitter, op: graph_grad.LrnGradOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``g[k] s[k]^-beta - 2 alpha beta / size * x[k] * sum_c g[c] x[c] s[c]^(-beta-1)``
    over the channels ``c`` whose window holds ``k``; ``s`` is the forward
    rule's scale (see ``rules_nn.lrn_scale``)."""
    size = op.window_size
    alpha, beta, _ = op.params
    t = elem_type(op.result)
    channels = tensor_of(op.input).get_shape()[1]
    after = size // 2
    zero = em.scalar_constant(0.0, t)
    origin = _r(em, arith.SubiOp(idx[1], em.index(after))) if after else idx[1]

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        ch, ok = tap_index(em, origin, ivs[0], 1, channels, True)
        at = [idx[0], ch, *idx[2:]]
        s = lrn_scale(em, op, op.input, size, at)
        term = s_mul(em, s_mul(em, em.value_at(op.grad, at), em.value_at(op.input, at)),
                     s_pow(em, s, em.scalar_constant(-beta - 1.0, t)))
        return [s_add(em, accs[0], _select(em, ok, term, zero))]

    back = em.reduce([size], [zero], body)[0]
    s_k = lrn_scale(em, op, op.input, size, idx)
    direct = s_mul(em, em.value_at(op.grad, idx), s_pow(em, s_k, em.scalar_constant(-beta, t)))
    coeff = em.scalar_constant(2.0 * alpha * beta / size, t)
    return _r(em, arith.SubfOp(direct, s_mul(em, s_mul(em, coeff, em.value_at(op.input, idx)), back)))


__all__ = ["forward_window_index", "reverse_window_index"]


# -- scatter-style ops ---------------------------------------------------------------


@register_compute_rule(graph_grad.SliceGradOp)
def _slice_grad(em: KernelEmitter, op: graph_grad.SliceGradOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``out[i] = g[(i - first) / step]`` where that is exact and in range, else 0."""
    counts = tensor_of(op.grad).get_shape()
    valid: SSAValue | None = None
    src: list[SSAValue] = []
    for i, first, step, count in zip(idx, op.firsts.get_values(), op.steps.get_values(), counts):
        if step > 0:
            t = _r(em, arith.SubiOp(i, em.index(first))) if first else i
        else:
            t = _r(em, arith.SubiOp(em.index(first), i))
        stride, hi = abs(step), abs(step) * (count - 1)
        ok = _and(em, _cmp(em, "sge", t, em.index(0)), _cmp(em, "sle", t, em.index(hi)))
        if stride > 1:
            ok = _and(em, ok, _cmp(em, "eq", _r(em, arith.RemSIOp(t, em.index(stride))), em.index(0)))
        valid = _and(em, valid, ok)
        src.append(em.idx_div(_clamp(em, t, hi), stride))
    g = em.value_at(op.grad, src)
    return _select(em, valid, g, em.scalar_constant(0.0, elem_type(op.result)))


@register_compute_rule(graph_grad.GatherGradOp)
def _gather_grad(em: KernelEmitter, op: graph_grad.GatherGradOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``out[..., j, ...] = sum over index positions p with index[p] == j of g[..., p, ...]``."""
    a = op.axis_value
    dim = tensor_of(op.result).get_shape()[a]
    ishape = tensor_of(op.indices).get_shape()
    t = elem_type(op.result)
    zero = em.scalar_constant(0.0, t)
    i64t = elem_type(op.indices)
    j = _r(em, arith.IndexCastOp(idx[a], i64t))

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        k = em.value_at(op.indices, ivs)
        wrapped = _r(em, arith.AddiOp(k, em.scalar_constant(dim, i64t)))
        k = _select(em, _cmp(em, "slt", k, em.scalar_constant(0, i64t)), wrapped, k)
        k = _r(em, arith.MaxSIOp(k, em.scalar_constant(0, i64t)))
        k = _r(em, arith.MinSIOp(k, em.scalar_constant(dim - 1, i64t)))
        g = em.value_at(op.grad, [*idx[:a], *ivs, *idx[a + 1:]])
        return [s_add(em, accs[0], _select(em, _cmp(em, "eq", k, j), g, zero))]

    return em.reduce(list(ishape), [zero], body)[0]
