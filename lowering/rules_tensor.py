"""Compute rules for the layout, indexing and value-making ops of
``graphopt.dialects.graph``.

Rules that may index outside an operand (concat, pad, gather) never load out
of bounds: they clamp the index into range, load, then select.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32
from xdsl.ir import SSAValue

from graphopt.dialects import graph as gt
from graphopt.dialects.graph import tensor_of
from graphopt.dialects.graph import (
    HASH_GOLDEN,
    HASH_KEEP_BITS,
    HASH_MUL1,
    HASH_MUL2,
    dropout_threshold,
)
from graphopt.lowering.compute_rules import (
    broadcast_indices,
    delinearize,
    elem_type,
    linearize,
    register_compute_rule,
    result,
    s_mul,
)
from graphopt.lowering.kernel_emitter import KernelEmitter

# --------------------------------------------------------------------------
# index helpers
# --------------------------------------------------------------------------


def idx_sub_const(em: KernelEmitter, a: SSAValue, c: int) -> SSAValue:
    if c == 0:
        return a
    return result(em.emit(arith.SubiOp(a, em.index(c))))


def idx_add_const(em: KernelEmitter, a: SSAValue, c: int) -> SSAValue:
    if c == 0:
        return a
    return em.idx_add(a, em.index(c))


def idx_lt(em: KernelEmitter, a: SSAValue, c: int, unsigned: bool = False) -> SSAValue:
    """``a < c`` on index values; unsigned also rejects negative ``a``."""
    return result(em.emit(arith.CmpiOp(a, em.index(c), "ult" if unsigned else "slt")))


def clamp(em: KernelEmitter, a: SSAValue, lo: int | None, hi: int | None) -> SSAValue:
    """``a`` clamped into ``[lo, hi]`` (a bound of None is not applied)."""
    if lo is not None:
        a = result(em.emit(arith.MaxSIOp(a, em.index(lo))))
    if hi is not None:
        a = result(em.emit(arith.MinSIOp(a, em.index(hi))))
    return a


def select(em: KernelEmitter, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(arith.SelectOp(cond, a, b)))


def replace_at(idx: Sequence[SSAValue], axis: int, value: SSAValue) -> list[SSAValue]:
    return [value if d == axis else v for d, v in enumerate(idx)]


# --------------------------------------------------------------------------
# concat and split
# --------------------------------------------------------------------------


@register_compute_rule(gt.ConcatOp)
def _concat(em: KernelEmitter, op: gt.ConcatOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Read every input at the axis index minus its offset (clamped into the
    input), then pick the right one with a chain of selects on the offsets."""
    axis = op.normalized_axis
    a = idx[axis]
    pieces: list[tuple[int, SSAValue]] = []  # (offset, input), empty inputs skipped
    offset = 0
    for v in op.inputs:
        n = tensor_of(v).get_shape()[axis]
        if n:
            pieces.append((offset, v))
        offset += n
    if not pieces:  # the output is empty: this code never runs
        return em.value_at(op.inputs[0], idx)

    def read(k: int) -> SSAValue:
        off, v = pieces[k]
        n = tensor_of(v).get_shape()[axis]
        local = idx_sub_const(em, a, off)
        local = clamp(em, local, 0 if k > 0 else None, n - 1 if k < len(pieces) - 1 else None)
        return em.value_at(v, replace_at(idx, axis, local))

    value = read(len(pieces) - 1)
    for k in range(len(pieces) - 2, -1, -1):
        value = select(em, idx_lt(em, a, pieces[k + 1][0]), read(k), value)
    return value


@register_compute_rule(gt.SplitOp)
def _split(em: KernelEmitter, op: gt.SplitOp, result_index: int, idx: list[SSAValue]) -> SSAValue:
    axis = op.normalized_axis
    start = op.offsets()[result_index]
    return em.value_at(op.input, replace_at(idx, axis, idx_add_const(em, idx[axis], start)))


# --------------------------------------------------------------------------
# slice, pad, gather
# --------------------------------------------------------------------------


