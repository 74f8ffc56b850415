"""Converters of ONNX elementwise, activation, comparison, reduction and
normalization-by-axis ops (Softmax, LogSoftmax) into graph ops."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph import FLOAT_TYPES, f64, i1, i32, numpy_dtype
from graphopt.frontends.onnx.importer import ONNX_ELEMENT_TYPES, ConvertError, NodeContext, onnx_type_name
from graphopt.frontends.onnx.registry import converter

# -- unary -----------------------------------------------------------------------

_UNARY = {
    "Neg": graph.NegOp, "Exp": graph.ExpOp, "Log": graph.LogOp, "Sqrt": graph.SqrtOp,
    "Tanh": graph.TanhOp, "Sigmoid": graph.SigmoidOp, "Relu": graph.ReluOp,
    "Abs": graph.AbsOp, "Erf": graph.ErfOp, "Sin": graph.SinOp, "Cos": graph.CosOp,
}


@converter(*_UNARY)
def _unary(ctx: NodeContext):
    x = ctx.value(0)
    if ctx.node.op_type == "Relu" and ctx.elem(0) not in FLOAT_TYPES:
        return [ctx.emit(graph.MaximumOp(x, ctx.const(0, ctx.elem(0))))]
    return [ctx.emit(_UNARY[ctx.node.op_type](x))]


@converter("Reciprocal")
def _reciprocal(ctx: NodeContext):
    return [ctx.emit(graph.DivOp(ctx.const(1.0, ctx.elem(0)), ctx.value(0)))]


@converter("Identity")
def _identity(ctx: NodeContext):
    return [ctx.raw(0)]


@converter("Dropout")
def _dropout(ctx: NodeContext):
    """Inference: identity, and an all-true mask.  ``training_mode`` (opset
    12) must be absent or a constant false."""
    if ctx.has_input(2):
        mode = ctx.require_static(2, "training_mode")
        ratio = float(ctx.require_static(1, "ratio").reshape(-1)[0]) if ctx.has_input(1) else 0.5
        if bool(mode.reshape(-1)[0]) and ratio != 0.0:
            raise ConvertError("training_mode=true is not supported (graph-opt imports for inference)")
    x = ctx.raw(0)
    outs: list = [x]
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        outs.append(np.ones(ctx.shape(0), np.bool_))
    return outs


@converter("LeakyRelu")
def _leaky_relu(ctx: NodeContext):
    return [ctx.emit(graph.LeakyReluOp(ctx.value(0), float(ctx.attr("alpha", 0.01))))]


@converter("Gelu")
def _gelu(ctx: NodeContext):
    approx = ctx.attr("approximate", "none")
    if approx not in ("none", "tanh"):
        raise ConvertError(f"approximate='{approx}' is not one of 'none', 'tanh'")
    return [ctx.emit(graph.GeluOp(ctx.value(0), approximate=approx == "tanh"))]


@converter("HardSigmoid")
def _hard_sigmoid(ctx: NodeContext):
    """``max(0, min(1, alpha*x + beta))``: the ONNX definition, op for op."""
    x, t = ctx.value(0), ctx.elem(0)
    y = ctx.emit(graph.MulOp(x, ctx.const(float(ctx.attr("alpha", 0.2)), t)))
    y = ctx.emit(graph.AddOp(y, ctx.const(float(ctx.attr("beta", 0.5)), t)))
    return [ctx.emit(graph.ClipOp(y, 0.0, 1.0))]


@converter("Clip")
def _clip(ctx: NodeContext):
    """Bounds as attributes (opset < 11) or optional inputs; constant bounds
    become one ``graph.clip``, graph-valued ones maximum/minimum."""
    x = ctx.value(0)
    if ctx.opset < 11:
        lo = float(ctx.attr("min", -math.inf))
        hi = float(ctx.attr("max", math.inf))
        return [ctx.emit(graph.ClipOp(x, lo, hi))]
    bounds: list[float | SSAValue] = []
    for i, default in ((1, -math.inf), (2, math.inf)):
        if not ctx.has_input(i):
            bounds.append(default)
            continue
        s = ctx.static(i)
        bounds.append(float(s.reshape(-1)[0]) if s is not None else ctx.value(i))
    lo, hi = bounds
    if isinstance(lo, float) and isinstance(hi, float):
        return [ctx.emit(graph.ClipOp(x, lo, hi))]
    y = x
    for b, cls in ((lo, graph.MaximumOp), (hi, graph.MinimumOp)):
        if isinstance(b, float):
            if not math.isinf(b):
                y = ctx.emit(cls(y, ctx.const(b, ctx.elem(0))))
        else:
            y = ctx.emit(cls(y, b))
    return [y]


# -- binary and variadic ----------------------------------------------------------

_BINARY = {
    "Add": graph.AddOp, "Sub": graph.SubOp, "Mul": graph.MulOp, "Div": graph.DivOp,
    "Equal": graph.EqualOp, "Greater": graph.GreaterOp, "Less": graph.LessOp,
}


@converter(*_BINARY)
def _binary(ctx: NodeContext):
    if ctx.opset < 7 and ctx.attr("broadcast", 0):
        raise ConvertError("legacy broadcast attribute is not supported")
    a, b = ctx.value(0), ctx.value(1)
    if ctx.node.op_type == "Div" and ctx.elem(0) not in FLOAT_TYPES:
        if ctx.elem(0) != i32:
            raise ConvertError("int64 Div on graph values is not supported (graph.div is a float op)")
        # i32 -> f64 is exact and f64 -> i32 truncates toward zero, as ONNX does
        q = ctx.emit(graph.DivOp(ctx.emit(graph.CastOp(a, f64)), ctx.emit(graph.CastOp(b, f64))))
        return [ctx.emit(graph.CastOp(q, i32))]
    return [ctx.emit(_BINARY[ctx.node.op_type](a, b))]


@converter("GreaterOrEqual", "LessOrEqual")
def _cmp_or_equal(ctx: NodeContext):
    """``a >= b`` as ``not (a < b)`` is wrong on NaN; use ``(a > b) or (a == b)``."""
    a, b = ctx.value(0), ctx.value(1)
    strict = graph.GreaterOp if ctx.node.op_type == "GreaterOrEqual" else graph.LessOp
    s = ctx.emit(strict(a, b))
    e = ctx.emit(graph.EqualOp(a, b))
    return [ctx.emit(graph.WhereOp(s, s, e))]


@converter("Pow")
def _pow(ctx: NodeContext):
    a, b = ctx.value(0), ctx.value(1)
    if ctx.elem(0) == i32:
        # i32 powers in f64 are exact up to 2^53, then wrap like C's cast
        fa = ctx.emit(graph.CastOp(a, f64))
        fb = b if ctx.elem(1) == f64 else ctx.emit(graph.CastOp(b, f64))
        return [ctx.emit(graph.CastOp(ctx.emit(graph.PowOp(fa, fb)), i32))]
    if ctx.elem(1) != ctx.elem(0):
        s = ctx.static(1)
        b = ctx.const(s, ctx.elem(0)) if s is not None else ctx.emit(graph.CastOp(b, ctx.elem(0)))
    return [ctx.emit(graph.PowOp(a, b))]


def _fold_variadic(ctx: NodeContext, cls) -> SSAValue:
    vals = ctx.values()
    acc = vals[0]
    for v in vals[1:]:
        acc = ctx.emit(cls(acc, v))
    return acc


@converter("Sum")
def _sum(ctx: NodeContext):
    return [_fold_variadic(ctx, graph.AddOp)]


@converter("Max")
def _max(ctx: NodeContext):
    return [_fold_variadic(ctx, graph.MaximumOp)]


@converter("Min")
def _min(ctx: NodeContext):
    return [_fold_variadic(ctx, graph.MinimumOp)]


@converter("Mean")
def _mean(ctx: NodeContext):
    total = _fold_variadic(ctx, graph.AddOp)
    n = len([i for i in range(ctx.num_inputs) if ctx.has_input(i)])
    if n == 1:
        return [total]
    return [ctx.emit(graph.DivOp(total, ctx.const(float(n), ctx.elem(0))))]


# -- logic and selection ------------------------------------------------------------


def _require_bool(ctx: NodeContext, i: int) -> None:
    if ctx.elem(i) != i1:
        raise ConvertError(f"input '{ctx.input_name(i)}' must be bool")


@converter("Not")
def _not(ctx: NodeContext):
    _require_bool(ctx, 0)
    x = ctx.value(0)
    return [ctx.emit(graph.EqualOp(x, ctx.const(np.bool_(False))))]


@converter("And", "Or", "Xor")
def _logic(ctx: NodeContext):
    """Selects on i1: ``a and b = a ? b : false``, ``a or b = a ? true : b``,
    ``a xor b = a != b``."""
    _require_bool(ctx, 0)
    _require_bool(ctx, 1)
    a, b = ctx.value(0), ctx.value(1)
    kind = ctx.node.op_type
    if kind == "Xor":
        eq = ctx.emit(graph.EqualOp(a, b))
        return [ctx.emit(graph.EqualOp(eq, ctx.const(np.bool_(False))))]
    shape = graph.broadcast_shapes("onnx." + kind, ctx.shape(0), ctx.shape(1))
    fixed = ctx.const(np.broadcast_to(np.bool_(kind == "Or"), shape))
    if kind == "And":
        return [ctx.emit(graph.WhereOp(a, b, fixed))]
    return [ctx.emit(graph.WhereOp(a, fixed, b))]


@converter("Where")
def _where(ctx: NodeContext):
    return [ctx.emit(graph.WhereOp(ctx.value(0), ctx.value(1), ctx.value(2)))]


@converter("Cast")
def _cast(ctx: NodeContext):
    to = int(ctx.attr("to"))
    if to not in ONNX_ELEMENT_TYPES:
        raise ConvertError(f"Cast to {onnx_type_name(to)} is not supported (float, double, int64, int32, bool)")
    elem = ONNX_ELEMENT_TYPES[to]
    if ctx.elem(0) == elem:
        return [ctx.raw(0)]
    return [ctx.emit(graph.CastOp(ctx.value(0), elem))]


# -- softmax family -------------------------------------------------------------------


def _softmax_like(ctx: NodeContext, cls):
    """Opset >= 13: along ``axis`` (default -1).  Before: the input is
    coerced to 2-D at ``axis`` (default 1) and normalized over the flattened
    trailing axes, then reshaped back."""
    x = ctx.value(0)
    shape = ctx.shape(0)
    if ctx.opset >= 13:
        return [ctx.emit(cls(x, int(ctx.attr("axis", -1))))]
    axis = int(ctx.attr("axis", 1))
    if axis < 0:
        axis += len(shape)
    if axis == len(shape) - 1:
        return [ctx.emit(cls(x, -1))]
    flat = ctx.emit(graph.ReshapeOp(x, [math.prod(shape[:axis]), math.prod(shape[axis:])]))
    y = ctx.emit(cls(flat, -1))
    return [ctx.emit(graph.ReshapeOp(y, list(shape)))]


@converter("Softmax")
def _softmax(ctx: NodeContext):
    return _softmax_like(ctx, graph.SoftmaxOp)


@converter("LogSoftmax")
def _log_softmax(ctx: NodeContext):
    return _softmax_like(ctx, graph.LogSoftmaxOp)


# -- reductions ----------------------------------------------------------------------

_REDUCE = {
    "ReduceSum": graph.ReduceSumOp, "ReduceMean": graph.ReduceMeanOp, "ReduceMax": graph.ReduceMaxOp,
    "ReduceMin": graph.ReduceMinOp, "ReduceProd": graph.ReduceProdOp,
}

#: The opset from which each reduction takes ``axes`` as an input.
_AXES_INPUT_SINCE = {"ReduceSum": 13}


@converter(*_REDUCE, "ReduceSumSquare", "ReduceL2", "ReduceL1", "ReduceLogSumExp", "ReduceLogSum")
def _reduce(ctx: NodeContext):
    kind = ctx.node.op_type
    keepdims = bool(ctx.attr("keepdims", 1))
    rank = ctx.rank(0)
    if ctx.opset >= _AXES_INPUT_SINCE.get(kind, 18):
        axes = ctx.static_ints(1, "axes") if ctx.has_input(1) else None
        if ctx.has_input(1) and not axes:
            axes = None
        if axes is None and ctx.attr("noop_with_empty_axes", 0):
            return [ctx.raw(0)]
    else:
        axes = ctx.ints("axes")
    axes = list(range(rank)) if axes is None else axes
    if 0 in ctx.shape(0):
        return [_empty_reduction(ctx, kind, axes, keepdims)]
    x = ctx.value(0)
    if kind in _REDUCE:
        if ctx.elem(0) == i1 and kind in ("ReduceMax", "ReduceMin"):  # any / all
            y = ctx.emit(_REDUCE[kind](ctx.emit(graph.CastOp(x, i32)), axes, keepdims))
            return [ctx.emit(graph.CastOp(y, i1))]
        return [ctx.emit(_REDUCE[kind](x, axes, keepdims))]
    if kind in ("ReduceSumSquare", "ReduceL2"):
        s = ctx.emit(graph.ReduceSumOp(ctx.emit(graph.MulOp(x, x)), axes, keepdims))
        return [ctx.emit(graph.SqrtOp(s)) if kind == "ReduceL2" else s]
    if kind == "ReduceL1":
        return [ctx.emit(graph.ReduceSumOp(ctx.emit(graph.AbsOp(x)), axes, keepdims))]
    if kind == "ReduceLogSum":
        return [ctx.emit(graph.LogOp(ctx.emit(graph.ReduceSumOp(x, axes, keepdims))))]
    # ReduceLogSumExp, stabilized by the maximum
    m = ctx.emit(graph.ReduceMaxOp(x, axes, True))
    e = ctx.emit(graph.ExpOp(ctx.emit(graph.SubOp(x, m))))
    s = ctx.emit(graph.LogOp(ctx.emit(graph.ReduceSumOp(e, axes, True))))
    y = ctx.emit(graph.AddOp(s, m))
    if not keepdims:
        y = ctx.emit(graph.SqueezeOp(y, [a % rank for a in axes]))
    return [y]


def _empty_reduction(ctx: NodeContext, kind: str, axes: list[int], keepdims: bool) -> np.ndarray:
    """A reduction of an input with no elements is its identity element."""
    shape, rank = ctx.shape(0), ctx.rank(0)
    red = {a % rank for a in axes}
    out = [1 if d in red else n for d, n in enumerate(shape) if keepdims or d not in red]
    dtype = numpy_dtype(ctx.elem(0))
    big = np.inf if dtype.kind == "f" else (True if dtype == np.bool_ else np.iinfo(dtype).max)
    small = -np.inf if dtype.kind == "f" else (False if dtype == np.bool_ else np.iinfo(dtype).min)
    value = {
        "ReduceMax": small, "ReduceMin": big, "ReduceProd": 1, "ReduceMean": np.nan,
        "ReduceLogSum": -np.inf, "ReduceLogSumExp": -np.inf,
    }.get(kind, 0)
    return np.full(out, value, dtype)


@converter("ArgMax")
def _argmax(ctx: NodeContext):
    """``select_last_index``: ``(n - 1) - argmax(reversed x)``."""
    axis, keep = int(ctx.attr("axis", 0)), bool(ctx.attr("keepdims", 1))
    x = ctx.value(0)
    if not ctx.attr("select_last_index", 0):
        return [ctx.emit(graph.ArgmaxOp(x, axis, keep))]
    n = ctx.shape(0)[axis]
    rev = ctx.emit(graph.SliceOp(x, [-1], [-(1 << 62)], [axis], [-1]))
    first = ctx.emit(graph.ArgmaxOp(rev, axis, keep))
    return [ctx.emit(graph.SubOp(ctx.const(np.int64(n - 1)), first))]

