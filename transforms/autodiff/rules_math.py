"""Gradient rules of the elementwise ops of ``graphopt.dialects.graph`` (math,
comparisons, where, cast) and of the reductions beyond sum, mean and max.

Kinks: ``abs`` gives the gradient sign +1 at 0; ``clip`` passes the gradient
only strictly inside its bounds; ``minimum`` sends ties to the lhs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects import graph as gm
from graphopt.dialects.graph import tensor_of
from graphopt.transforms.autodiff.rules import (
    GradContext,
    is_float,
    register_gradient_rule,
    register_non_differentiable,
)
from graphopt.transforms.autodiff.rules_core import (
    binary_select_grad,
    expand_reduced,
    extremum_grad,
)

Grads = Sequence[SSAValue | None]

register_non_differentiable(gm.GreaterOp, gm.LessOp, gm.EqualOp, gm.ArgmaxOp)


@register_gradient_rule(gm.AbsOp)
def _abs(ctx: GradContext, op: gm.AbsOp, grads: Grads):
    g, x = grads[0], op.input
    return [ctx.where(ctx.less(x, ctx.scalar(0.0, x)), ctx.neg(g), g)]


@register_gradient_rule(gm.RsqrtOp)
def _rsqrt(ctx: GradContext, op: gm.RsqrtOp, grads: Grads):
    """d x^-1/2 = -1/2 x^-3/2 = -1/2 y³."""
    y = op.result
    return [ctx.mul(ctx.scale(grads[0], -0.5), ctx.mul(y, ctx.mul(y, y)))]


@register_gradient_rule(gm.ErfOp)
def _erf(ctx: GradContext, op: gm.ErfOp, grads: Grads):
    """d erf(x) = 2/√π exp(-x²)."""
    x = op.input
    e = ctx.exp(ctx.neg(ctx.mul(x, x)))
    return [ctx.mul(ctx.scale(grads[0], 2.0 / math.sqrt(math.pi)), e)]


@register_gradient_rule(gm.SinOp)
def _sin(ctx: GradContext, op: gm.SinOp, grads: Grads):
    return [ctx.mul(grads[0], ctx.apply(gm.CosOp, op.input))]


@register_gradient_rule(gm.CosOp)
def _cos(ctx: GradContext, op: gm.CosOp, grads: Grads):
    return [ctx.neg(ctx.mul(grads[0], ctx.apply(gm.SinOp, op.input)))]


@register_gradient_rule(gm.GeluOp)
def _gelu(ctx: GradContext, op: gm.GeluOp, grads: Grads):
    """Exact: Φ(x) + x φ(x).  Tanh form, with u = c(x + k x³), t = tanh u:
    ½(1 + t) + ½ x (1 - t²) c (1 + 3k x²)."""
    g, x = grads[0], op.input
    one = ctx.scalar(1.0, x)
    if op.is_approximate:
        x2 = ctx.mul(x, x)
        u = ctx.scale(ctx.add(x, ctx.scale(ctx.mul(x2, x), gm.GELU_TANH_K)), gm.GELU_TANH_C)
        t = ctx.apply(graph.TanhOp, u)
        du = ctx.scale(ctx.add(one, ctx.scale(x2, 3 * gm.GELU_TANH_K)), gm.GELU_TANH_C)
        left = ctx.scale(ctx.add(one, t), 0.5)
        right = ctx.mul(ctx.scale(x, 0.5), ctx.mul(ctx.sub(one, ctx.mul(t, t)), du))
        return [ctx.mul(g, ctx.add(left, right))]
    cdf = ctx.scale(ctx.add(one, ctx.apply(gm.ErfOp, ctx.scale(x, 1 / math.sqrt(2.0)))), 0.5)
    pdf = ctx.scale(ctx.exp(ctx.scale(ctx.mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
    return [ctx.mul(g, ctx.add(cdf, ctx.mul(x, pdf)))]


@register_gradient_rule(gm.LeakyReluOp)
def _leaky_relu(ctx: GradContext, op: gm.LeakyReluOp, grads: Grads):
    g, x = grads[0], op.input
    positive = ctx.greater(x, ctx.scalar(0.0, x))
    return [ctx.where(positive, g, ctx.scale(g, op.alpha_value))]


@register_gradient_rule(gm.ClipOp)
def _clip(ctx: GradContext, op: gm.ClipOp, grads: Grads):
    g, x = grads[0], op.input
    lo, hi = op.bounds
    if math.isfinite(lo):
        g = ctx.mask_grad(ctx.greater(x, ctx.scalar(lo, x)), g)
    if math.isfinite(hi):
        g = ctx.mask_grad(ctx.less(x, ctx.scalar(hi, x)), g)
    return [g]


@register_gradient_rule(gm.PowOp)
def _pow(ctx: GradContext, op: gm.PowOp, grads: Grads):
    """z = a**b: da = g b a^(b-1); db = g z log a, taken as 0 where a = 0."""
    g, a, b = grads[0], op.lhs, op.rhs
    da = db = None
    if ctx.needs(0):
        power = ctx.apply(gm.PowOp, a, ctx.sub(b, ctx.scalar(1.0, b)))
        da = ctx.unbroadcast(ctx.mul(g, ctx.mul(b, power)), a)
    if ctx.needs(1):
        term = ctx.mul(ctx.mul(g, op.result), ctx.apply(graph.LogOp, a))
        at_zero = ctx.equal(a, ctx.scalar(0.0, a))
        db = ctx.unbroadcast(ctx.where(at_zero, ctx.scalar(0.0, g), term), b)
    return [da, db]


@register_gradient_rule(gm.MinimumOp)
def _minimum(ctx: GradContext, op: gm.MinimumOp, grads: Grads):
    return binary_select_grad(ctx, op, grads[0], rhs_wins=ctx.greater(op.lhs, op.rhs))


@register_gradient_rule(gm.WhereOp)
def _where(ctx: GradContext, op: gm.WhereOp, grads: Grads):
    """The condition gets no gradient; each branch gets g where it was chosen."""
    g, c = grads[0], op.cond
    zero = ctx.scalar(0.0, g)
    da = ctx.unbroadcast(ctx.where(c, g, zero), op.lhs) if ctx.needs(1) else None
    db = ctx.unbroadcast(ctx.where(c, zero, g), op.rhs) if ctx.needs(2) else None
    return [None, da, db]


@register_gradient_rule(gm.CastOp)
def _cast(ctx: GradContext, op: gm.CastOp, grads: Grads):
    """float -> float: cast the gradient back; from or to an integer: none."""
    if not (is_float(op.input) and is_float(op.result)):
        return [None]
    return [ctx.apply(gm.CastOp, grads[0], tensor_of(op.input).element_type)]


@register_gradient_rule(gm.ReduceMinOp)
def _reduce_min(ctx: GradContext, op: gm.ReduceMinOp, grads: Grads):
    return [extremum_grad(ctx, op, grads[0])]


@register_gradient_rule(gm.ReduceProdOp)
def _reduce_prod(ctx: GradContext, op: gm.ReduceProdOp, grads: Grads):
    """g · prod / x (the product of the other elements; needs x ≠ 0)."""
    g = expand_reduced(ctx, grads[0], op)
    out = expand_reduced(ctx, op.result, op)
    return [ctx.div(ctx.mul(g, out), op.input)]


@register_gradient_rule(gm.LogSoftmaxOp)
def _log_softmax(ctx: GradContext, op: gm.LogSoftmaxOp, grads: Grads):
    """dx = g - exp(y) Σg along the axis."""
    g, y = grads[0], op.result
    s = ctx.reduce_sum(g, [op.normalized_axis], keepdims=True)
    return [ctx.sub(g, ctx.mul(ctx.exp(y), s))]
