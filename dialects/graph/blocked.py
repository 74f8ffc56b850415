"""The blocked channel layout NCHWc: ``[N, C/b, H, W, b]``, ``b`` channels of
one pixel side by side (``b = 16``: one 64-byte line of f32 on AVX-512).

A conv over it reads and writes whole lines in sequence, where an NCHW conv
tile writes a short run into each of hundreds of channel rows.  The ops:

    %b = graph.reorder_nchwc %x {block = 16 : i64} : (tensor<1x32x8x8xf32>) -> tensor<1x2x8x8x16xf32>
    %x = graph.reorder_nchw %b : (tensor<1x2x8x8x16xf32>) -> tensor<1x32x8x8xf32>
    %y = graph.conv2d_nchwc %b, %w {strides = ..., padding = ..., dilations = ..., block = 16 : i64}
           : (tensor<1x2x8x8x16xf32>, tensor<64x32x3x3xf32>) -> tensor<1x4x8x8x16xf32>

    %p = graph.max_pool2d_nchwc %b {kernel = ..., strides = ..., padding = ...}
           : (tensor<1x4x112x112x16xf32>) -> tensor<1x4x56x56x16xf32>

``conv2d_nchwc`` is ``reorder_nchwc(conv2d(unblocked input, w))`` with one
group: its input is blocked (any block dividing C) or plain NCHW (the stem
conv of a network, 3 channels), its weight stays OIHW (the lowering packs
it), its output is blocked by ``block``.  Elementwise ops need no blocked
form: they apply to the 5-D tensors as they are; ``max_pool2d_nchwc`` is
``reorder_nchwc(max_pool2d(reorder_nchw(x)))`` (unit dilations, no ceil
mode), so a network's stem stays blocked through its pool, a per-channel constant
becoming ``[C/b, 1, 1, b]`` (``transforms/layout_nchwc.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import check_static_tensor, shape_str, tensor, tensor_of, tensor_of_type, type_str
from graphopt.dialects.graph.families import UnaryTensorOp
from graphopt.dialects.graph.properties import PropertyValue
from graphopt.dialects.graph.window import (
    DilatedWindowOp, WindowOp, check_window_props, pad_nchw, window_output_size, window_props,
)


def _shape(op_name: str, what: str, t: Attribute, ranks: tuple[int, ...]) -> tuple[int, ...]:
    check_static_tensor(op_name, what, t)
    shape = tuple(tensor_of_type(t).get_shape())
    if len(shape) not in ranks:
        layouts = " or ".join({4: "4 (NCHW)", 5: "5 (NCHWc)"}[r] for r in ranks)
        raise VerifyException(f"{op_name}: {what} must have rank {layouts}, got {type_str(t)}")
    return shape


def _check_block(op_name: str, block: int | None, channels: int, what: str) -> int:
    if block is None or block < 1:
        raise VerifyException(f"{op_name}: block must be a positive int, got {block}")
    if channels % block:
        raise VerifyException(f"{op_name}: {what} channels {channels} are not a multiple of block {block}")
    return block


def to_blocked(x: np.ndarray, block: int) -> np.ndarray:
    """``[N, C, H, W]`` -> ``[N, C/b, H, W, b]``."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def from_blocked(x: np.ndarray) -> np.ndarray:
    """``[N, C/b, H, W, b]`` -> ``[N, C, H, W]``."""
    n, cb, h, w, b = x.shape
    return np.ascontiguousarray(x.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w))


