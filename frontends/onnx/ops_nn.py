"""Converters of ONNX convolution, pooling and normalization ops.

The graph window ops are 2-D (NCHW); 1-D ONNX ops run as 2-D ones over a
unit height.  ``auto_pad`` becomes explicit padding here, as ONNX defines
it: SAME_UPPER puts the odd pad at the end, SAME_LOWER at the beginning.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph import Conv2dGradInputOp
from graphopt.frontends.onnx.importer import ConvertError, NodeContext
from graphopt.frontends.onnx.registry import converter


def explicit_pads(
    ctx: NodeContext, spatial: tuple[int, ...], kernel: list[int], strides: list[int], dilations: list[int]
) -> list[int]:
    """ONNX ``pads`` (begin..., end...) after resolving ``auto_pad``."""
    n = len(spatial)
    auto = ctx.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = ctx.ints("pads", [0] * (2 * n))
        if len(pads) != 2 * n:
            raise ConvertError(f"pads {pads} must have {2 * n} values")
        return pads
    if auto == "VALID":
        return [0] * (2 * n)
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise ConvertError(f"unknown auto_pad '{auto}'")
    begin, end = [], []
    for d in range(n):
        out = -(-spatial[d] // strides[d])
        total = max(0, (out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - spatial[d])
        small = total // 2
        b = small if auto == "SAME_UPPER" else total - small
        begin.append(b)
        end.append(total - b)
    return begin + end


class Window2d:
    """A 1-D or 2-D ONNX window op's attributes in the 2-D form."""

    def __init__(self, ctx: NodeContext, kernel: list[int]):
        shape = ctx.shape(0)
        self.rank = len(shape) - 2
        if self.rank not in (1, 2):
            raise ConvertError(f"{self.rank}-D {ctx.node.op_type} is not supported (1-D and 2-D are)")
        n = self.rank
        self.spatial = tuple(shape[2:])
        self.kernel = kernel
        self.strides = ctx.ints("strides", [1] * n)
        self.dilations = ctx.ints("dilations", [1] * n)
        pads = explicit_pads(ctx, self.spatial, kernel, self.strides, self.dilations)
        if n == 1:
            self.kernel, self.strides, self.dilations = [1, *kernel], [1, *self.strides], [1, *self.dilations]
            self.pads = [0, pads[0], 0, pads[1]]
        else:
            self.pads = [pads[0], pads[1], pads[2], pads[3]]

    def to_2d(self, ctx: NodeContext, v: SSAValue) -> SSAValue:
        if self.rank == 2:
            return v
        shape = list(v.type.get_shape())  # type: ignore[attr-defined]
        return ctx.emit(graph.ReshapeOp(v, [*shape[:2], 1, shape[2]]))

    def from_2d(self, ctx: NodeContext, v: SSAValue) -> SSAValue:
        if self.rank == 2:
            return v
        n, c, _, w = v.type.get_shape()  # type: ignore[attr-defined]
        return ctx.emit(graph.ReshapeOp(v, [n, c, w]))


def _bias_add(ctx: NodeContext, y: SSAValue, i: int) -> SSAValue:
    if not ctx.has_input(i):
        return y
    rank = len(y.type.get_shape())  # type: ignore[attr-defined]
    s = ctx.static(i)
    view = [-1] + [1] * (rank - 2)
    if s is not None:
        b = ctx.const(s.reshape(view))
    else:
        b = ctx.emit(graph.ReshapeOp(ctx.value(i), [ctx.shape(i)[0], *view[1:]]))
    return ctx.emit(graph.AddOp(y, b))


@converter("Conv")
def _conv(ctx: NodeContext):
    w_shape = ctx.shape(1)
    kernel = ctx.ints("kernel_shape", list(w_shape[2:]))
    win = Window2d(ctx, kernel)
    x = win.to_2d(ctx, ctx.value(0))
    w = win.to_2d(ctx, ctx.value(1))
    y = ctx.emit(graph.Conv2dOp(x, w, win.strides, win.pads, win.dilations, int(ctx.attr("group", 1))))
    return [_bias_add(ctx, win.from_2d(ctx, y), 2)]


