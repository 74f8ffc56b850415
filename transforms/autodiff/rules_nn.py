"""Gradient rules of the window ops of ``graphopt.dialects.graph`` (convolution,
pooling) and of normalization.

Convolution and pooling use the backward ops of ``graph.window_grad`` (one kernel
each, no zero-dilated temporaries); normalization is composed from graph
ops.  Running statistics are never differentiated.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects import graph as nn
from graphopt.dialects.graph import (
    AvgPool2dGradOp,
    Conv2dGradFilterOp,
    Conv2dGradInputOp,
    LrnGradOp,
    MaxPool2dGradOp,
)
from graphopt.transforms.autodiff.rules import GradContext, register_gradient_rule, shape_of

Grads = Sequence[SSAValue | None]


@register_gradient_rule(nn.Conv2dOp)
def _conv2d(ctx: GradContext, op: nn.Conv2dOp, grads: Grads):
    """dX: the transposed convolution of g with W; dW: the correlation of X
    with g.  Uneven cases (a stride that does not divide the padded extent)
    read only the taps that exist."""
    g = grads[0]
    window = dict(
        strides=op.stride_values, padding=op.pad_values, dilations=op.dilation_values,
        groups=op.group_count,
    )
    dx = dw = None
    if ctx.needs(0):
        dx = ctx.apply(Conv2dGradInputOp, g, op.weight, shape_of(op.input), **window)
    if ctx.needs(1):
        dw = ctx.apply(Conv2dGradFilterOp, op.input, g, shape_of(op.weight)[2:], **window)
    return [dx, dw]


@register_gradient_rule(nn.MaxPool2dOp)
def _max_pool(ctx: GradContext, op: nn.MaxPool2dOp, grads: Grads):
    """Each window's gradient goes to its first maximum (row-major tie
    policy); overlapping windows accumulate."""
    return [
        ctx.apply(
            MaxPool2dGradOp, op.input, grads[0], op.kernel_values,
            op.stride_values, op.pad_values, op.dilation_values,
        )
    ]


@register_gradient_rule(nn.AvgPool2dOp)
def _avg_pool(ctx: GradContext, op: nn.AvgPool2dOp, grads: Grads):
    return [
        ctx.apply(
            AvgPool2dGradOp, grads[0], shape_of(op.input), op.kernel_values,
            op.stride_values, op.pad_values, op.dilation_values, op.includes_pad,
        )
    ]


@register_gradient_rule(nn.GlobalAvgPoolOp)
def _global_avg_pool(ctx: GradContext, op: nn.GlobalAvgPoolOp, grads: Grads):
    shape = shape_of(op.input)
    count = 1
    for d in shape[2:]:
        count *= d
    return [ctx.broadcast_to(ctx.scale(grads[0], 1.0 / count), shape)]


# -- normalization ---------------------------------------------------------------


def _channel_view(ctx: GradContext, v: SSAValue, rank: int) -> SSAValue:
    """A ``C`` vector reshaped to broadcast along axis 1 of a rank-``rank`` tensor."""
    return ctx.reshape(v, [1, shape_of(v)[0], *([1] * (rank - 2))])


def _normalized(ctx: GradContext, x: SSAValue, axes: list[int], eps: float) -> tuple[SSAValue, SSAValue]:
    """``1/sqrt(var + eps)`` and ``xhat = (x - mean) * that`` over ``axes``, recomputed from ``x``."""
    mean = ctx.apply(graph.ReduceMeanOp, x, axes, True)
    centred = ctx.sub(x, mean)
    var = ctx.apply(graph.ReduceMeanOp, ctx.mul(centred, centred), axes, True)
    r = _inv_std(ctx, var, eps)
    return r, ctx.mul(centred, r)


def _inv_std(ctx: GradContext, var: SSAValue, eps: float) -> SSAValue:
    """``(var + eps) ** -1/2``."""
    s = ctx.apply(graph.SqrtOp, ctx.add(var, ctx.scalar(eps, var)))
    return ctx.div(ctx.scalar(1.0, var), s)


def normalized_input_grad(
    ctx: GradContext, gxhat: SSAValue, xhat: SSAValue, r: SSAValue, axes: Sequence[int], count: int
) -> SSAValue:
    """dx of ``xhat = (x - mean(x)) * r`` over ``axes`` (``count`` elements),
    given the gradient ``gxhat`` of xhat: ``r/M (M gxhat - Σ gxhat - xhat Σ gxhat xhat)``."""
    s1 = ctx.reduce_sum(gxhat, axes, keepdims=True)
    s2 = ctx.reduce_sum(ctx.mul(gxhat, xhat), axes, keepdims=True)
    inner = ctx.sub(ctx.sub(ctx.scale(gxhat, float(count)), s1), ctx.mul(xhat, s2))
    return ctx.mul(ctx.scale(r, 1.0 / count), inner)


@register_gradient_rule(nn.BatchNormOp)
def _batch_norm(ctx: GradContext, op: nn.BatchNormOp, grads: Grads):
    """Inference form: an affine map per channel.  The given statistics
    (running mean and variance) get no gradient."""
    g, x = grads[0], op.input
    rank = len(shape_of(x))
    axes = [0, *range(2, rank)]
    r = _inv_std(ctx, op.var, op.epsilon)
    dx = ds = db = None
    if ctx.needs(0):
        dx = ctx.mul(g, _channel_view(ctx, ctx.mul(op.scale, r), rank))
    if ctx.needs(1):
        centred = ctx.sub(x, _channel_view(ctx, op.mean, rank))
        ds = ctx.mul(ctx.reduce_sum(ctx.mul(g, centred), axes), r)
    if ctx.needs(2):
        db = ctx.reduce_sum(g, axes)
    return [dx, ds, db, None, None]


@register_gradient_rule(nn.BatchNormTrainOp)
def _batch_norm_train(ctx: GradContext, op: nn.BatchNormTrainOp, grads: Grads):
    """With M = N·H·W and r = (σ²+ε)^-½: dβ = Σg, dγ = Σ g·x̂,
    dx = (γ·r/M)(M·g − Σg − x̂·Σ(g·x̂)).

    The batch statistics are recomputed from x here with graph ops rather
    than read from the op's results 1 and 2: those results feed the running
    statistics and are not differentiated, so a backward graph built on them
    would be constant in them, and differentiating it again (second order)
    would silently drop their dependence on x."""
    g, x = grads[0], op.input
    if g is None:
        return [None, None, None]
    shape = shape_of(x)
    rank = len(shape)
    axes = [0, *range(2, rank)]
    count = shape[0] * ctx.count(shape, range(2, rank))
    r, xhat = _normalized(ctx, x, axes, op.epsilon)
    dx = ds = db = None
    if ctx.needs(0):
        gxhat = ctx.mul(g, _channel_view(ctx, op.scale, rank))
        dx = normalized_input_grad(ctx, gxhat, xhat, r, axes, count)
    if ctx.needs(1):
        ds = ctx.reduce_sum(ctx.mul(g, xhat), axes)
    if ctx.needs(2):
        db = ctx.reduce_sum(g, axes)
    return [dx, ds, db]


@register_gradient_rule(nn.LayerNormOp)
def _layer_norm(ctx: GradContext, op: nn.LayerNormOp, grads: Grads):
    g, x = grads[0], op.input
    shape = shape_of(x)
    axes = list(range(op.normalized_axis, len(shape)))
    count = ctx.count(shape, axes)
    r, xhat = _normalized(ctx, x, axes, op.epsilon)
    dx = ds = db = None
    if ctx.needs(0):
        dx = normalized_input_grad(ctx, ctx.mul(g, op.scale), xhat, r, axes, count)
    if ctx.needs(1):
        ds = ctx.unbroadcast(ctx.mul(g, xhat), op.scale)
    if ctx.needs(2):
        db = ctx.unbroadcast(g, op.bias)
    return [dx, ds, db]


# -- the backward ops themselves (second order) --------------------------------
#
# conv2d_grad_input and conv2d_grad_filter are bilinear, so their adjoints
# are the forward convolution and the other backward op.  max_pool2d_grad
# and lrn_grad (the second order of LRN) have no rule.


def _window(op) -> dict:
    return dict(
        strides=op.stride_values, padding=op.pad_values, dilations=op.dilation_values,
        groups=op.group_count,
    )


@register_gradient_rule(Conv2dGradInputOp)
def _conv_grad_input(ctx: GradContext, op: Conv2dGradInputOp, grads: Grads):
    dz, w = grads[0], dict(_window(op))
    dg = ctx.apply(nn.Conv2dOp, dz, op.weight, **w) if ctx.needs(0) else None
    dw = None
    if ctx.needs(1):
        dw = ctx.apply(Conv2dGradFilterOp, dz, op.grad, shape_of(op.weight)[2:], **w)
    return [dg, dw]


@register_gradient_rule(Conv2dGradFilterOp)
def _conv_grad_filter(ctx: GradContext, op: Conv2dGradFilterOp, grads: Grads):
    dz, w = grads[0], dict(_window(op))
    dx = None
    if ctx.needs(0):
        dx = ctx.apply(Conv2dGradInputOp, op.grad, dz, shape_of(op.input), **w)
    dg = ctx.apply(nn.Conv2dOp, op.input, dz, **w) if ctx.needs(1) else None
    return [dx, dg]


@register_gradient_rule(AvgPool2dGradOp)
def _avg_pool_grad(ctx: GradContext, op: AvgPool2dGradOp, grads: Grads):
    """avg_pool2d_grad is linear; its adjoint is the pool itself."""
    kernel, strides, pads, dil = op.kernel.get_values(), op.stride_values, op.pad_values, op.dilation_values
    x_hw, out_hw = shape_of(op.result)[2:], shape_of(op.grad)[2:]
    floor = [nn.Pool2dOp.output_size(x_hw[d], kernel[d], strides[d], pads[d], pads[d + 2], dil[d], False)
             for d in range(2)]
    return [
        ctx.apply(
            nn.AvgPool2dOp, grads[0], kernel, strides, pads, op.count_include_pad is not None,
            dil, list(floor) != list(out_hw),
        )
    ]


@register_gradient_rule(nn.LrnOp)
def _lrn(ctx: GradContext, op: nn.LrnOp, grads: Grads):
    """One backward op: each input channel feeds ``size`` outputs."""
    alpha, beta, bias = op.params
    return [ctx.apply(LrnGradOp, op.input, grads[0], op.window_size, alpha, beta, bias)]
