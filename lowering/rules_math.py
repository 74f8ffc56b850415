"""Compute rules for the elementwise ops of ``graphopt.dialects.graph`` and
the reductions beyond sum, mean and max.

Float comparisons use ordered predicates (false on NaN), as numpy does; the
NaN-propagating ``minimumf`` matches numpy's ``minimum``/``min``.  argmax
carries (best value, best index) through its loop and takes a new element
when it is strictly greater -- or is the first NaN -- so ties keep the first
index.  log_softmax hoists a row's max and log-sum-exp with ``em.cached``,
exactly as softmax does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType, i64
from xdsl.ir import Attribute, SSAValue

from graphopt.dialects import graph as gm
from graphopt.dialects import graph as gr
from graphopt.dialects.graph import (
    BinaryBroadcastOp,
    f32,
    i1,
    tensor_of,
)
from graphopt.lowering.compute_rules import (
    broadcast_indices,
    elem_type,
    is_float,
    lowest,
    reduce_axes,
    register_compute_rule,
    result,
    s_add,
    s_max,
    s_mul,
    s_sub,
    stable_row_stats,
)
from graphopt.lowering.kernel_emitter import KernelEmitter


def s_min(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    """NaN-propagating minimum, as numpy's ``minimum``."""
    return em.pick(a, b, "olt") if is_float(a.type) else result(em.emit(arith.MinSIOp(a, b)))


def s_min_reduce(em: KernelEmitter, acc: SSAValue, x: SSAValue) -> SSAValue:
    """:func:`s_min` as a reduction step (see ``s_max_reduce``)."""
    return result(em.emit(arith.MinimumfOp(acc, x) if is_float(acc.type) else arith.MinSIOp(acc, x)))


def s_cmp(em: KernelEmitter, a: SSAValue, b: SSAValue, float_pred: str, int_pred: str) -> SSAValue:
    if is_float(a.type):
        return result(em.emit(arith.CmpfOp(a, b, float_pred)))
    return result(em.emit(arith.CmpiOp(a, b, int_pred)))


def s_select(em: KernelEmitter, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(arith.SelectOp(cond, a, b)))


def highest(t: Attribute) -> float | int:
    if is_float(t):
        return math.inf
    assert isinstance(t, IntegerType)
    return (1 << (t.width.data - 1)) - 1


def const(em: KernelEmitter, value: float | int, like: SSAValue) -> SSAValue:
    return em.scalar_constant(value, like.type)


# --------------------------------------------------------------------------
# unary
# --------------------------------------------------------------------------

# rsqrt, erf, sin and cos are one math op each: compute_rules' unary table.


