"""Converters of ONNX constants, shape arithmetic, layout ops and matrix
products.  Shape, Size, Range and ConstantOfShape are folded at import (their
inputs must be static); layout ops on static inputs fold too (see
``registry.FOLDABLE``)."""

from __future__ import annotations

import math

import numpy as np
from onnx import numpy_helper

from graphopt.dialects import graph
from graphopt.dialects.graph import i64
from graphopt.frontends.onnx.importer import ConvertError, NodeContext
from graphopt.frontends.onnx.registry import converter

# -- constants and shapes ----------------------------------------------------------


@converter("Constant")
def _constant(ctx: NodeContext):
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if key in ctx.attrs:
            v = ctx.attrs[key]
            if key == "value":
                return [numpy_helper.to_array(v)]
            dtype = np.float32 if "float" in key else np.int64
            return [np.asarray(v, dtype)]
    given = ", ".join(ctx.attrs) or "none"
    raise ConvertError(f"unsupported Constant form (attribute {given}); tensors, floats and ints are supported")


@converter("ConstantOfShape")
def _constant_of_shape(ctx: NodeContext):
    shape = ctx.static_ints(0, "shape")
    value = ctx.attr("value")
    scalar = numpy_helper.to_array(value).reshape(-1)[0] if value is not None else np.float32(0)
    # A broadcast view: a splat constant, never a materialized array.
    return [np.broadcast_to(np.asarray(scalar), shape)]


@converter("Shape")
def _shape(ctx: NodeContext):
    shape = list(ctx.shape(0))
    start, end = int(ctx.attr("start", 0)), ctx.attr("end")
    return [np.asarray(shape[start:(None if end is None else int(end))], np.int64)]


@converter("Size")
def _size(ctx: NodeContext):
    return [np.asarray(math.prod(ctx.shape(0)), np.int64)]


@converter("Range")
def _range(ctx: NodeContext):
    start, limit, delta = (ctx.require_static(i, n) for i, n in enumerate(("start", "limit", "delta")))
    return [np.arange(start.item(), limit.item(), delta.item(), dtype=start.dtype)]


# -- layout ---------------------------------------------------------------------------


@converter("Reshape")
def _reshape(ctx: NodeContext):
    """``0`` copies the input's dimension (unless ``allowzero``), ``-1`` is inferred."""
    if ctx.opset < 5:
        shape = ctx.ints("shape")
    else:
        shape = ctx.static_ints(1, "shape")
    src = ctx.shape(0)
    allowzero = bool(ctx.attr("allowzero", 0))
    out = [src[i] if d == 0 and not allowzero else d for i, d in enumerate(shape)]
    if out.count(-1) > 1:
        raise ConvertError(f"shape {shape} has more than one -1")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        total = math.prod(src)
        if known == 0 or total % known:
            raise ConvertError(f"cannot reshape {list(src)} to {shape}")
        out[out.index(-1)] = total // known
    return [ctx.emit(graph.ReshapeOp(ctx.value(0), out))]


@converter("Flatten")
def _flatten(ctx: NodeContext):
    axis = int(ctx.attr("axis", 1))
    shape = ctx.shape(0)
    if axis < 0:
        axis += len(shape)
    out = [math.prod(shape[:axis]), math.prod(shape[axis:])]
    return [ctx.emit(graph.ReshapeOp(ctx.value(0), out))]


@converter("Transpose")
def _transpose(ctx: NodeContext):
    perm = ctx.ints("perm") or list(reversed(range(ctx.rank(0))))
    return [ctx.emit(graph.TransposeOp(ctx.value(0), perm))]


@converter("Concat")
def _concat(ctx: NodeContext):
    vals = [ctx.value(i) for i in range(ctx.num_inputs) if ctx.has_input(i)]
    return [ctx.emit(graph.ConcatOp(vals, int(ctx.attr("axis"))))]


