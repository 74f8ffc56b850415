"""Gradient rules of the core ops (``graphopt.dialects.graph``).

Tie policies: ``maximum`` sends the gradient of a tie to its lhs;
``reduce_max`` splits it evenly among the tied elements.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph import AddNOp
from graphopt.transforms.autodiff.rules import (
    GradContext,
    register_gradient_rule,
    register_non_differentiable,
    shape_of,
)

Grads = Sequence[SSAValue | None]

register_non_differentiable(graph.ConstantOp)


@register_gradient_rule(graph.NegOp)
def _neg(ctx: GradContext, op: graph.NegOp, grads: Grads):
    return [ctx.neg(grads[0])]


@register_gradient_rule(graph.ExpOp)
def _exp(ctx: GradContext, op: graph.ExpOp, grads: Grads):
    return [ctx.mul(grads[0], op.result)]


@register_gradient_rule(graph.LogOp)
def _log(ctx: GradContext, op: graph.LogOp, grads: Grads):
    return [ctx.div(grads[0], op.input)]


@register_gradient_rule(graph.SqrtOp)
def _sqrt(ctx: GradContext, op: graph.SqrtOp, grads: Grads):
    """d sqrt(x) = g / (2 sqrt(x))."""
    return [ctx.div(ctx.scale(grads[0], 0.5), op.result)]


@register_gradient_rule(graph.TanhOp)
def _tanh(ctx: GradContext, op: graph.TanhOp, grads: Grads):
    t = op.result
    return [ctx.mul(grads[0], ctx.sub(ctx.scalar(1.0, t), ctx.mul(t, t)))]


@register_gradient_rule(graph.SigmoidOp)
def _sigmoid(ctx: GradContext, op: graph.SigmoidOp, grads: Grads):
    s = op.result
    return [ctx.mul(grads[0], ctx.mul(s, ctx.sub(ctx.scalar(1.0, s), s)))]


@register_gradient_rule(graph.ReluOp)
def _relu(ctx: GradContext, op: graph.ReluOp, grads: Grads):
    x = op.input
    return [ctx.mask_grad(ctx.greater(x, ctx.scalar(0.0, x)), grads[0])]


# -- binary, with unbroadcasting ---------------------------------------------


@register_gradient_rule(graph.AddOp)
def _add(ctx: GradContext, op: graph.AddOp, grads: Grads):
    g = grads[0]
    return [ctx.unbroadcast(g, op.lhs), ctx.unbroadcast(g, op.rhs)]


@register_gradient_rule(graph.SubOp)
def _sub(ctx: GradContext, op: graph.SubOp, grads: Grads):
    g = grads[0]
    return [
        ctx.unbroadcast(g, op.lhs),
        ctx.unbroadcast(ctx.neg(g), op.rhs) if ctx.needs(1) else None,
    ]


@register_gradient_rule(graph.MulOp)
def _mul(ctx: GradContext, op: graph.MulOp, grads: Grads):
    g = grads[0]
    return [
        ctx.unbroadcast(ctx.mul(g, op.rhs), op.lhs) if ctx.needs(0) else None,
        ctx.unbroadcast(ctx.mul(g, op.lhs), op.rhs) if ctx.needs(1) else None,
    ]


@register_gradient_rule(graph.DivOp)
def _div(ctx: GradContext, op: graph.DivOp, grads: Grads):
    """z = a / b: da = g / b, db = -g z / b."""
    g = grads[0]
    da = ctx.unbroadcast(ctx.div(g, op.rhs), op.lhs) if ctx.needs(0) else None
    db = None
    if ctx.needs(1):
        db = ctx.unbroadcast(ctx.neg(ctx.div(ctx.mul(g, op.result), op.rhs)), op.rhs)
    return [da, db]


@register_gradient_rule(graph.MaximumOp)
def _maximum(ctx: GradContext, op: graph.MaximumOp, grads: Grads):
    return binary_select_grad(ctx, op, grads[0], rhs_wins=ctx.less(op.lhs, op.rhs))


def binary_select_grad(ctx: GradContext, op, g: SSAValue, rhs_wins: SSAValue):
    """Gradients of an op that picks one operand per element (maximum,
    minimum): ``g`` goes to the winner; a tie goes to the lhs."""
    full_g = ctx.broadcast_to(g, shape_of(op.result))
    zero = ctx.scalar(0.0, g)
    da = ctx.unbroadcast(ctx.where(rhs_wins, zero, full_g), op.lhs) if ctx.needs(0) else None
    db = ctx.unbroadcast(ctx.where(rhs_wins, full_g, zero), op.rhs) if ctx.needs(1) else None
    return [da, db]


@register_gradient_rule(AddNOp)
def _add_n(ctx: GradContext, op: AddNOp, grads: Grads):
    return [grads[0]] * len(op.operands)


# -- matmul ------------------------------------------------------------------


def swap_last(ctx: GradContext, v: SSAValue) -> SSAValue:
    rank = len(shape_of(v))
    return ctx.transpose(v, [*range(rank - 2), rank - 1, rank - 2])


@register_gradient_rule(graph.MatmulOp)
def _matmul(ctx: GradContext, op: graph.MatmulOp, grads: Grads):
    """C = A @ B: dA = g Bᵀ, dB = Aᵀ g; batch dims are unbroadcast."""
    g = grads[0]
    da = ctx.unbroadcast(ctx.matmul(g, swap_last(ctx, op.rhs)), op.lhs) if ctx.needs(0) else None
    db = ctx.unbroadcast(ctx.matmul(swap_last(ctx, op.lhs), g), op.rhs) if ctx.needs(1) else None
    return [da, db]


# -- layout --------------------------------------------------------------------


@register_gradient_rule(graph.TransposeOp)
def _transpose(ctx: GradContext, op: graph.TransposeOp, grads: Grads):
    perm = op.permutation
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [ctx.transpose(grads[0], inverse)]


@register_gradient_rule(graph.ReshapeOp)
def _reshape(ctx: GradContext, op: graph.ReshapeOp, grads: Grads):
    return [ctx.reshape(grads[0], shape_of(op.input))]


# -- reductions ----------------------------------------------------------------


def expand_reduced(ctx: GradContext, g: SSAValue, op: graph.ReduceOp) -> SSAValue:
    """``g`` (the gradient of a reduction's result) with the reduced axes
    re-inserted as size 1, so it broadcasts against the input."""
    in_shape = shape_of(op.input)
    kept = [1 if d in op.normalized_axes else n for d, n in enumerate(in_shape)]
    return ctx.reshape(g, kept)


@register_gradient_rule(graph.ReduceSumOp)
def _reduce_sum(ctx: GradContext, op: graph.ReduceSumOp, grads: Grads):
    return [ctx.broadcast_to(expand_reduced(ctx, grads[0], op), shape_of(op.input))]


@register_gradient_rule(graph.ReduceMeanOp)
def _reduce_mean(ctx: GradContext, op: graph.ReduceMeanOp, grads: Grads):
    count = ctx.count(shape_of(op.input), op.normalized_axes)
    g = ctx.scale(expand_reduced(ctx, grads[0], op), 1.0 / count)
    return [ctx.broadcast_to(g, shape_of(op.input))]


def extremum_grad(ctx: GradContext, op: graph.ReduceOp, g: SSAValue) -> SSAValue:
    """Gradient of reduce_max/min: split evenly among the elements equal to
    the extremum (the tie policy)."""
    x = op.input
    axes = op.normalized_axes
    out = expand_reduced(ctx, op.results[0], op)
    hit = ctx.equal(x, out)
    ones = ctx.where(hit, ctx.scalar(1.0, x), ctx.scalar(0.0, x))
    count = ctx.reduce_sum(ones, axes, keepdims=True)
    share = ctx.div(expand_reduced(ctx, g, op), count)
    return ctx.mul(ones, share)


@register_gradient_rule(graph.ReduceMaxOp)
def _reduce_max(ctx: GradContext, op: graph.ReduceMaxOp, grads: Grads):
    return [extremum_grad(ctx, op, grads[0])]


@register_gradient_rule(graph.SoftmaxOp)
def _softmax(ctx: GradContext, op: graph.SoftmaxOp, grads: Grads):
    """dx = y (g - Σ g y) along the axis."""
    g, y = grads[0], op.result
    s = ctx.reduce_sum(ctx.mul(g, y), [op.normalized_axis], keepdims=True)
    return [ctx.mul(y, ctx.sub(g, s))]

