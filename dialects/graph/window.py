"""Sliding-window ops of convolutional networks: conv2d and pooling, and the
window geometry their backward ops (``window_grad``) share.  Layout is NCHW,
weights OIHW.

    %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
    %m = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    %a = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, count_include_pad} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    %g = graph.global_avg_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>

A window op reads input row ``oh*sh - pad_top + kh*dh`` (columns alike).
Reads outside the input are zero for conv2d, -inf for max_pool2d and are
left out of (or, with ``count_include_pad``, counted as zeros in) the average
of avg_pool2d.  Output sizes use floor division; the pools also have
``dilations`` and ``ceil_mode`` (ONNX MaxPool/AveragePool since opset 10).
Pool strides default to 1, as in ONNX (PyTorch defaults them to the kernel).

All of them are OutEWiseFusable, as in TVM (``global_avg_pool2d`` included):
an elementwise epilogue fuses into them, nothing fuses into their inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    FLOAT_TYPES, GraphOp, check_static_tensor, shape_str, tensor, tensor_of, tensor_of_type,
    type_str,
)
from graphopt.dialects.graph.families import PureOp, UnaryTensorOp
from graphopt.dialects.graph.properties import PropertyValue


def _rank4(op_name: str, what: str, t: Attribute) -> tuple[int, int, int, int]:
    check_static_tensor(op_name, what, t)
    shape = tensor_of_type(t).get_shape()
    if len(shape) != 4:
        raise VerifyException(f"{op_name}: {what} must have rank 4 (NCHW), got {type_str(t)}")
    return tuple(shape)  # type: ignore[return-value]


def check_window_props(
    op_name: str, strides: Sequence[int], padding: Sequence[int], dilations: Sequence[int]
) -> None:
    if len(strides) != 2 or min(strides) < 1:
        raise VerifyException(f"{op_name}: strides must be 2 positive ints, got {list(strides)}")
    if len(padding) != 4 or min(padding) < 0:
        raise VerifyException(
            f"{op_name}: padding must be 4 non-negative ints (top, left, bottom, right), "
            f"got {list(padding)}"
        )
    if len(dilations) != 2 or min(dilations) < 1:
        raise VerifyException(f"{op_name}: dilations must be 2 positive ints, got {list(dilations)}")


def window_output_size(
    op_name: str,
    hw: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    dilations: Sequence[int],
) -> tuple[int, int]:
    """``(OH, OW)``; the (dilated) kernel must fit in the padded input."""
    out: list[int] = []
    for d in range(2):
        padded = hw[d] + padding[d] + padding[d + 2]
        extent = (kernel[d] - 1) * dilations[d] + 1
        if extent > padded:
            raise VerifyException(
                f"{op_name}: kernel {shape_str(kernel)} (dilated extent {extent}) does not fit "
                f"in the padded input {shape_str(hw)} (padded size {padded} on axis {d + 2})"
            )
        out.append((padded - extent) // strides[d] + 1)
    return out[0], out[1]


def window_props(
    strides: Sequence[int], padding: Sequence[int], dilations: Sequence[int] | None
) -> dict[str, object]:
    """The window properties of a constructor, in the order they print."""
    return {"strides": strides, "padding": padding, "dilations": dilations}


def pad_nchw(x: np.ndarray, padding: Sequence[int], value: float) -> np.ndarray:
    pt, pl, pb, pr = padding
    if not any(padding):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)


# Shared index map of a 2-D window op: output (oh, ow) reads input
# (oh*sh + kh*dh - pad_top, ow*sw + kw*dw - pad_left); reads outside the
# input are zero (conv), -inf (max pool) or skipped (avg pool).
class WindowOp(PureOp):
    """A 2-D sliding-window op, forward or backward: strides, padding
    (top, left, bottom, right), dilations, and the input rows and columns
    each kernel tap reads."""

    strides = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)  # top, left, bottom, right

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    stride_values = PropertyValue(strides)

    pad_values = PropertyValue(padding)

    @property
    def dilation_values(self) -> tuple[int, ...]:
        return (1, 1)

    def window_slices(self, kh: int, kw: int, oh: int, ow: int) -> tuple[slice, slice]:
        """Rows and columns of the padded input that kernel tap (kh, kw) reads
        for an ``oh x ow`` output."""
        (sh, sw), (dh, dw) = self.stride_values, self.dilation_values
        return (
            slice(kh * dh, kh * dh + sh * (oh - 1) + 1, sh),
            slice(kw * dw, kw * dw + sw * (ow - 1) + 1, sw),
        )

    def tap_slices(self, kh: int, kw: int, oh: int, ow: int) -> list[tuple[int, int, slice, slice]]:
        """Every tap ``(i, j)`` of a ``kh x kw`` kernel, row-major, with the
        rows and columns of the padded input it reads (:meth:`window_slices`)."""
        return [(i, j, *self.window_slices(i, j, oh, ow)) for i in range(kh) for j in range(kw)]


class GroupedOp(GraphOp):
    """An op whose channels split into ``groups`` (conv2d and its gradients)."""

    groups = prop_def(IntegerAttr)

    group_count = PropertyValue(groups)


class DilatedWindowOp(WindowOp):
    """A window op whose ``dilations`` are always given (conv2d, the backward
    ops)."""

    dilations = prop_def(DenseArrayBase)

    dilation_values = PropertyValue(dilations)


@irdl_op_definition
class Conv2dOp(DilatedWindowOp, GroupedOp):
    """2-D convolution (cross-correlation), NCHW input, OIHW weight.

    ``groups`` splits the C input and O output channels into that many
    groups; output channel ``o`` reads input channels
    ``[g*C/groups, (g+1)*C/groups)`` with ``g = o // (O/groups)``, so the
    weight is ``O x C/groups x KH x KW``.  Depthwise: ``groups == C``.

    Padding is a real zero that is multiplied (ONNX, PyTorch): an infinite
    or NaN weight gives NaN at padded taps, and an output whose window lies
    in the padding never sees the input.
    """

    name = "graph.conv2d"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$input `,` $weight attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue,
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilations: Sequence[int] = (1, 1),
        groups: int = 1,
    ):
        super().__init__(
            operands=[input, weight],
            properties={**window_props(strides, padding, dilations), "groups": groups},
        )

    @classmethod
    def infer_type(
        cls,
        input: Attribute,
        weight: Attribute,
        strides: Sequence[int],
        padding: Sequence[int],
        dilations: Sequence[int],
        groups: int,
    ) -> TensorType:
        name = cls.name
        n, c, h, w = _rank4(name, "input", input)
        o, cg, kh, kw = _rank4(name, "weight", weight)
        check_window_props(name, strides, padding, dilations)
        x_elem, w_elem = tensor_of_type(input).element_type, tensor_of_type(weight).element_type
        if x_elem != w_elem:
            raise VerifyException(f"{name}: element types differ ({x_elem} vs {w_elem})")
        shapes = f"input {shape_str((n, c, h, w))}, weight {shape_str((o, cg, kh, kw))}"
        if groups < 1:
            raise VerifyException(f"{name}: groups must be positive, got {groups}")
        if c % groups or o % groups:
            raise VerifyException(
                f"{name}: input channels {c} and output channels {o} must both be divisible "
                f"by groups {groups} ({shapes})"
            )
        if cg != c // groups:
            raise VerifyException(
                f"{name}: weight has {cg} input channels per group, expected "
                f"{c // groups} = {c} / groups {groups} ({shapes})"
            )
        if kh < 1 or kw < 1:
            raise VerifyException(f"{name}: empty kernel ({shapes})")
        oh, ow = window_output_size(name, (h, w), (kh, kw), strides, padding, dilations)
        return tensor((n, o, oh, ow), x_elem)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """One batched contraction per kernel tap, all groups at once."""
        x, w = inputs
        n, c, _, _ = x.shape
        o, cg, kh, kw = w.shape
        _, _, oh, ow = tensor_of(self.result).get_shape()
        groups = self.group_count
        og = o // groups
        xp = pad_nchw(x, self.pad_values, 0.0)
        wg = w.reshape(groups, og, cg, kh, kw)
        out = np.zeros((n, groups, og, oh, ow), x.dtype)
        for i, j, rs, cs in self.tap_slices(kh, kw, oh, ow):
            patch = xp[:, :, rs, cs].reshape(n, groups, cg, oh, ow)
            out += np.einsum("ngchw,goc->ngohw", patch, wg[:, :, :, i, j])
        return [out.reshape(n, o, oh, ow)]


class Pool2dOp(WindowOp, UnaryTensorOp):
    """``max_pool2d`` / ``avg_pool2d``: a ``kernel`` window per output element.

    ``dilations`` spaces the taps (default 1).  With ``ceil_mode`` the output
    size rounds up (ONNX, PyTorch): the last window may hang past the bottom
    or right padding, but it starts inside the input or the top/left
    padding; taps past the padding are read like padding (-inf for max,
    never counted by avg).  Every pad must be smaller than the kernel on its
    axis, so every window holds at least one input element."""

    kernel = prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    ceil_mode = opt_prop_def(UnitAttr)

    def __init__(
        self,
        input: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilations: Sequence[int] = (1, 1),
        ceil_mode: bool = False,
        **extra: Attribute,
    ):
        dilated = None if tuple(dilations) == (1, 1) else dilations
        props = {"kernel": kernel, "strides": strides, "padding": padding, **extra}
        super().__init__(operands=[input], properties={**props, "dilations": dilated, "ceil_mode": ceil_mode})

    @classmethod
    def output_size(
        cls, size: int, k: int, s: int, pad_begin: int, pad_end: int, d: int, ceil_mode: bool
    ) -> int:
        extent = (k - 1) * d + 1
        span = size + pad_begin + pad_end - extent
        if not ceil_mode:
            return span // s + 1
        out = -(-span // s) + 1
        if (out - 1) * s >= size + pad_begin:  # the last window must start inside
            out -= 1
        return out

    @classmethod
    def infer_type(
        cls,
        input: Attribute,
        kernel: Sequence[int],
        strides: Sequence[int],
        padding: Sequence[int],
        dilations: Sequence[int] = (1, 1),
        ceil_mode: bool = False,
    ) -> TensorType:
        name = cls.name
        n, c, h, w = _rank4(name, "input", input)
        if len(kernel) != 2 or min(kernel) < 1:
            raise VerifyException(f"{name}: kernel must be 2 positive ints, got {list(kernel)}")
        check_window_props(name, strides, padding, dilations)
        for d in range(2):
            if padding[d] >= kernel[d] or padding[d + 2] >= kernel[d]:
                raise VerifyException(
                    f"{name}: padding {list(padding)} must be smaller than the kernel "
                    f"{shape_str(kernel)} on each axis"
                )
        window_output_size(name, (h, w), kernel, strides, padding, dilations)  # the window fits
        oh, ow = (
            cls.output_size((h, w)[d], kernel[d], strides[d], padding[d], padding[d + 2], dilations[d], ceil_mode)
            for d in range(2)
        )
        return tensor((n, c, oh, ow), tensor_of_type(input).element_type)

    kernel_values = PropertyValue(kernel)

    dilation_values = PropertyValue(dilations, default=(1, 1))

    is_ceil_mode = PropertyValue(ceil_mode, default=False)

    def extra_pad_values(self) -> tuple[int, int]:
        """Rows and columns the last windows read past the bottom/right padding."""
        _, _, h, w = tensor_of(self.input).get_shape()
        _, _, oh, ow = tensor_of(self.result).get_shape()
        pads, s, dil, k = self.pad_values, self.stride_values, self.dilation_values, self.kernel_values
        return tuple(  # type: ignore[return-value]
            max(0, (o - 1) * s[d] + (k[d] - 1) * dil[d] + 1 - (size + pads[d] + pads[d + 2]))
            for d, (size, o) in enumerate(((h, oh), (w, ow)))
        )

    def padded(self, x: np.ndarray, value: float, beyond: float | None = None) -> np.ndarray:
        """``x`` padded with ``value``, and with ``beyond`` (default ``value``)
        past the padding where ceil mode reads."""
        pt, pl, pb, pr = self.pad_values
        eh, ew = self.extra_pad_values()
        xp = pad_nchw(x, (pt, pl, pb, pr), value)
        if eh or ew:
            xp = pad_nchw(xp, (0, 0, eh, ew), value if beyond is None else beyond)
        return xp

    def taps(self, xp: np.ndarray) -> list[np.ndarray]:
        """The strided view of the padded input each kernel tap reads."""
        _, _, oh, ow = tensor_of(self.result).get_shape()
        kh, kw = self.kernel_values
        return [xp[:, :, rs, cs] for _, _, rs, cs in self.tap_slices(kh, kw, oh, ow)]


@irdl_op_definition
class MaxPool2dOp(Pool2dOp):
    """Window maximum; padding reads as -inf (never wins); NaN propagates."""

    name = "graph.max_pool2d"

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        xp = self.padded(x, -np.inf)
        out = None
        for view in self.taps(xp):
            out = view.copy() if out is None else np.maximum(out, view)
        return [np.asarray(out, order="C")]


@irdl_op_definition
class AvgPool2dOp(Pool2dOp):
    """Window mean.  The divisor is ``KH*KW`` with ``count_include_pad``
    (padding counts as zeros), else the number of taps inside the input."""

    name = "graph.avg_pool2d"
    count_include_pad = opt_prop_def(UnitAttr)

    def __init__(
        self,
        input: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        count_include_pad: bool = False,
        dilations: Sequence[int] = (1, 1),
        ceil_mode: bool = False,
    ):
        extra = {"count_include_pad": UnitAttr()} if count_include_pad else {}
        super().__init__(input, kernel, strides, padding, dilations, ceil_mode, **extra)

    includes_pad = PropertyValue(count_include_pad, default=False)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """The divisor counts the taps inside the input (and, with
        ``count_include_pad``, inside the padding), never those past it."""
        (x,) = inputs
        total = sum(v.astype(x.dtype) for v in self.taps(self.padded(x, 0.0)))
        ones = np.ones((1, 1, *x.shape[2:]), x.dtype)
        count = sum(self.taps(self.padded(ones, 1.0 if self.includes_pad else 0.0, 0.0)))
        return [np.asarray(total / np.asarray(count, x.dtype), order="C")]


@irdl_op_definition
class GlobalAvgPoolOp(UnaryTensorOp):
    """Mean over every spatial axis: ``N x C x D1 x ... -> N x C x 1 x ...``.

    OutEWiseFusable as in TVM (``nn.global_avg_pool2d``), although it is a
    reduction: like the other pools it anchors a group with its epilogue."""

    name = "graph.global_avg_pool"
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input])

    @classmethod
    def infer_type(cls, input: Attribute) -> TensorType:
        check_static_tensor(cls.name, "input", input)
        t = tensor_of_type(input)
        shape = t.get_shape()
        if len(shape) < 3:
            raise VerifyException(
                f"{cls.name}: input must have rank >= 3 (N, C, spatial...), got {type_str(t)}"
            )
        if 0 in shape[2:]:
            raise VerifyException(f"{cls.name}: empty spatial axis in {type_str(t)}")
        return tensor((shape[0], shape[1], *([1] * (len(shape) - 2))), t.element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        axes = tuple(range(2, x.ndim))
        return [np.mean(x, axis=axes, keepdims=True).astype(x.dtype, copy=False)]
