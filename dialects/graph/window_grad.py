"""Backward ops of convolution and pooling (NCHW, OIHW), for autodiff.

``conv2d_grad_input``, ``conv2d_grad_filter``, ``max_pool2d_grad`` and
``avg_pool2d_grad`` are defined by the forward op they differentiate; their
properties are the forward op's window (strides, padding as
top/left/bottom/right, dilations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, TensorType, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import shape_str, tensor, tensor_of_type, type_str
from graphopt.dialects.graph.properties import int_values
from graphopt.dialects.graph.window import DilatedWindowOp, GroupedOp, window_props


class WindowGradOp(DilatedWindowOp):
    """A 2-D window backward op: the forward op's window, with the dilations
    always given; ``check_window`` is the part of type inference they share."""

    result = result_def(TensorType)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OPAQUE

    @classmethod
    def check_window(
        cls,
        operand_types: Sequence[Attribute],
        strides: Sequence[int],
        padding: Sequence[int],
        dilations: Sequence[int],
    ) -> None:
        if len(strides) != 2 or min(strides) < 1:
            raise VerifyException(f"{cls.name}: strides must be 2 positive ints")
        if len(dilations) != 2 or min(dilations) < 1:
            raise VerifyException(f"{cls.name}: dilations must be 2 positive ints")
        if len(padding) != 4 or min(padding) < 0:
            raise VerifyException(f"{cls.name}: padding must be 4 non-negative ints")
        for i, t in enumerate(operand_types):
            if len(tensor_of_type(t).get_shape()) != 4:
                raise VerifyException(
                    f"{cls.name}: operand #{i} must have rank 4, got {type_str(t)}"
                )

    def padded_input_extent(self, h: int, w: int, oh: int, ow: int, kh: int, kw: int) -> tuple[int, int]:
        """Extents of a zero-padded input buffer every window read fits in."""
        (sh, sw), (dh, dw) = self.stride_values, self.dilation_values
        pt, pl, pb, pr = self.pad_values
        return (
            max(h + pt + pb, (kh - 1) * dh + sh * (oh - 1) + 1, pt + h),
            max(w + pl + pr, (kw - 1) * dw + sw * (ow - 1) + 1, pl + w),
        )

    def unpadded(self, dx: np.ndarray, h: int, w: int) -> list[np.ndarray]:
        """The result: the ``h x w`` input window of a padded-input gradient."""
        pt, pl, _, _ = self.pad_values
        return [np.asarray(dx[:, :, pt:pt + h, pl:pl + w], order="C")]


@irdl_op_definition
class Conv2dGradInputOp(WindowGradOp, GroupedOp):
    """The input gradient of ``graph.conv2d``: ``dx = conv2d^T(g, w)``.

    ``%dx = graph.conv2d_grad_input %g, %w {shape = array<i64: N, C, H, W>,
    strides, padding, dilations, groups = G}``: for every input element, the sum
    over the output positions and kernel taps that read it.
    """

    name = "graph.conv2d_grad_input"
    grad = operand_def(TensorType)
    weight = operand_def(TensorType)
    shape = prop_def(DenseArrayBase)
    assembly_format = "$grad `,` $weight attr-dict `:` functional-type(operands, results)"

    def __init__(self, grad: SSAValue, weight: SSAValue, shape: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1), groups: int = 1):
        window = window_props(strides, padding, dilations)
        super().__init__(operands=[grad, weight], properties={**window, "shape": shape, "groups": groups})

    @classmethod
    def infer_type(
        cls, grad: Attribute, weight: Attribute, shape: Sequence[int], strides: Sequence[int],
        padding: Sequence[int], dilations: Sequence[int], groups: int,
    ) -> Attribute:
        cls.check_window((grad, weight), strides, padding, dilations)
        n, c, _, _ = shape
        gs, ws = tensor_of_type(grad).get_shape(), tensor_of_type(weight).get_shape()
        if gs[0] != n or gs[1] != ws[0] or ws[1] * groups != c:
            raise VerifyException(
                f"graph.conv2d_grad_input: shapes do not match (grad {shape_str(gs)}, "
                f"weight {shape_str(ws)}, input {shape_str(shape)}, "
                f"groups {groups})"
            )
        return tensor(shape, tensor_of_type(grad).element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        g, w = inputs
        n, c, h, wd = int_values(self.shape)
        f, cg, kh, kw = w.shape
        oh, ow = g.shape[2:]
        groups = self.group_count
        fg = f // groups
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        dx = np.zeros((n, c, ph, pw), g.dtype)
        for grp in range(groups):
            gg = g[:, grp * fg:(grp + 1) * fg]
            for i, j, rs, cs in self.tap_slices(kh, kw, oh, ow):
                wk = w[grp * fg:(grp + 1) * fg, :, i, j]
                dx[:, grp * cg:(grp + 1) * cg, rs, cs] += np.einsum("nfhw,fc->nchw", gg, wk)
        return self.unpadded(dx, h, wd)


@irdl_op_definition
class Conv2dGradFilterOp(WindowGradOp, GroupedOp):
    """The weight gradient of ``graph.conv2d``: the correlation of the input
    with the output gradient.  ``kernel`` gives the filter's KH, KW."""

    name = "graph.conv2d_grad_filter"
    input = operand_def(TensorType)
    grad = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    assembly_format = "$input `,` $grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, grad: SSAValue, kernel: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1), groups: int = 1):
        window = window_props(strides, padding, dilations)
        super().__init__(operands=[input, grad], properties={**window, "kernel": kernel, "groups": groups})

    @classmethod
    def infer_type(
        cls, input: Attribute, grad: Attribute, kernel: Sequence[int], strides: Sequence[int],
        padding: Sequence[int], dilations: Sequence[int], groups: int,
    ) -> Attribute:
        cls.check_window((input, grad), strides, padding, dilations)
        xs, gs = tensor_of_type(input).get_shape(), tensor_of_type(grad).get_shape()
        if xs[0] != gs[0] or xs[1] % groups or gs[1] % groups:
            raise VerifyException(
                f"graph.conv2d_grad_filter: shapes do not match (input {shape_str(xs)}, "
                f"grad {shape_str(gs)}, groups {groups})"
            )
        shape = (gs[1], xs[1] // groups, *kernel)
        return tensor(shape, tensor_of_type(grad).element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, g = inputs
        n, c, h, wd = x.shape
        kh, kw = int_values(self.kernel)
        f, oh, ow = g.shape[1], g.shape[2], g.shape[3]
        groups = self.group_count
        fg, cg = f // groups, c // groups
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        pt, pl, _, _ = self.pad_values
        xp = np.zeros((n, c, ph, pw), x.dtype)
        xp[:, :, pt:pt + h, pl:pl + wd] = x
        dw = np.zeros((f, cg, kh, kw), x.dtype)
        for grp in range(groups):
            gg = g[:, grp * fg:(grp + 1) * fg]
            for i, j, rs, cs in self.tap_slices(kh, kw, oh, ow):
                patch = xp[:, grp * cg:(grp + 1) * cg, rs, cs]
                dw[grp * fg:(grp + 1) * fg, :, i, j] = np.einsum("nfhw,nchw->fc", gg, patch)
        return [dw]


@irdl_op_definition
class MaxPool2dGradOp(WindowGradOp):
    """The input gradient of ``graph.max_pool2d``: each window's gradient goes
    to the FIRST maximum of the window (row-major); overlapping windows
    accumulate.  Padding never wins (it reads as -inf); NaN is the maximum
    (numpy's argmax, PyTorch), so the window's first NaN gets the gradient."""

    name = "graph.max_pool2d_grad"
    input = operand_def(TensorType)
    grad = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    assembly_format = "$input `,` $grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, grad: SSAValue, kernel: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1)):
        super().__init__(
            operands=[input, grad], properties={**window_props(strides, padding, dilations), "kernel": kernel}
        )

    @classmethod
    def infer_type(
        cls, input: Attribute, grad: Attribute, strides: Sequence[int], padding: Sequence[int],
        dilations: Sequence[int],
    ) -> Attribute:
        cls.check_window((input, grad), strides, padding, dilations)
        xs, gs = tensor_of_type(input).get_shape(), tensor_of_type(grad).get_shape()
        if xs[:2] != gs[:2]:
            raise VerifyException(
                f"graph.max_pool2d_grad: batch and channels differ ({shape_str(xs)} vs {shape_str(gs)})"
            )
        return input

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, g = inputs
        n, c, h, wd = x.shape
        kh, kw = int_values(self.kernel)
        oh, ow = g.shape[2:]
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        pt, pl, _, _ = self.pad_values
        xp = np.full((n, c, ph, pw), -np.inf, x.dtype)
        xp[:, :, pt:pt + h, pl:pl + wd] = x
        taps = self.tap_slices(kh, kw, oh, ow)
        stacked = np.stack([xp[:, :, rs, cs] for _, _, rs, cs in taps])
        first = np.argmax(stacked, axis=0)  # first maximum, row-major over the taps
        dx = np.zeros((n, c, ph, pw), x.dtype)
        for t, (_, _, rs, cs) in enumerate(taps):
            dx[:, :, rs, cs] += np.where(first == t, g, 0)
        return self.unpadded(dx, h, wd)


@irdl_op_definition
class AvgPool2dGradOp(WindowGradOp):
    """The input gradient of ``graph.avg_pool2d``: each window's gradient,
    divided by its divisor (the number of taps inside the input, or with
    ``count_include_pad`` inside the padded input -- KH*KW unless a ceil-mode
    window hangs past the padding), spread over the window."""

    name = "graph.avg_pool2d_grad"
    grad = operand_def(TensorType)
    shape = prop_def(DenseArrayBase)
    kernel = prop_def(DenseArrayBase)
    count_include_pad = opt_prop_def(UnitAttr)
    assembly_format = "$grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, grad: SSAValue, shape: Sequence[int], kernel: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1), count_include_pad: bool = False):
        props = {"kernel": kernel, "shape": shape, "count_include_pad": count_include_pad}
        super().__init__(operands=[grad], properties={**window_props(strides, padding, dilations), **props})

    @classmethod
    def infer_type(
        cls, grad: Attribute, shape: Sequence[int], strides: Sequence[int], padding: Sequence[int],
        dilations: Sequence[int],
    ) -> Attribute:
        cls.check_window((grad,), strides, padding, dilations)
        gs, xs = tensor_of_type(grad).get_shape(), tuple(shape)
        if len(xs) != 4 or tuple(gs[:2]) != xs[:2]:
            raise VerifyException(
                f"graph.avg_pool2d_grad: batch and channels differ ({shape_str(xs)} vs {shape_str(gs)})"
            )
        return tensor(xs, tensor_of_type(grad).element_type)

    def divisors(self, h: int, w: int, oh: int, ow: int) -> np.ndarray:
        """The divisor of every window, (oh, ow)."""
        kh, kw = int_values(self.kernel)
        (sh, sw), (dh, dw) = self.stride_values, self.dilation_values
        pt, pl, pb, pr = self.pad_values
        if self.count_include_pad is not None:  # taps inside the padded input (ceil mode: not past it)
            lo_h, hi_h, lo_w, hi_w = -pt, h + pb, -pl, w + pr
        else:
            lo_h, hi_h, lo_w, hi_w = 0, h, 0, w
        rows = np.array([sum(lo_h <= r * sh + i * dh - pt < hi_h for i in range(kh)) for r in range(oh)])
        cols = np.array([sum(lo_w <= q * sw + j * dw - pl < hi_w for j in range(kw)) for q in range(ow)])
        return np.outer(rows, cols).astype(np.float64)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (g,) = inputs
        n, c, h, wd = int_values(self.shape)
        kh, kw = int_values(self.kernel)
        oh, ow = g.shape[2:]
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        share = (g / self.divisors(h, wd, oh, ow)).astype(g.dtype)
        dx = np.zeros((n, c, ph, pw), g.dtype)
        for _, _, rs, cs in self.tap_slices(kh, kw, oh, ow):
            dx[:, :, rs, cs] += share
        return self.unpadded(dx, h, wd)
