"""Gradient rules of the NCHWc layout ops (``dialects/graph/blocked.py``).

A reorder's gradient is the inverse reorder; ``conv2d_nchwc`` is
``reorder_nchwc(conv2d(x, w))``, so its gradients are the NCHW conv's
backward ops on the gradient reordered back (and the input gradient
reordered to the input's layout); ``depthwise_conv2d_nchwc`` is the same
with one group a channel, its blocked weight ``[C/16, KH, KW, 16]``
unblocked to OIHW and its gradient blocked back."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.transforms.autodiff.rules import GradContext, register_gradient_rule, shape_of

Grads = Sequence[SSAValue | None]


@register_gradient_rule(graph.ReorderNchwcOp)
def _reorder_nchwc(ctx: GradContext, op: graph.ReorderNchwcOp, grads: Grads):
    return [ctx.apply(graph.ReorderNchwOp, grads[0])]


@register_gradient_rule(graph.ReorderNchwOp)
def _reorder_nchw(ctx: GradContext, op: graph.ReorderNchwOp, grads: Grads):
    return [ctx.apply(graph.ReorderNchwcOp, grads[0], shape_of(op.input)[4])]


@register_gradient_rule(graph.Conv2dNchwcOp)
def _conv2d_nchwc(ctx: GradContext, op: graph.Conv2dNchwcOp, grads: Grads):
    g = ctx.apply(graph.ReorderNchwOp, grads[0])
    window = dict(strides=op.stride_values, padding=op.pad_values, dilations=op.dilation_values, groups=1)
    x = ctx.apply(graph.ReorderNchwOp, op.input) if op.blocked_input else op.input
    dx = dw = None
    if ctx.needs(0):
        dx = ctx.apply(graph.Conv2dGradInputOp, g, op.weight, shape_of(x), **window)
        if op.blocked_input:
            dx = ctx.apply(graph.ReorderNchwcOp, dx, shape_of(op.input)[4])
    if ctx.needs(1):
        dw = ctx.apply(graph.Conv2dGradFilterOp, x, g, shape_of(op.weight)[2:], **window)
    return [dx, dw]


@register_gradient_rule(graph.DepthwiseConv2dNchwcOp)
def _depthwise_conv2d_nchwc(ctx: GradContext, op: graph.DepthwiseConv2dNchwcOp, grads: Grads):
    cb, kh, kw, b = shape_of(op.weight)
    c = cb * b
    window = dict(strides=op.stride_values, padding=op.pad_values, dilations=op.dilation_values, groups=c)
    g = ctx.apply(graph.ReorderNchwOp, grads[0])
    dx = dw = None
    if ctx.needs(0):
        w = ctx.apply(graph.ReshapeOp, ctx.apply(graph.TransposeOp, op.weight, (0, 3, 1, 2)), (c, 1, kh, kw))
        n, _, h, wd, _ = shape_of(op.input)
        dx = ctx.apply(graph.Conv2dGradInputOp, g, w, (n, c, h, wd), **window)
        dx = ctx.apply(graph.ReorderNchwcOp, dx, b)
    if ctx.needs(1):
        x = ctx.apply(graph.ReorderNchwOp, op.input)
        dw = ctx.apply(graph.Conv2dGradFilterOp, x, g, (kh, kw), **window)
        dw = ctx.apply(graph.TransposeOp, ctx.apply(graph.ReshapeOp, dw, (cb, b, kh, kw)), (0, 2, 3, 1))
    return [dx, dw]


@register_gradient_rule(graph.MaxPool2dNchwcOp)
def _max_pool2d_nchwc(ctx: GradContext, op: graph.MaxPool2dNchwcOp, grads: Grads):
    """The NCHW max-pool's gradient, between reorders."""
    x, g = ctx.apply(graph.ReorderNchwOp, op.input), ctx.apply(graph.ReorderNchwOp, grads[0])
    dx = ctx.apply(graph.MaxPool2dGradOp, x, g, op.kernel_values, op.stride_values, op.pad_values, (1, 1))
    return [ctx.apply(graph.ReorderNchwcOp, dx, shape_of(op.input)[4])]
