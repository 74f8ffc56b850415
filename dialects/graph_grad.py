"""Graph ops that gradients need and the forward op set lacks.

    %s = graph.add_n %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

``graph.add_n`` is the n-ary sum autodiff aggregates gradient contributions
with (one op, not a chain of adds, so fan-out of k uses costs one node).
The backward ops of convolution and pooling (``conv2d_grad_input``,
``conv2d_grad_filter``, ``max_pool2d_grad``, ``avg_pool2d_grad``) are
defined by the forward op they differentiate; their properties are the
forward op's window (strides, padding as top/left/bottom/right, dilations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, UnitAttr, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph_base import (
    FLOAT_TYPES,
    NUMERIC_TYPES,
    GraphOp,
    check_static_tensor,
    dense_i64_array,
    shape_str,
    tensor,
    tensor_of,
    type_str,
)


@irdl_op_definition
class AddNOp(GraphOp):
    """Elementwise sum of one or more tensors of one type."""

    name = "graph.add_n"
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.ELEMWISE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES
    traits = traits_def(Pure())
    assembly_format = "$inputs attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, inputs: Sequence[SSAValue]):
        inputs = list(inputs)
        super().__init__(operands=[inputs], result_types=[self.infer_type([v.type for v in inputs])])

    @classmethod
    def infer_type(cls, types: Sequence[Attribute]) -> Attribute:
        if not types:
            raise VerifyException("graph.add_n: needs at least one operand")
        for i, t in enumerate(types):
            check_static_tensor(cls.name, f"operand #{i}", t)
        if any(t != types[0] for t in types):
            raise VerifyException(
                "graph.add_n: operands must all have one type ("
                + " vs ".join(type_str(t) for t in types)
                + ")"
            )
        return types[0]

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type([v.type for v in self.inputs])]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        total = inputs[0].copy()
        for x in inputs[1:]:
            total = total + x
        return [np.asarray(total, dtype=inputs[0].dtype)]


# --------------------------------------------------------------------------
# convolution and pooling backward ops (NCHW, OIHW)
# --------------------------------------------------------------------------
#
# Shared index map of a 2-D window op: output (oh, ow) reads input
# (oh*sh + kh*dh - pad_top, ow*sw + kw*dw - pad_left); reads outside the
# input are zero (conv), -inf (max pool) or skipped (avg pool).


def _ints(attr: DenseArrayBase) -> tuple[int, ...]:
    return tuple(attr.get_values())  # type: ignore[arg-type]


def window_props(
    strides: Sequence[int], padding: Sequence[int], dilations: Sequence[int]
) -> dict[str, Attribute]:
    return {
        "strides": dense_i64_array(strides),
        "padding": dense_i64_array(padding),
        "dilations": dense_i64_array(dilations),
    }


class WindowGradOp(GraphOp):
    """Common properties and checks of the 2-D window backward ops."""

    strides = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)  # top, left, bottom, right
    dilations = prop_def(DenseArrayBase)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OPAQUE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    @property
    def stride_values(self) -> tuple[int, int]:
        return _ints(self.strides)  # type: ignore[return-value]

    @property
    def pad_values(self) -> tuple[int, int, int, int]:
        return _ints(self.padding)  # type: ignore[return-value]

    @property
    def dilation_values(self) -> tuple[int, int]:
        return _ints(self.dilations)  # type: ignore[return-value]

    def check_window(self) -> None:
        if len(self.stride_values) != 2 or min(self.stride_values) < 1:
            raise VerifyException(f"{self.name}: strides must be 2 positive ints")
        if len(self.dilation_values) != 2 or min(self.dilation_values) < 1:
            raise VerifyException(f"{self.name}: dilations must be 2 positive ints")
        if len(self.pad_values) != 4 or min(self.pad_values) < 0:
            raise VerifyException(f"{self.name}: padding must be 4 non-negative ints")
        for i, v in enumerate(self.operands):
            if len(tensor_of(v).get_shape()) != 4:
                raise VerifyException(
                    f"{self.name}: operand #{i} must have rank 4, got {type_str(v.type)}"
                )

    def padded_input_extent(self, h: int, w: int, oh: int, ow: int, kh: int, kw: int) -> tuple[int, int]:
        """Extents of a zero-padded input buffer every window read fits in."""
        (sh, sw), (dh, dw) = self.stride_values, self.dilation_values
        pt, pl, pb, pr = self.pad_values
        return (
            max(h + pt + pb, (kh - 1) * dh + sh * (oh - 1) + 1, pt + h),
            max(w + pl + pr, (kw - 1) * dw + sw * (ow - 1) + 1, pl + w),
        )

    def window_slices(self, kh: int, kw: int, oh: int, ow: int) -> tuple[slice, slice]:
        (sh, sw), (dh, dw) = self.stride_values, self.dilation_values
        return (
            slice(kh * dh, kh * dh + sh * (oh - 1) + 1, sh),
            slice(kw * dw, kw * dw + sw * (ow - 1) + 1, sw),
        )


def _shape_prop(values: Sequence[int]) -> DenseArrayBase:
    return dense_i64_array(values)


@irdl_op_definition
class Conv2dGradInputOp(WindowGradOp):
    """The input gradient of ``graph.conv2d``: ``dx = conv2d^T(g, w)``.

    ``%dx = graph.conv2d_grad_input %g, %w {shape = array<i64: N, C, H, W>,
    strides, padding, dilations, groups = G}``: for every input element, the sum
    over the output positions and kernel taps that read it.
    """

    name = "graph.conv2d_grad_input"
    grad = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = "$grad `,` $weight attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, grad: SSAValue, weight: SSAValue, shape: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1), groups: int = 1):
        super().__init__(
            operands=[grad, weight],
            result_types=[tensor(shape, tensor_of(grad).element_type)],
            properties={**window_props(strides, padding, dilations), "shape": _shape_prop(shape),
                        "groups": IntegerAttr(groups, i64)},
        )

    @property
    def group_count(self) -> int:
        return self.groups.value.data

    def inferred_result_types(self) -> Sequence[Attribute]:
        self.check_window()
        n, c, _, _ = _ints(self.shape)
        gs, ws = tensor_of(self.grad).get_shape(), tensor_of(self.weight).get_shape()
        if gs[0] != n or gs[1] != ws[0] or ws[1] * self.group_count != c:
            raise VerifyException(
                f"graph.conv2d_grad_input: shapes do not match (grad {shape_str(gs)}, "
                f"weight {shape_str(ws)}, input {shape_str(_ints(self.shape))}, "
                f"groups {self.group_count})"
            )
        return [tensor(_ints(self.shape), tensor_of(self.grad).element_type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        g, w = inputs
        n, c, h, wd = _ints(self.shape)
        f, cg, kh, kw = w.shape
        oh, ow = g.shape[2:]
        groups = self.group_count
        fg = f // groups
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        dx = np.zeros((n, c, ph, pw), g.dtype)
        for grp in range(groups):
            gg = g[:, grp * fg:(grp + 1) * fg]
            for i in range(kh):
                for j in range(kw):
                    rs, cs = self.window_slices(i, j, oh, ow)
                    wk = w[grp * fg:(grp + 1) * fg, :, i, j]
                    dx[:, grp * cg:(grp + 1) * cg, rs, cs] += np.einsum("nfhw,fc->nchw", gg, wk)
        pt, pl, _, _ = self.pad_values
        return [np.ascontiguousarray(dx[:, :, pt:pt + h, pl:pl + wd])]


@irdl_op_definition
class Conv2dGradFilterOp(WindowGradOp):
    """The weight gradient of ``graph.conv2d``: the correlation of the input
    with the output gradient.  ``kernel`` gives the filter's KH, KW."""

    name = "graph.conv2d_grad_filter"
    input = operand_def(TensorType)
    grad = operand_def(TensorType)
    result = result_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $grad attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, grad: SSAValue, kernel: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1), groups: int = 1):
        xs, gs = tensor_of(input).get_shape(), tensor_of(grad).get_shape()
        shape = (gs[1], xs[1] // groups, *kernel)
        super().__init__(
            operands=[input, grad],
            result_types=[tensor(shape, tensor_of(grad).element_type)],
            properties={**window_props(strides, padding, dilations), "kernel": _shape_prop(kernel),
                        "groups": IntegerAttr(groups, i64)},
        )

    @property
    def group_count(self) -> int:
        return self.groups.value.data

    def inferred_result_types(self) -> Sequence[Attribute]:
        self.check_window()
        xs, gs = tensor_of(self.input).get_shape(), tensor_of(self.grad).get_shape()
        groups = self.group_count
        if xs[0] != gs[0] or xs[1] % groups or gs[1] % groups:
            raise VerifyException(
                f"graph.conv2d_grad_filter: shapes do not match (input {shape_str(xs)}, "
                f"grad {shape_str(gs)}, groups {groups})"
            )
        shape = (gs[1], xs[1] // groups, *_ints(self.kernel))
        return [tensor(shape, tensor_of(self.grad).element_type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, g = inputs
        n, c, h, wd = x.shape
        kh, kw = _ints(self.kernel)
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
            for i in range(kh):
                for j in range(kw):
                    rs, cs = self.window_slices(i, j, oh, ow)
                    patch = xp[:, grp * cg:(grp + 1) * cg, rs, cs]
                    dw[grp * fg:(grp + 1) * fg, :, i, j] = np.einsum("nfhw,nchw->fc", gg, patch)
        return [dw]


@irdl_op_definition
class MaxPool2dGradOp(WindowGradOp):
    """The input gradient of ``graph.max_pool2d``: each window's gradient goes
    to the FIRST maximum of the window (row-major); overlapping windows
    accumulate.  Padding never wins (it reads as -inf)."""

    name = "graph.max_pool2d_grad"
    input = operand_def(TensorType)
    grad = operand_def(TensorType)
    result = result_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $grad attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, grad: SSAValue, kernel: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1)):
        super().__init__(
            operands=[input, grad],
            result_types=[input.type],
            properties={**window_props(strides, padding, dilations), "kernel": _shape_prop(kernel)},
        )

    def inferred_result_types(self) -> Sequence[Attribute]:
        self.check_window()
        xs, gs = tensor_of(self.input).get_shape(), tensor_of(self.grad).get_shape()
        if xs[:2] != gs[:2]:
            raise VerifyException(
                f"graph.max_pool2d_grad: batch and channels differ ({shape_str(xs)} vs {shape_str(gs)})"
            )
        return [self.input.type]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, g = inputs
        n, c, h, wd = x.shape
        kh, kw = _ints(self.kernel)
        oh, ow = g.shape[2:]
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        pt, pl, _, _ = self.pad_values
        xp = np.full((n, c, ph, pw), -np.inf, x.dtype)
        xp[:, :, pt:pt + h, pl:pl + wd] = x
        taps = [(i, j) for i in range(kh) for j in range(kw)]
        stacked = np.stack([xp[:, :, rs, cs] for rs, cs in (self.window_slices(i, j, oh, ow) for i, j in taps)])
        first = np.argmax(stacked, axis=0)  # first maximum, row-major over the taps
        dx = np.zeros((n, c, ph, pw), x.dtype)
        for t, (i, j) in enumerate(taps):
            rs, cs = self.window_slices(i, j, oh, ow)
            dx[:, :, rs, cs] += np.where(first == t, g, 0)
        return [np.ascontiguousarray(dx[:, :, pt:pt + h, pl:pl + wd])]


@irdl_op_definition
class AvgPool2dGradOp(WindowGradOp):
    """The input gradient of ``graph.avg_pool2d``: each window's gradient,
    divided by its divisor (KH*KW with ``count_include_pad``, else the
    number of in-bounds taps), spread over the window."""

    name = "graph.avg_pool2d_grad"
    grad = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    kernel = prop_def(DenseArrayBase)
    count_include_pad = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = "$grad attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, grad: SSAValue, shape: Sequence[int], kernel: Sequence[int],
                 strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
                 dilations: Sequence[int] = (1, 1), count_include_pad: bool = False):
        props = {**window_props(strides, padding, dilations), "kernel": _shape_prop(kernel),
                 "shape": _shape_prop(shape)}
        if count_include_pad:
            props["count_include_pad"] = UnitAttr()
        super().__init__(
            operands=[grad], result_types=[tensor(shape, tensor_of(grad).element_type)],
            properties=props,
        )

    def inferred_result_types(self) -> Sequence[Attribute]:
        self.check_window()
        gs, xs = tensor_of(self.grad).get_shape(), _ints(self.shape)
        if len(xs) != 4 or tuple(gs[:2]) != xs[:2]:
            raise VerifyException(
                f"graph.avg_pool2d_grad: batch and channels differ ({shape_str(xs)} vs {shape_str(gs)})"
            )
        return [tensor(xs, tensor_of(self.grad).element_type)]

    def divisors(self, h: int, w: int, oh: int, ow: int) -> np.ndarray:
        """The divisor of every window, (oh, ow)."""
        kh, kw = _ints(self.kernel)
        if self.count_include_pad is not None:
            return np.full((oh, ow), float(kh * kw))
        (sh, sw), (dh, dw) = self.stride_values, self.dilation_values
        pt, pl, _, _ = self.pad_values
        rows = np.array([sum(0 <= r * sh + i * dh - pt < h for i in range(kh)) for r in range(oh)])
        cols = np.array([sum(0 <= q * sw + j * dw - pl < w for j in range(kw)) for q in range(ow)])
        return np.outer(rows, cols).astype(np.float64)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (g,) = inputs
        n, c, h, wd = _ints(self.shape)
        kh, kw = _ints(self.kernel)
        oh, ow = g.shape[2:]
        ph, pw = self.padded_input_extent(h, wd, oh, ow, kh, kw)
        share = (g / self.divisors(h, wd, oh, ow)).astype(g.dtype)
        dx = np.zeros((n, c, ph, pw), g.dtype)
        for i in range(kh):
            for j in range(kw):
                rs, cs = self.window_slices(i, j, oh, ow)
                dx[:, :, rs, cs] += share
        pt, pl, _, _ = self.pad_values
        return [np.ascontiguousarray(dx[:, :, pt:pt + h, pl:pl + wd])]


# --------------------------------------------------------------------------
# scatter-style backward ops of slice and gather
# --------------------------------------------------------------------------


@irdl_op_definition
class SliceGradOp(GraphOp):
    """The gradient of a strided slice: ``g`` written into zeros of ``shape`` at
    ``firsts[a] + steps[a] * i`` along every axis (steps may be negative)."""

    name = "graph.slice_grad"
    grad = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    firsts = prop_def(DenseArrayBase)
    steps = prop_def(DenseArrayBase)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE
    traits = traits_def(Pure())
    assembly_format = "$grad attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, grad: SSAValue, shape: Sequence[int], firsts: Sequence[int], steps: Sequence[int]):
        super().__init__(
            operands=[grad],
            result_types=[tensor(shape, tensor_of(grad).element_type)],
            properties={"shape": _shape_prop(shape), "firsts": _shape_prop(firsts),
                        "steps": _shape_prop(steps)},
        )

    def inferred_result_types(self) -> Sequence[Attribute]:
        shape, firsts, steps = _ints(self.shape), _ints(self.firsts), _ints(self.steps)
        gs = tensor_of(self.grad).get_shape()
        if not len(shape) == len(firsts) == len(steps) == len(gs):
            raise VerifyException(
                f"graph.slice_grad: shape, firsts, steps and the grad {shape_str(gs)} need one entry per axis"
            )
        for d, f, st, c in zip(shape, firsts, steps, gs):
            last = f + st * (c - 1)
            if st == 0 or (c > 0 and not (0 <= f < d and 0 <= last < d)):
                raise VerifyException(
                    f"graph.slice_grad: {c} elements from {f} by {st} do not fit in {shape_str(shape)}"
                )
        return [tensor(shape, tensor_of(self.grad).element_type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (g,) = inputs
        out = np.zeros(_ints(self.shape), g.dtype)
        index = np.ix_(*[f + st * np.arange(c) for f, st, c in zip(_ints(self.firsts), _ints(self.steps), g.shape)])
        out[index] = g
        return [out]


@irdl_op_definition
class GatherGradOp(GraphOp):
    """The gradient of ``graph.gather``: ``g`` scatter-added into zeros of
    ``shape`` along ``axis`` at ``indices`` (normalised as gather does: a
    negative index wraps once, then clamps); repeated indices accumulate."""

    name = "graph.gather_grad"
    indices = operand_def(TensorType)
    grad = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    axis = prop_def(IntegerAttr)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OPAQUE
    traits = traits_def(Pure())
    assembly_format = "$indices `,` $grad attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, indices: SSAValue, grad: SSAValue, shape: Sequence[int], axis: int):
        super().__init__(
            operands=[indices, grad],
            result_types=[tensor(shape, tensor_of(grad).element_type)],
            properties={"shape": _shape_prop(shape), "axis": IntegerAttr(axis, i64)},
        )

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    def inferred_result_types(self) -> Sequence[Attribute]:
        shape, a = _ints(self.shape), self.axis_value
        ishape, gs = tensor_of(self.indices).get_shape(), tensor_of(self.grad).get_shape()
        if tensor_of(self.indices).element_type != i64:
            raise VerifyException("graph.gather_grad: indices must have element type i64")
        if not 0 <= a < len(shape) or tuple(gs) != (*shape[:a], *ishape, *shape[a + 1:]):
            raise VerifyException(
                f"graph.gather_grad: grad {shape_str(gs)} does not match a gather of "
                f"{shape_str(ishape)} indices along axis {a} of {shape_str(shape)}"
            )
        return [tensor(shape, tensor_of(self.grad).element_type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        idx, g = inputs
        shape, a = _ints(self.shape), self.axis_value
        dim = shape[a]
        norm = np.clip(np.where(idx < 0, idx + dim, idx), 0, dim - 1)
        out = np.zeros(shape, g.dtype)
        moved = np.moveaxis(out, a, 0)  # a view: the scatter writes into out
        gm = g.reshape(*shape[:a], idx.size, *shape[a + 1:])
        np.add.at(moved, norm.reshape(-1), np.moveaxis(gm, a, 0))
        return [out]


OPS: tuple[type[GraphOp], ...] = (
    AddNOp,
    Conv2dGradInputOp,
    Conv2dGradFilterOp,
    MaxPool2dGradOp,
    AvgPool2dGradOp,
    SliceGradOp,
    GatherGradOp,
)

__all__ = [op.__name__ for op in OPS]