@converter("ConvTranspose")
def _conv_transpose(ctx: NodeContext):
    """The adjoint of a convolution: ``conv2d_grad_input`` of the weight."""
    w_shape = ctx.shape(1)
    kernel = ctx.ints("kernel_shape", list(w_shape[2:]))
    shape = ctx.shape(0)
    n = len(shape) - 2
    if n not in (1, 2):
        raise ConvertError(f"{n}-D ConvTranspose is not supported (1-D and 2-D are)")
    strides = ctx.ints("strides", [1] * n)
    dil = ctx.ints("dilations", [1] * n)
    out_pad = ctx.ints("output_padding", [0] * n)
    group = int(ctx.attr("group", 1))
    ext = [(k - 1) * d + 1 for k, d in zip(kernel, dil)]
    out_shape = ctx.ints("output_shape")
    auto = ctx.attr("auto_pad", "NOTSET")
    if out_shape is not None or auto in ("SAME_UPPER", "SAME_LOWER"):
        if out_shape is None:
            out_shape = [shape[2 + d] * strides[d] for d in range(n)]
        out_shape = list(out_shape[-n:])
        pads_b, pads_e = [], []
        for d in range(n):
            total = strides[d] * (shape[2 + d] - 1) + out_pad[d] + ext[d] - out_shape[d]
            if total < 0:  # trailing rows no window reaches: zero (plus bias)
                if -total >= strides[d]:
                    raise ConvertError(f"output_shape {out_shape} is larger than the op can produce")
                total = 0
            small = total // 2
            b = small if auto == "SAME_UPPER" else total - small
            pads_b.append(b)
            pads_e.append(total - b)
        pads = pads_b + pads_e
    else:
        pads = [0] * (2 * n) if auto == "VALID" else ctx.ints("pads", [0] * (2 * n))
        out_shape = [
            strides[d] * (shape[2 + d] - 1) + out_pad[d] + ext[d] - pads[d] - pads[n + d] for d in range(n)
        ]
    for d in range(n):
        if out_pad[d] >= max(strides[d], dil[d]):
            raise ConvertError(f"output_padding {out_pad} must be smaller than the stride or dilation")
    c_out = w_shape[1] * group
    x, w = ctx.value(0), ctx.value(1)
    if n == 1:
        x = ctx.emit(graph.ReshapeOp(x, [shape[0], shape[1], 1, shape[2]]))
        w = ctx.emit(graph.ReshapeOp(w, [w_shape[0], w_shape[1], 1, w_shape[2]]))
        strides, dil, pads, out2 = [1, *strides], [1, *dil], [0, pads[0], 0, pads[1]], [1, *out_shape]
    else:
        out2 = out_shape
    y = ctx.emit(Conv2dGradInputOp(x, w, [shape[0], c_out, *out2], strides, pads, dil, group))
    if n == 1:
        y = ctx.emit(graph.ReshapeOp(y, [shape[0], c_out, out_shape[0]]))
    return [_bias_add(ctx, y, 2)]


def _pool(ctx: NodeContext, cls, **extra):
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        raise ConvertError("the Indices output of MaxPool is not supported")
    kernel = ctx.ints("kernel_shape")
    if kernel is None:
        raise ConvertError("kernel_shape is required")
    win = Window2d(ctx, kernel)
    ceil = bool(ctx.attr("ceil_mode", 0))
    x = win.to_2d(ctx, ctx.value(0))
    y = ctx.emit(
        cls(x, win.kernel, win.strides, win.pads, dilations=win.dilations, ceil_mode=ceil, **extra)
    )
    return [win.from_2d(ctx, y)]


@converter("MaxPool")
def _max_pool(ctx: NodeContext):
    if ctx.attr("storage_order", 0):
        raise ConvertError("storage_order=1 is not supported")
    return _pool(ctx, graph.MaxPool2dOp)


@converter("AveragePool")
def _avg_pool(ctx: NodeContext):
    return _pool(ctx, graph.AvgPool2dOp, count_include_pad=bool(ctx.attr("count_include_pad", 0)))


@converter("GlobalAveragePool")
def _global_avg_pool(ctx: NodeContext):
    return [ctx.emit(graph.GlobalAvgPoolOp(ctx.value(0)))]


@converter("GlobalMaxPool")
def _global_max_pool(ctx: NodeContext):
    axes = list(range(2, ctx.rank(0)))
    return [ctx.emit(graph.ReduceMaxOp(ctx.value(0), axes, True))]


@converter("BatchNormalization")
def _batch_norm(ctx: NodeContext):
    if ctx.attr("training_mode", 0):
        raise ConvertError("training_mode=1 is not supported (graph-opt imports for inference)")
    if ctx.opset < 9 and ctx.attr("spatial", 1) == 0:
        raise ConvertError("spatial=0 is not supported")
    if any(o for o in ctx.node.output[1:]):
        raise ConvertError("the training outputs (running mean/var) are not supported")
    args = [ctx.value(i) for i in range(5)]
    return [ctx.emit(graph.BatchNormOp(*args, eps=float(ctx.attr("epsilon", 1e-5))))]


@converter("LRN")
def _lrn(ctx: NodeContext):
    return [
        ctx.emit(
            graph.LrnOp(
                ctx.value(0), int(ctx.attr("size")), float(ctx.attr("alpha", 1e-4)),
                float(ctx.attr("beta", 0.75)), float(ctx.attr("bias", 1.0)),
            )
        )
    ]


@converter("LayerNormalization")
def _layer_norm(ctx: NodeContext):
    """Y through ``graph.layer_norm``; the optional Mean and InvStdDev outputs
    from reductions (f32 statistics, keepdims, as ONNX returns them)."""
    axis = int(ctx.attr("axis", -1))
    eps = float(ctx.attr("epsilon", 1e-5))
    x = ctx.value(0)
    shape = ctx.shape(0)
    rank = len(shape)
    a = axis % rank
    scale = ctx.value(1)
    bias = ctx.value(2) if ctx.has_input(2) else ctx.const(np.zeros(shape[a:], np.float32), ctx.elem(0))
    outs: list = [ctx.emit(graph.LayerNormOp(x, scale, bias, axis, eps))]
    want = [bool(o) for o in ctx.node.output[1:]]
    if any(want):
        axes = list(range(a, rank))
        mean = ctx.emit(graph.ReduceMeanOp(x, axes, True))
        d = ctx.emit(graph.SubOp(x, mean))
        var = ctx.emit(graph.ReduceMeanOp(ctx.emit(graph.MulOp(d, d)), axes, True))
        inv = ctx.emit(graph.RsqrtOp(ctx.emit(graph.AddOp(var, ctx.const(eps, ctx.elem(0))))))
        outs += [mean, inv]
    return outs