@converter("Split")
def _split(ctx: NodeContext):
    """Sizes from the ``split`` attribute (opset < 13), the ``split`` input
    (>= 13), ``num_outputs`` (>= 18, the last piece smaller), or equal pieces."""
    axis = int(ctx.attr("axis", 0))
    dim = ctx.shape(0)[axis]
    n_out = len(ctx.node.output)
    if ctx.opset < 13:
        sizes = ctx.ints("split")
    else:
        sizes = ctx.static_ints(1, "split") if ctx.has_input(1) else None
    if sizes is None:
        num = int(ctx.attr("num_outputs", n_out))
        piece = -(-dim // num)
        sizes = [min(piece, dim - k * piece) for k in range(num)]
    if sum(sizes) != dim:
        raise ConvertError(f"split sizes {sizes} do not add up to axis {axis} of size {dim}")
    if len(sizes) == 1:
        return [ctx.raw(0)]
    outs = ctx.emit(graph.SplitOp(ctx.value(0), sizes, axis))
    return list(outs)


@converter("Slice")
def _slice(ctx: NodeContext):
    if ctx.opset < 10:
        starts, ends, axes, steps = ctx.ints("starts"), ctx.ints("ends"), ctx.ints("axes"), None
    else:
        starts = ctx.static_ints(1, "starts")
        ends = ctx.static_ints(2, "ends")
        axes = ctx.static_ints(3, "axes") if ctx.has_input(3) else None
        steps = ctx.static_ints(4, "steps") if ctx.has_input(4) else None
    big = 1 << 62
    clamp = [max(min(v, big), -big) for v in starts]
    ends = [max(min(v, big), -big) for v in ends]
    return [ctx.emit(graph.SliceOp(ctx.value(0), clamp, ends, axes, steps))]


@converter("Gather")
def _gather(ctx: NodeContext):
    idx = ctx.static(1)
    if idx is not None:
        ind = ctx.const(idx.astype(np.int64))
    else:
        ind = ctx.value(1)
        if ctx.elem(1) != i64:
            ind = ctx.emit(graph.CastOp(ind, i64))
    return [ctx.emit(graph.GatherOp(ctx.value(0), ind, int(ctx.attr("axis", 0))))]


def _axes(ctx: NodeContext, since: int = 13) -> list[int] | None:
    if ctx.opset < since:
        return ctx.ints("axes")
    return ctx.static_ints(1, "axes") if ctx.has_input(1) else None


@converter("Squeeze")
def _squeeze(ctx: NodeContext):
    axes = _axes(ctx)
    shape = ctx.shape(0)
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    out = [d for i, d in enumerate(shape) if i not in {a % len(shape) for a in axes}]
    for a in axes:
        if shape[a % len(shape)] != 1:
            raise ConvertError(f"cannot squeeze axis {a} of size {shape[a % len(shape)]}")
    return [ctx.emit(graph.ReshapeOp(ctx.value(0), out))]


@converter("Unsqueeze")
def _unsqueeze(ctx: NodeContext):
    axes = _axes(ctx)
    if axes is None:
        raise ConvertError("axes are required")
    return [ctx.emit(graph.ExpandDimsOp(ctx.value(0), axes))]


@converter("Pad")
def _pad(ctx: NodeContext):
    """Constant padding; negative pads crop.  ``pads``/``value`` are
    attributes before opset 11, inputs after; ``axes`` (opset 18) selects axes."""
    mode = ctx.attr("mode", "constant")
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise ConvertError(f"unknown mode '{mode}'")
    rank = ctx.rank(0)
    if ctx.opset < 11:
        pads, value = ctx.ints("pads") or [], float(ctx.attr("value", 0.0))
    else:
        pads = ctx.static_ints(1, "pads")
        value = float(ctx.require_static(2, "constant_value").reshape(-1)[0]) if ctx.has_input(2) else 0.0
        if ctx.has_input(3):
            axes = [a % rank for a in ctx.static_ints(3, "axes")]
            full = [0] * (2 * rank)
            for k, a in enumerate(axes):
                full[a], full[a + rank] = pads[k], pads[k + len(axes)]
            pads = full
    if len(pads) != 2 * rank:
        raise ConvertError(f"{len(pads)} pads for an input of rank {rank}")
    x = ctx.value(0)
    if any(p < 0 for p in pads):
        shape = ctx.shape(0)
        starts = [max(0, -p) for p in pads[:rank]]
        ends = [shape[a] - max(0, -pads[a + rank]) for a in range(rank)]
        x = ctx.emit(graph.SliceOp(x, starts, ends))
        pads = [max(0, p) for p in pads]
    if not any(pads):
        return [x]
    if mode == "constant":
        return [ctx.emit(graph.PadOp(x, pads, value))]
    for a in range(rank):
        x = _pad_axis(ctx, x, a, pads[a], pads[a + rank], mode)
    return [x]


def _pad_axis(ctx: NodeContext, x, axis: int, before: int, after: int, mode: str):
    """edge / reflect / wrap padding of one axis: a concat of slices of x."""
    if not before and not after:
        return x
    n = x.type.get_shape()[axis]
    if mode == "reflect" and (before >= n or after >= n):
        raise ConvertError(f"reflect pads ({before}, {after}) must be smaller than axis {axis} of size {n}")
    if mode == "wrap" and (before > n or after > n):
        raise ConvertError(f"wrap pads ({before}, {after}) must not exceed axis {axis} of size {n}")

    def piece(start: int, end: int, step: int = 1):
        return ctx.emit(graph.SliceOp(x, [start], [end], [axis], [step]))

    parts = []
    if before:
        if mode == "edge":
            one = piece(0, 1)
            shape = list(one.type.get_shape())
            shape[axis] = before
            parts.append(ctx.emit(graph.BroadcastToOp(one, shape)))
        elif mode == "reflect":
            parts.append(piece(before, 0, -1))
        else:
            parts.append(piece(n - before, n))
    parts.append(x)
    if after:
        if mode == "edge":
            one = piece(n - 1, n)
            shape = list(one.type.get_shape())
            shape[axis] = after
            parts.append(ctx.emit(graph.BroadcastToOp(one, shape)))
        elif mode == "reflect":
            parts.append(piece(n - 2, n - 2 - after, -1))
        else:
            parts.append(piece(0, after))
    return ctx.emit(graph.ConcatOp(parts, axis))


@converter("Expand")
def _expand(ctx: NodeContext):
    shape = ctx.static_ints(1, "shape")
    out = graph.broadcast_shapes("onnx.Expand", ctx.shape(0), shape)
    if tuple(out) == ctx.shape(0):
        return [ctx.raw(0)]
    return [ctx.emit(graph.BroadcastToOp(ctx.value(0), out))]


@converter("Tile")
def _tile(ctx: NodeContext):
    """``(d0, d1) x (r0, r1)``: reshape to ``(1, d0, 1, d1)``, broadcast to
    ``(r0, d0, r1, d1)``, reshape to ``(r0*d0, r1*d1)`` -- one copy."""
    reps = ctx.static_ints(1, "repeats")
    shape = ctx.shape(0)
    if len(reps) != len(shape):
        raise ConvertError(f"{len(reps)} repeats for an input of rank {len(shape)}")
    if all(r == 1 for r in reps):
        return [ctx.raw(0)]
    x = ctx.emit(graph.ReshapeOp(ctx.value(0), [v for d in shape for v in (1, d)]))
    x = ctx.emit(graph.BroadcastToOp(x, [v for r, d in zip(reps, shape) for v in (r, d)]))
    return [ctx.emit(graph.ReshapeOp(x, [r * d for r, d in zip(reps, shape)]))]


# -- matrix products ------------------------------------------------------------------------


@converter("MatMul")
def _matmul(ctx: NodeContext):
    """numpy ``matmul``: 1-D operands get a unit axis, removed afterwards."""
    a, b = ctx.value(0), ctx.value(1)
    ra, rb = ctx.rank(0), ctx.rank(1)
    if ra == 1:
        a = ctx.emit(graph.ExpandDimsOp(a, [0]))
    if rb == 1:
        b = ctx.emit(graph.ExpandDimsOp(b, [1]))
    y = ctx.emit(graph.MatmulOp(a, b))
    if ra == 1 or rb == 1:
        shape = list(y.type.get_shape())
        if rb == 1:
            shape.pop(-1)
        if ra == 1:
            shape.pop(-2 if rb != 1 else -1)
        y = ctx.emit(graph.ReshapeOp(y, shape))
    return [y]


@converter("Gemm")
def _gemm(ctx: NodeContext):
    """``alpha * A' B' + beta * C``.  A constant transposed operand is
    transposed here, once, so the compiled code never re-transposes a weight."""
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    ops = []
    for i, flag in ((0, "transA"), (1, "transB")):
        trans = bool(ctx.attr(flag, 0))
        s = ctx.static(i)
        if s is not None:
            if s.ndim != 2:
                raise ConvertError(f"input '{ctx.input_name(i)}' must be 2-D, got shape {list(s.shape)}")
            ops.append(ctx.const(np.ascontiguousarray(s.T), name=ctx.input_name(i)) if trans else ctx.value(i))
        else:
            v = ctx.value(i)
            ops.append(ctx.emit(graph.TransposeOp(v, [1, 0])) if trans else v)
    y = ctx.emit(graph.MatmulOp(ops[0], ops[1]))
    t = ctx.elem(0)
    if alpha != 1.0:
        y = ctx.emit(graph.MulOp(y, ctx.const(alpha, t)))
    if ctx.has_input(2) and beta != 0.0:
        c = ctx.static(2)
        if c is not None:
            cv = ctx.value(2) if beta == 1.0 else ctx.const((c * np.asarray(beta, c.dtype)).astype(c.dtype))
        else:
            cv = ctx.value(2)
            if beta != 1.0:
                cv = ctx.emit(graph.MulOp(cv, ctx.const(beta, t)))
        y = ctx.emit(graph.AddOp(y, cv))
    return [y]