@register_compute_rule(gm.AbsOp)
def _abs(em: KernelEmitter, op: gm.AbsOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    return result(em.emit(mathd.AbsFOp(x) if is_float(x.type) else mathd.AbsIOp(x)))


@register_compute_rule(gm.GeluOp)
def _gelu(em: KernelEmitter, op: gm.GeluOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``0.5·x·(1 + erf(x/√2))``, or the tanh form with ``approximate``."""
    x = em.value_at(op.input, idx)
    if op.is_approximate:
        cube = s_mul(em, s_mul(em, x, x), x)
        inner = s_add(em, x, s_mul(em, cube, const(em, gm.GELU_TANH_K, x)))
        t = result(em.emit(mathd.TanhOp(s_mul(em, inner, const(em, gm.GELU_TANH_C, x)))))
    else:
        t = result(em.emit(mathd.ErfOp(s_mul(em, x, const(em, 1.0 / math.sqrt(2.0), x)))))
    half_x = s_mul(em, x, const(em, 0.5, x))
    return s_mul(em, half_x, s_add(em, t, const(em, 1.0, x)))


@register_compute_rule(gm.LeakyReluOp)
def _leaky_relu(em: KernelEmitter, op: gm.LeakyReluOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    positive = s_cmp(em, x, const(em, 0.0, x), "ogt", "sgt")
    return s_select(em, positive, x, s_mul(em, x, const(em, op.alpha_value, x)))


@register_compute_rule(gm.ClipOp)
def _clip(em: KernelEmitter, op: gm.ClipOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    lo, hi = op.typed_bounds()
    return s_min(em, s_max(em, x, const(em, lo, x)), const(em, hi, x))


# --------------------------------------------------------------------------
# binary, comparisons, where
# --------------------------------------------------------------------------


def _pow(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(mathd.PowFOp(a, b)))


def _cmp(float_pred: str, int_pred: str) -> Callable[[KernelEmitter, SSAValue, SSAValue], SSAValue]:
    return lambda em, a, b: s_cmp(em, a, b, float_pred, int_pred)


_BINARY: dict[type[BinaryBroadcastOp], Callable[[KernelEmitter, SSAValue, SSAValue], SSAValue]] = {
    gm.PowOp: _pow,
    gm.MinimumOp: s_min,
    gm.GreaterOp: _cmp("ogt", "sgt"),
    gm.LessOp: _cmp("olt", "slt"),
    gm.EqualOp: _cmp("oeq", "eq"),
}


@register_compute_rule(*_BINARY)
def _binary(em: KernelEmitter, op: BinaryBroadcastOp, _: int, idx: list[SSAValue]) -> SSAValue:
    a = em.value_at(op.lhs, broadcast_indices(em, op.lhs, idx))
    b = em.value_at(op.rhs, broadcast_indices(em, op.rhs, idx))
    return _BINARY[type(op)](em, a, b)


@register_compute_rule(gm.WhereOp)
def _where(em: KernelEmitter, op: gm.WhereOp, _: int, idx: list[SSAValue]) -> SSAValue:
    c = em.value_at(op.cond, broadcast_indices(em, op.cond, idx))
    a = em.value_at(op.lhs, broadcast_indices(em, op.lhs, idx))
    b = em.value_at(op.rhs, broadcast_indices(em, op.rhs, idx))
    return s_select(em, c, a, b)


# --------------------------------------------------------------------------
# cast
# --------------------------------------------------------------------------


def _width(t: Attribute) -> int:
    assert isinstance(t, IntegerType)
    return t.width.data


def emit_cast(em: KernelEmitter, x: SSAValue, to: Attribute) -> SSAValue:
    """Scalar conversion with the semantics of ``graph.cast`` (see CastOp)."""
    src = x.type
    if src == to:
        return x
    if to == i1:
        if is_float(src):
            return s_cmp(em, x, const(em, 0.0, x), "une", "ne")
        return s_cmp(em, x, const(em, 0, x), "une", "ne")
    if is_float(src) and is_float(to):
        wider = src == f32  # f32 -> f64
        return result(em.emit(arith.ExtFOp(x, to) if wider else arith.TruncFOp(x, to)))
    if is_float(src):
        return result(em.emit(arith.FPToSIOp(x, to)))
    unsigned = src == i1
    if is_float(to):
        return result(em.emit(arith.UIToFPOp(x, to) if unsigned else arith.SIToFPOp(x, to)))
    if _width(src) < _width(to):
        return result(em.emit(arith.ExtUIOp(x, to) if unsigned else arith.ExtSIOp(x, to)))
    return result(em.emit(arith.TruncIOp(x, to)))


@register_compute_rule(gm.CastOp)
def _cast(em: KernelEmitter, op: gm.CastOp, _: int, idx: list[SSAValue]) -> SSAValue:
    return emit_cast(em, em.value_at(op.input, idx), elem_type(op.result))


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------


@register_compute_rule(gr.ReduceMinOp, gr.ReduceProdOp)
def _reduce(em: KernelEmitter, op: gr.ReduceMinOp | gr.ReduceProdOp, _: int, idx: list[SSAValue]) -> SSAValue:
    if isinstance(op, gr.ReduceMinOp):
        return reduce_axes(em, op, idx, highest(elem_type(op.result)), s_min_reduce)
    return reduce_axes(em, op, idx, 1, s_mul)


@register_compute_rule(gr.ArgmaxOp)
def _argmax(em: KernelEmitter, op: gr.ArgmaxOp, _: int, idx: list[SSAValue]) -> SSAValue:
    axis = op.normalized_axis
    in_shape = tensor_of(op.input).get_shape()
    t = elem_type(op.input)
    outer = [v for d, v in enumerate(idx) if not (op.keeps_dims and d == axis)]

    def at(k: SSAValue) -> list[SSAValue]:
        return [*outer[:axis], k, *outer[axis:]]

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        best, best_idx = accs
        x = em.value_at(op.input, at(ivs[0]))
        if is_float(t):
            greater = s_cmp(em, x, best, "ogt", "sgt")
            first_nan = result(em.emit(arith.AndIOp(
                s_cmp(em, x, x, "uno", "ne"), s_cmp(em, best, best, "ord", "eq")
            )))
            take = result(em.emit(arith.OrIOp(greater, first_nan)))
        else:
            take = s_cmp(em, x, best, "ogt", "ugt" if t == i1 else "sgt")
        k = result(em.emit(arith.IndexCastOp(ivs[0], i64)))
        return [s_select(em, take, x, best), s_select(em, take, k, best_idx)]

    init = em.scalar_constant(0 if t == i1 else lowest(t), t)
    return em.reduce([in_shape[axis]], [init, em.scalar_constant(0, i64)], body)[1]


@register_compute_rule(gr.LogSoftmaxOp)
def _log_softmax(em: KernelEmitter, op: gr.LogSoftmaxOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``(x - max) - log(sum(exp(x - max)))``; the max, the sum and its log
    are computed once per row."""
    shifted, total, _ = stable_row_stats(em, op, idx)
    log_sum = em.cached(("log_softmax.log", op), [total], lambda: result(em.emit(mathd.LogOp(total))))
    return s_sub(em, shifted(idx[op.normalized_axis]), log_sum)