@register_compute_rule(gt.SliceOp)
def _slice(em: KernelEmitter, op: gt.SliceOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``in[first + step * out]`` per axis (the step may be negative)."""
    in_idx = [
        idx_add_const(em, em.idx_mul(v, step), first)
        for v, (first, step, _count) in zip(idx, op.axis_ranges())
    ]
    return em.value_at(op.input, in_idx)


@register_compute_rule(gt.PadOp)
def _pad(em: KernelEmitter, op: gt.PadOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``in[out - begin]`` where that is inside the input, else the pad value.
    One unsigned compare per padded axis checks both ends."""
    shape = tensor_of(op.input).get_shape()
    pads = op.pad_values
    rank = len(shape)
    pad_value = em.scalar_constant(op.scalar, elem_type(op.result))
    if 0 in shape:
        return pad_value
    in_idx: list[SSAValue] = []
    inside: SSAValue | None = None
    for d, (v, n) in enumerate(zip(idx, shape)):
        begin, end = pads[d], pads[rank + d]
        local = idx_sub_const(em, v, begin)
        if begin == 0 and end == 0:
            in_idx.append(local)
            continue
        ok = idx_lt(em, local, n, unsigned=True)
        in_idx.append(select(em, ok, local, em.index(0)))
        inside = ok if inside is None else result(em.emit(arith.AndIOp(inside, ok)))
    value = em.value_at(op.input, in_idx)
    return value if inside is None else select(em, inside, value, pad_value)


@register_compute_rule(gt.GatherOp)
def _gather(em: KernelEmitter, op: gt.GatherOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Wrap a negative index once, clamp it into the axis, then read."""
    axis = op.normalized_axis
    n = tensor_of(op.data).get_shape()[axis]
    q = len(tensor_of(op.indices).get_shape())
    raw = em.value_at(op.indices, idx[axis:axis + q])
    k = result(em.emit(arith.IndexCastOp(raw, IndexType())))
    negative = idx_lt(em, k, 0)
    k = select(em, negative, idx_add_const(em, k, n), k)
    k = clamp(em, k, 0, max(n - 1, 0))
    return em.value_at(op.data, [*idx[:axis], k, *idx[axis + q:]])


# --------------------------------------------------------------------------
# broadcast_to, expand_dims, squeeze, flatten
# --------------------------------------------------------------------------


@register_compute_rule(gt.BroadcastToOp)
def _broadcast_to(em: KernelEmitter, op: gt.BroadcastToOp, _: int, idx: list[SSAValue]) -> SSAValue:
    return em.value_at(op.input, broadcast_indices(em, op.input, idx))


@register_compute_rule(gt.ExpandDimsOp)
def _expand_dims(em: KernelEmitter, op: gt.ExpandDimsOp, _: int, idx: list[SSAValue]) -> SSAValue:
    new = set(op.normalized_axes)
    return em.value_at(op.input, [v for d, v in enumerate(idx) if d not in new])


@register_compute_rule(gt.SqueezeOp)
def _squeeze(em: KernelEmitter, op: gt.SqueezeOp, _: int, idx: list[SSAValue]) -> SSAValue:
    dropped = set(op.normalized_axes)
    kept = iter(idx)
    rank = len(tensor_of(op.input).get_shape())
    return em.value_at(op.input, [em.index(0) if d in dropped else next(kept) for d in range(rank)])


@register_compute_rule(gt.FlattenOp)
def _flatten(em: KernelEmitter, op: gt.FlattenOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Row ``i`` spreads over the axes before ``axis``, column ``j`` over the rest."""
    shape = tensor_of(op.input).get_shape()
    a = op.normalized_axis
    outer, inner = idx
    return em.value_at(op.input, [*delinearize(em, outer, shape[:a]), *delinearize(em, inner, shape[a:])])


# --------------------------------------------------------------------------
# fill, zeros_like, ones_like, dropout, copy
# --------------------------------------------------------------------------


@register_compute_rule(gt.FillOp)
def _fill(em: KernelEmitter, op: gt.FillOp, _: int, idx: list[SSAValue]) -> SSAValue:
    return em.scalar_constant(op.scalar, elem_type(op.result))


@register_compute_rule(gt.ZerosLikeOp, gt.OnesLikeOp)
def _like(em: KernelEmitter, op, _: int, idx: list[SSAValue]) -> SSAValue:
    return em.scalar_constant(1 if isinstance(op, gt.OnesLikeOp) else 0, elem_type(op.result))


@register_compute_rule(gt.CopyOp)
def _copy(em: KernelEmitter, op: gt.CopyOp, _: int, idx: list[SSAValue]) -> SSAValue:
    return em.value_at(op.input, idx)


def _i32(em: KernelEmitter, value: int) -> SSAValue:
    value &= 0xFFFFFFFF
    signed = value - (1 << 32) if value >= 1 << 31 else value
    return em.cached(
        ("i32", signed), (), lambda: result(em.emit(arith.ConstantOp(IntegerAttr(signed, i32), i32)))
    )


def _u32_op(em: KernelEmitter, cls, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(cls(a, b)))


def emit_dropout_hash(em: KernelEmitter, seed: int, linear: SSAValue) -> SSAValue:
    """:func:`graph.fill.dropout_hash` on i32 (wrapping mul, xor, logical shifts)."""
    h = result(em.emit(arith.IndexCastOp(linear, i32)))
    h = _u32_op(em, arith.MuliOp, h, _i32(em, HASH_GOLDEN))
    h = _u32_op(em, arith.XOrIOp, h, _i32(em, seed))
    for shift, mul in ((16, HASH_MUL1), (13, HASH_MUL2), (16, None)):
        h = _u32_op(em, arith.XOrIOp, h, _u32_op(em, arith.ShRUIOp, h, _i32(em, shift)))
        if mul is not None:
            h = _u32_op(em, arith.MuliOp, h, _i32(em, mul))
    return h


@register_compute_rule(gt.DropoutOp)
def _dropout(em: KernelEmitter, op: gt.DropoutOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    if not op.is_training:
        return x
    t = elem_type(op.result)
    linear = linearize(em, idx, tensor_of(op.result).get_shape())
    h = emit_dropout_hash(em, op.seed_value, linear)
    bits = _u32_op(em, arith.ShRUIOp, h, _i32(em, 32 - HASH_KEEP_BITS))
    keep = result(
        em.emit(arith.CmpiOp(bits, _i32(em, dropout_threshold(op.rate_value)), "sge"))
    )
    scaled = s_mul(em, x, em.scalar_constant(op.scale, t))
    return select(em, keep, scaled, em.scalar_constant(0.0, t))