@irdl_op_definition
class ReorderNchwcOp(UnaryTensorOp):
    """NCHW -> NCHWc: ``out[n, cb, h, w, c] = in[n, cb*b + c, h, w]``."""

    name = "graph.reorder_nchwc"
    block = prop_def(IntegerAttr)
    block_size = PropertyValue(block)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE

    def __init__(self, input: SSAValue, block: int = 16):
        super().__init__(operands=[input], properties={"block": block})

    @classmethod
    def infer_type(cls, input: Attribute, block: int | None = None) -> TensorType:
        n, c, h, w = _shape(cls.name, "input", input, (4,))
        b = _check_block(cls.name, block, c, "input")
        return tensor((n, c // b, h, w, b), tensor_of_type(input).element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [to_blocked(inputs[0], self.block_size)]


@irdl_op_definition
class ReorderNchwOp(UnaryTensorOp):
    """NCHWc -> NCHW: ``out[n, c, h, w] = in[n, c / b, h, w, c % b]``."""

    name = "graph.reorder_nchw"

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input])

    @classmethod
    def infer_type(cls, input: Attribute) -> TensorType:
        n, cb, h, w, b = _shape(cls.name, "input", input, (5,))
        return tensor((n, cb * b, h, w), tensor_of_type(input).element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [from_blocked(inputs[0])]


@irdl_op_definition
class Conv2dNchwcOp(DilatedWindowOp):
    """One-group conv2d from an NCHWc (or NCHW) input to an NCHWc output,
    OIHW weight: ``reorder_nchwc(conv2d(x, w))`` (padding a real zero)."""

    name = "graph.conv2d_nchwc"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    block = prop_def(IntegerAttr)
    block_size = PropertyValue(block)

    assembly_format = "$input `,` $weight attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue,
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilations: Sequence[int] = (1, 1),
        block: int = 16,
    ):
        super().__init__(operands=[input, weight], properties={**window_props(strides, padding, dilations), "block": block})

    @classmethod
    def infer_type(
        cls, input: Attribute, weight: Attribute, strides: Sequence[int], padding: Sequence[int],
        dilations: Sequence[int], block: int | None = None,
    ) -> TensorType:  # fmt: skip
        name = cls.name
        x = _shape(name, "input", input, (4, 5))
        n, c, h, w = (x[0], x[1] * x[4], x[2], x[3]) if len(x) == 5 else x
        o, ci, kh, kw = _shape(name, "weight", weight, (4,))
        check_window_props(name, strides, padding, dilations)
        x_elem, w_elem = tensor_of_type(input).element_type, tensor_of_type(weight).element_type
        if x_elem != w_elem:
            raise VerifyException(f"{name}: element types differ ({x_elem} vs {w_elem})")
        if ci != c:
            raise VerifyException(
                f"{name}: weight {shape_str((o, ci, kh, kw))} reads {ci} input channels, the input has {c}"
            )
        if kh < 1 or kw < 1:
            raise VerifyException(f"{name}: empty kernel {shape_str((kh, kw))}")
        b = _check_block(name, block, o, "output")
        oh, ow = window_output_size(name, (h, w), (kh, kw), strides, padding, dilations)
        return tensor((n, o // b, oh, ow, b), x_elem)

    @property
    def blocked_input(self) -> bool:
        return len(tensor_of(self.input).get_shape()) == 5

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """The NCHW conv (one contraction per tap) of the unblocked input, blocked."""
        x, w = inputs
        plain = from_blocked(x) if x.ndim == 5 else x
        n, cb, oh, ow, b = tensor_of(self.result).get_shape()
        xp = pad_nchw(plain, self.pad_values, 0.0)
        out = np.zeros((n, cb * b, oh, ow), x.dtype)
        for i, j, rs, cs in self.tap_slices(w.shape[2], w.shape[3], oh, ow):
            out += np.einsum("nchw,oc->nohw", xp[:, :, rs, cs], w[:, :, i, j])
        return [to_blocked(out, b)]


def to_blocked_depthwise_weight(w: np.ndarray, block: int) -> np.ndarray:
    """A depthwise OIHW weight ``[C, 1, KH, KW]`` -> ``[C/b, KH, KW, b]``."""
    c, _, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(c // block, block, kh, kw).transpose(0, 2, 3, 1))


@irdl_op_definition
class DepthwiseConv2dNchwcOp(DilatedWindowOp):
    """A depthwise conv2d (one channel a group) over an NCHWc tensor, block
    by block: ``out[n, cb, y, x, c] = sum over taps (ky, kx) of
    x[n, cb, y*sy + ky*dy - pt, x*sx + kx*dx - pl, c] * w[cb, ky, kx, c]``,
    padding a real zero (multiplied).  The weight is blocked as the channels
    (``[C/b, KH, KW, b]``, :func:`to_blocked_depthwise_weight`), so the 16
    channels of a pixel are one vector of input and one of weight."""

    name = "graph.depthwise_conv2d_nchwc"
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
    ):
        super().__init__(operands=[input, weight], properties=window_props(strides, padding, dilations))

    @classmethod
    def infer_type(
        cls, input: Attribute, weight: Attribute, strides: Sequence[int], padding: Sequence[int],
        dilations: Sequence[int],
    ) -> TensorType:  # fmt: skip
        name = cls.name
        n, cb, h, w, b = _shape(name, "input", input, (5,))
        check_static_tensor(name, "weight", weight)
        wshape = tuple(tensor_of_type(weight).get_shape())
        if len(wshape) != 4 or wshape[0] != cb or wshape[3] != b:
            raise VerifyException(
                f"{name}: weight must be [{cb}, KH, KW, {b}] (the input's blocks), got {type_str(weight)}"
            )
        x_elem, w_elem = tensor_of_type(input).element_type, tensor_of_type(weight).element_type
        if x_elem != w_elem:
            raise VerifyException(f"{name}: element types differ ({x_elem} vs {w_elem})")
        kh, kw = wshape[1:3]
        if kh < 1 or kw < 1:
            raise VerifyException(f"{name}: empty kernel {shape_str((kh, kw))}")
        check_window_props(name, strides, padding, dilations)
        oh, ow = window_output_size(name, (h, w), (kh, kw), strides, padding, dilations)
        return tensor((n, cb, oh, ow, b), x_elem)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """One broadcast multiply-add per tap, in tap order."""
        x, w = inputs
        pt, pl, pb, pr = self.pad_values
        xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr), (0, 0)))
        n, cb, oh, ow, b = tensor_of(self.result).get_shape()
        out = np.zeros((n, cb, oh, ow, b), x.dtype)
        for i, j, rs, cs in self.tap_slices(w.shape[1], w.shape[2], oh, ow):
            out += xp[:, :, rs, cs, :] * w[:, i, j, :][None, :, None, None, :]
        return [out]


