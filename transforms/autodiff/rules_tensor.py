"""Gradient rules of the layout and indexing ops of ``graphopt.dialects.graph``
(and of the value-making ops of ``graph.fill``)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from graphopt.dialects import graph as gt
from graphopt.dialects.graph import GatherGradOp, SliceGradOp
from graphopt.transforms.autodiff.rules import (
    GradContext,
    register_gradient_rule,
    register_non_differentiable,
    shape_of,
)

Grads = Sequence[SSAValue | None]

register_non_differentiable(gt.FillOp, gt.ZerosLikeOp, gt.OnesLikeOp)


@register_gradient_rule(gt.ConcatOp)
def _concat(ctx: GradContext, op: gt.ConcatOp, grads: Grads):
    """Each input's gradient is its slice of ``g`` along the axis."""
    g, axis = grads[0], op.normalized_axis
    out, offset = [], 0
    for i, v in enumerate(op.operands):
        size = shape_of(v)[axis]
        out.append(ctx.apply(gt.SliceOp, g, [offset], [offset + size], [axis]) if ctx.needs(i) else None)
        offset += size
    return out


@register_gradient_rule(gt.SplitOp)
def _split(ctx: GradContext, op: gt.SplitOp, grads: Grads):
    """The concatenation of the pieces' gradients (zeros for unused pieces)."""
    parts = [g if g is not None else ctx.zeros(r.type) for g, r in zip(grads, op.results)]
    if len(parts) == 1:
        return [parts[0]]
    return [ctx.apply(gt.ConcatOp, parts, op.normalized_axis)]


@register_gradient_rule(gt.SliceOp)
def _slice(ctx: GradContext, op: gt.SliceOp, grads: Grads):
    ranges = op.axis_ranges()
    if all(step == 1 for _, step, _ in ranges):
        shape = shape_of(op.input)
        begins = [first for first, _, _ in ranges]
        ends = [d - first - count for d, (first, _, count) in zip(shape, ranges)]
        return [ctx.apply(gt.PadOp, grads[0], begins + ends, 0.0)]
    firsts = [first for first, _, _ in ranges]
    steps = [step for _, step, _ in ranges]
    return [ctx.apply(SliceGradOp, grads[0], shape_of(op.input), firsts, steps)]


@register_gradient_rule(gt.PadOp)
def _pad(ctx: GradContext, op: gt.PadOp, grads: Grads):
    """The interior of ``g``; the pad value is a constant."""
    shape = shape_of(op.input)
    begins = op.pad_values[: len(shape)]
    ends = [b + d for b, d in zip(begins, shape)]
    return [ctx.apply(gt.SliceOp, grads[0], list(begins), ends, list(range(len(shape))))]


@register_gradient_rule(gt.BroadcastToOp)
def _broadcast_to(ctx: GradContext, op: gt.BroadcastToOp, grads: Grads):
    return [ctx.unbroadcast(grads[0], op.input)]


@register_gradient_rule(gt.ExpandDimsOp, gt.SqueezeOp, gt.FlattenOp)
def _reshape_like(ctx: GradContext, op, grads: Grads):
    return [ctx.reshape(grads[0], shape_of(op.input))]


@register_gradient_rule(gt.GatherOp)
def _gather(ctx: GradContext, op: gt.GatherOp, grads: Grads):
    """A scatter-add of ``g`` at the indices; the indices get no gradient."""
    dx = ctx.apply(GatherGradOp, op.indices, grads[0], shape_of(op.data), op.normalized_axis)
    return [dx, None]


@register_gradient_rule(gt.DropoutOp)
def _dropout(ctx: GradContext, op: gt.DropoutOp, grads: Grads):
    """The same mask and scale applied to ``g``: the mask is a pure function
    of the seed and the element index, so a second dropout with the same
    properties reproduces it (inference mode is the identity)."""
    if not op.is_training:
        return [grads[0]]
    return [ctx.apply(gt.DropoutOp, grads[0], op.rate_value, op.seed_value, True)]


@register_gradient_rule(gt.CopyOp)
def _copy(ctx: GradContext, op: gt.CopyOp, grads: Grads):
    return [grads[0]]


# -- the scatter-style backward ops (second order) ------------------------------


@register_gradient_rule(SliceGradOp)
def _slice_grad(ctx: GradContext, op: SliceGradOp, grads: Grads):
    """Its adjoint is the strided slice it inverts."""
    shape = shape_of(op.result)
    firsts, steps = list(op.firsts.get_values()), list(op.steps.get_values())
    ends = []
    for d, f, st, c in zip(shape, firsts, steps, shape_of(op.grad)):
        end = f + st * c
        ends.append(end if end >= 0 else -(d + 1))  # a negative end would count from the back
    return [ctx.apply(gt.SliceOp, grads[0], firsts, ends, list(range(len(shape))), steps)]


@register_gradient_rule(GatherGradOp)
def _gather_grad(ctx: GradContext, op: GatherGradOp, grads: Grads):
    """Its adjoint with respect to ``grad`` is the gather it inverts."""
    return [None, ctx.apply(gt.GatherOp, grads[0], op.indices, op.axis_value)]