@irdl_op_definition
class MaxPool2dNchwcOp(WindowOp, UnaryTensorOp):
    """Window maximum over an NCHWc tensor, block by block: padding reads as
    -inf (never wins), NaN propagates."""

    name = "graph.max_pool2d_nchwc"
    kernel = prop_def(DenseArrayBase)
    kernel_values = PropertyValue(kernel)

    def __init__(
        self, input: SSAValue, kernel: Sequence[int], strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
    ):  # fmt: skip
        super().__init__(operands=[input], properties={"kernel": kernel, "strides": strides, "padding": padding})

    @classmethod
    def infer_type(
        cls, input: Attribute, kernel: Sequence[int], strides: Sequence[int], padding: Sequence[int]
    ) -> TensorType:
        name = cls.name
        n, cb, h, w, b = _shape(name, "input", input, (5,))
        if len(kernel) != 2 or min(kernel) < 1:
            raise VerifyException(f"{name}: kernel must be 2 positive ints, got {list(kernel)}")
        check_window_props(name, strides, padding, (1, 1))
        if any(padding[d] >= kernel[d] or padding[d + 2] >= kernel[d] for d in range(2)):
            raise VerifyException(f"{name}: padding {list(padding)} must be smaller than the kernel {list(kernel)}")
        oh, ow = window_output_size(name, (h, w), kernel, strides, padding, (1, 1))
        return tensor((n, cb, oh, ow, b), tensor_of_type(input).element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        pt, pl, pb, pr = self.pad_values
        xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=-np.inf)
        _, _, oh, ow, _ = tensor_of(self.result).get_shape()
        kh, kw = self.kernel_values
        out = None
        for _, _, rs, cs in self.tap_slices(kh, kw, oh, ow):
            view = xp[:, :, rs, cs]
            out = view.copy() if out is None else np.maximum(out, view)
        return [np.asarray(out, dtype=x.dtype, order="C")]


__all__ = ["Conv2dNchwcOp", "DepthwiseConv2dNchwcOp", "MaxPool2dNchwcOp", "ReorderNchwOp", "ReorderNchwcOp", "from_blocked", "to_blocked", "to_blocked_depthwise_weight"]
