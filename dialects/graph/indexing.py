"""Graph ops that select and move elements: concat, split, slice, pad and
gather, and the backward ops ``slice_grad`` and ``gather_grad`` that scatter a
gradient back into the shape of the sliced or gathered tensor.

    %c = graph.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    %p:2 = graph.split %x {axis = 1 : i64, sizes = array<i64: 2, 6>} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x6xf32>)
    %s = graph.slice %x {starts = array<i64: -1>, ends = array<i64: 0>, steps = array<i64: -2>, axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
    %q = graph.pad %x {pads = array<i64: 1, 0, 2, 3>, value = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<7x11xf32>
    %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, Float64Type, FloatAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def,
    var_operand_def, var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    normalize_axes, numpy_dtype, shape_str, tensor, tensor_of, tensor_of_type,
    type_str,
)
from graphopt.dialects.graph.families import AxisOp, PureOp
from graphopt.dialects.graph.fill import check_scalar_value, scalar_of
from graphopt.dialects.graph.layout import LayoutOp, UnaryLayoutOp, shape_of
from graphopt.dialects.graph.properties import PropertyValue, float_value, int_values
from graphopt.dialects.traits import IdentityIfSameType, PreservesSplat


@irdl_op_definition
class ConcatOp(LayoutOp, AxisOp):
    """Join one or more tensors along ``axis`` (may be negative)."""

    name = "graph.concat"
    traits = traits_def(IdentityIfSameType())
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$inputs attr-dict `:` functional-type(operands, results)"

    def __init__(self, inputs: Sequence[SSAValue], axis: int = 0):
        super().__init__(operands=[list(inputs)], properties={"axis": axis})

    @classmethod
    def infer_type(cls, types: Sequence[Attribute], axis: int) -> TensorType:
        if not types:
            raise VerifyException("graph.concat: needs at least one operand")
        shapes = [shape_of(t) for t in types]
        first = types[0]
        assert isinstance(first, TensorType)
        for t in types:
            assert isinstance(t, TensorType)
            if t.element_type != first.element_type:
                raise VerifyException(
                    f"graph.concat: element types differ ({first.element_type} vs {t.element_type})"
                )
        if any(len(s) != len(shapes[0]) for s in shapes):
            raise VerifyException(
                "graph.concat: ranks differ (" + " vs ".join(shape_str(s) for s in shapes) + ")"
            )
        if not shapes[0]:
            raise VerifyException("graph.concat: cannot concatenate 0-d tensors")
        ax = cls.axis_in(first, axis)
        for s in shapes:
            if any(d != e for k, (d, e) in enumerate(zip(s, shapes[0])) if k != ax):
                raise VerifyException(
                    f"graph.concat: shapes differ outside axis {axis} ("
                    + " vs ".join(shape_str(s) for s in shapes)
                    + ")"
                )
        out = list(shapes[0])
        out[ax] = sum(s[ax] for s in shapes)
        return tensor(out, first.element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [np.concatenate(inputs, axis=self.normalized_axis)]


@irdl_op_definition
class SplitOp(LayoutOp, AxisOp):
    """Cut ``input`` along ``axis`` into pieces of the given ``sizes`` (one
    result per piece; sizes may be 0 and must add up to the axis)."""

    name = "graph.split"
    input = operand_def(TensorType)
    outputs = var_result_def(TensorType)
    sizes = prop_def(DenseArrayBase)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, sizes: Sequence[int] | int, axis: int = 0):
        """``sizes`` as an int: that many equal pieces."""
        if isinstance(sizes, int):
            dim = shape_of(input.type)[self.axis_in(input.type, axis)]
            if sizes <= 0 or dim % sizes:
                raise VerifyException(
                    f"graph.split: cannot split axis {axis} of {type_str(input.type)} "
                    f"into {sizes} equal pieces"
                )
            sizes = [dim // sizes] * sizes
        super().__init__(operands=[input], properties={"axis": axis, "sizes": sizes})

    @classmethod
    def infer_type(cls, input: Attribute, axis: int, sizes: Sequence[int]) -> list[TensorType]:
        assert isinstance(input, TensorType)
        shape = shape_of(input)
        ax = cls.axis_in(input, axis)
        if not sizes:
            raise VerifyException("graph.split: needs at least one size")
        if any(s < 0 for s in sizes):
            raise VerifyException(f"graph.split: negative size in {list(sizes)}")
        if sum(sizes) != shape[ax]:
            raise VerifyException(
                f"graph.split: sizes {list(sizes)} add up to {sum(sizes)}, but axis {axis} "
                f"of {shape_str(shape)} has {shape[ax]}"
            )
        return [tensor([s if k == ax else d for k, d in enumerate(shape)], input.element_type) for s in sizes]

    size_values = PropertyValue(sizes)

    def offsets(self) -> list[int]:
        """Start of each piece along the axis."""
        out, top = [], 0
        for s in self.size_values:
            out.append(top)
            top += s
        return out

    def verify_extra(self) -> None:
        self.infer_type(self.input.type, self.axis_value, self.size_values)
        if len(self.outputs) != len(self.size_values):
            raise VerifyException(
                f"graph.split: {len(self.size_values)} sizes need {len(self.size_values)} "
                f"results, got {len(self.outputs)}"
            )

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        ax = self.normalized_axis
        return [
            np.take(x, np.arange(o, o + s), axis=ax)
            for o, s in zip(self.offsets(), self.size_values)
        ]


def onnx_slice_range(start: int, end: int, step: int, dim: int) -> tuple[int, int]:
    """(first index, element count) of an ONNX slice of one axis: negative
    start/end count from the end, then both are clamped -- to [0, dim] for a
    positive step, start to [0, dim-1] and end to [-1, dim-1] for a negative one."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        count = max(0, -(-(end - start) // step))
    else:
        start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
        count = max(0, -(-(start - end) // -step))
    return start, count


@irdl_op_definition
class SliceOp(UnaryLayoutOp):
    """ONNX Slice: along each of ``axes`` (default 0, 1, ...) take
    ``start, start+step, ...`` up to ``end`` (exclusive); see
    :func:`onnx_slice_range` for negative values and clamping."""

    name = "graph.slice"
    traits = traits_def(PreservesSplat())
    starts = prop_def(DenseArrayBase)
    ends = prop_def(DenseArrayBase)
    axes = opt_prop_def(DenseArrayBase)
    steps = opt_prop_def(DenseArrayBase)

    def __init__(
        self,
        input: SSAValue,
        starts: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int] | None = None,
        steps: Sequence[int] | None = None,
    ):
        super().__init__(
            operands=[input], properties={"starts": starts, "ends": ends, "axes": axes, "steps": steps}
        )

    @classmethod
    def ranges(
        cls,
        input: Attribute,
        starts: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int] | None,
        steps: Sequence[int] | None,
    ) -> list[tuple[int, int, int]]:
        """(start, step, count) for every axis of the input."""
        shape = shape_of(input)
        n = len(starts)
        if len(ends) != n:
            raise VerifyException(f"graph.slice: {n} starts but {len(ends)} ends")
        if axes is not None and len(axes) != n:
            raise VerifyException(f"graph.slice: {n} starts but {len(axes)} axes")
        if steps is not None and len(steps) != n:
            raise VerifyException(f"graph.slice: {n} starts but {len(steps)} steps")
        if axes is None and n > len(shape):
            raise VerifyException(
                f"graph.slice: {n} starts for the {len(shape)} axes of {shape_str(shape)}"
            )
        axes = tuple(range(n)) if axes is None else normalize_axes(cls.name, axes, len(shape))
        steps = (1,) * n if steps is None else tuple(steps)
        if 0 in steps:
            raise VerifyException(f"graph.slice: steps must not be 0 ({list(steps)})")
        out = [(0, 1, d) for d in shape]
        for a, s, e, st in zip(axes, starts, ends, steps):
            first, count = onnx_slice_range(s, e, st, shape[a])
            out[a] = (first, st, count)
        return out

    @classmethod
    def infer_type(
        cls,
        input: Attribute,
        starts: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int] | None,
        steps: Sequence[int] | None,
    ) -> TensorType:
        assert isinstance(input, TensorType)
        ranges = cls.ranges(input, starts, ends, axes, steps)
        return tensor([c for _, _, c in ranges], input.element_type)

    def _props(self):
        return (int_values(self.starts), int_values(self.ends), int_values(self.axes), int_values(self.steps))

    def axis_ranges(self) -> list[tuple[int, int, int]]:
        return self.ranges(self.input.type, *self._props())

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        out = inputs[0]
        for ax, (first, step, count) in enumerate(self.axis_ranges()):
            out = np.take(out, first + step * np.arange(count, dtype=np.int64), axis=ax)
        return [np.asarray(out, order="C")]


@irdl_op_definition
class PadOp(UnaryLayoutOp):
    """Constant padding; ``pads`` = [begin0, begin1, ..., end0, end1, ...] (ONNX
    order), all >= 0; ``value`` is cast to the element type."""

    name = "graph.pad"
    pads = prop_def(DenseArrayBase)
    value = prop_def(FloatAttr[Float64Type])

    def __init__(self, input: SSAValue, pads: Sequence[int], value: float = 0.0):
        super().__init__(operands=[input], properties={"pads": pads, "value": value})

    @classmethod
    def infer_type(cls, input: Attribute, pads: Sequence[int]) -> TensorType:
        assert isinstance(input, TensorType)
        shape = shape_of(input)
        r = len(shape)
        if len(pads) != 2 * r:
            raise VerifyException(
                f"graph.pad: expected {2 * r} pads for {shape_str(shape)}, got {len(pads)}"
            )
        if any(p < 0 for p in pads):
            raise VerifyException(f"graph.pad: pads must not be negative ({list(pads)})")
        return tensor([d + pads[k] + pads[r + k] for k, d in enumerate(shape)], input.element_type)

    pad_values = PropertyValue(pads)

    @property
    def scalar(self) -> float | int:
        return scalar_of(float_value(self.value), tensor_of(self.input).element_type)

    def verify_extra(self) -> None:
        check_scalar_value(self.name, float_value(self.value), tensor_of(self.input).element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        r, p = x.ndim, self.pad_values
        width = [(p[k], p[r + k]) for k in range(r)]
        fill = np.asarray(self.scalar).astype(x.dtype)
        if not width:  # np.pad rejects an empty pad list; a 0-d pad is the identity
            return [np.array(x)]
        return [np.pad(x, width, mode="constant", constant_values=fill)]


@irdl_op_definition
class GatherOp(LayoutOp, AxisOp):
    """numpy ``take(data, indices, axis)`` with i64 indices.  A negative index
    counts from the end (wraps once); an index still out of range is clamped
    to the axis (the verifier cannot see index values; the reference clamps
    the same way, so compiled and reference results agree)."""

    name = "graph.gather"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$data `,` $indices attr-dict `:` functional-type(operands, results)"

    def __init__(self, data: SSAValue, indices: SSAValue, axis: int = 0):
        super().__init__(operands=[data, indices], properties={"axis": axis})

    @classmethod
    def infer_type(cls, data: Attribute, indices: Attribute, axis: int) -> TensorType:
        assert isinstance(data, TensorType) and isinstance(indices, TensorType)
        if indices.element_type != i64:
            raise VerifyException(
                f"graph.gather: indices must have element type i64, got {indices.element_type}"
            )
        shape, ishape = shape_of(data), shape_of(indices)
        if not shape:
            raise VerifyException("graph.gather: cannot gather from a 0-d tensor")
        a = cls.axis_in(data, axis)
        if shape[a] == 0 and prod(ishape) > 0:
            raise VerifyException(
                f"graph.gather: axis {axis} of {shape_str(shape)} is empty, nothing to gather"
            )
        return tensor([*shape[:a], *ishape, *shape[a + 1:]], data.element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        data, idx = inputs
        ax = self.normalized_axis
        n = data.shape[ax]
        idx = np.clip(np.where(idx < 0, idx + n, idx), 0, max(n - 1, 0))
        out = np.take(data, idx, axis=ax)
        return [np.asarray(out, dtype=numpy_dtype(tensor_of(self.result).element_type), order="C")]


class ScatterGradOp(PureOp):
    """``slice_grad`` and ``gather_grad``: the gradient ``grad`` of an op that
    selected elements, written back into zeros of ``shape`` (the shape of
    that op's input)."""

    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)

    @classmethod
    def scattered_type(cls, grad: Attribute, shape: Sequence[int]) -> TensorType:
        return tensor(shape, tensor_of_type(grad).element_type)

    def zeros(self, g: np.ndarray) -> np.ndarray:
        """The buffer the gradient is written into."""
        return np.zeros(int_values(self.shape), g.dtype)


@irdl_op_definition
class SliceGradOp(ScatterGradOp):
    """The gradient of a strided slice: ``g`` written into zeros of ``shape`` at
    ``firsts[a] + steps[a] * i`` along every axis (steps may be negative)."""

    name = "graph.slice_grad"
    grad = operand_def(TensorType)
    firsts = prop_def(DenseArrayBase)
    steps = prop_def(DenseArrayBase)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE
    assembly_format = "$grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, grad: SSAValue, shape: Sequence[int], firsts: Sequence[int], steps: Sequence[int]):
        super().__init__(operands=[grad], properties={"shape": shape, "firsts": firsts, "steps": steps})

    @classmethod
    def infer_type(
        cls, grad: Attribute, shape: Sequence[int], firsts: Sequence[int], steps: Sequence[int]
    ) -> Attribute:
        gs = shape_of(grad)
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
        return cls.scattered_type(grad, shape)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (g,) = inputs
        out = self.zeros(g)
        index = np.ix_(*[f + st * np.arange(c) for f, st, c in zip(int_values(self.firsts), int_values(self.steps), g.shape)])
        out[index] = g
        return [out]


@irdl_op_definition
class GatherGradOp(ScatterGradOp, AxisOp):
    """The gradient of ``graph.gather``: ``g`` scatter-added into zeros of
    ``shape`` along ``axis`` at ``indices`` (normalised as gather does: a
    negative index wraps once, then clamps); repeated indices accumulate."""

    name = "graph.gather_grad"
    indices = operand_def(TensorType)
    grad = operand_def(TensorType)
    assembly_format = "$indices `,` $grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, indices: SSAValue, grad: SSAValue, shape: Sequence[int], axis: int):
        super().__init__(operands=[indices, grad], properties={"shape": shape, "axis": axis})

    @classmethod
    def infer_type(cls, indices: Attribute, grad: Attribute, shape: Sequence[int], axis: int) -> Attribute:
        a = axis
        ishape, gs = shape_of(indices), shape_of(grad)
        if tensor_of_type(indices).element_type != i64:
            raise VerifyException("graph.gather_grad: indices must have element type i64")
        if not 0 <= a < len(shape) or tuple(gs) != (*shape[:a], *ishape, *shape[a + 1:]):
            raise VerifyException(
                f"graph.gather_grad: grad {shape_str(gs)} does not match a gather of "
                f"{shape_str(ishape)} indices along axis {a} of {shape_str(shape)}"
            )
        if shape[a] == 0 and prod(ishape) > 0:
            raise VerifyException(
                f"graph.gather_grad: axis {a} of {shape_str(shape)} is empty, "
                f"nothing to scatter {shape_str(ishape)} indices into"
            )
        return cls.scattered_type(grad, shape)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        idx, g = inputs
        shape, a = int_values(self.shape), self.axis_value
        dim = shape[a]
        norm = np.clip(np.where(idx < 0, idx + dim, idx), 0, dim - 1)
        out = self.zeros(g)
        moved = np.moveaxis(out, a, 0)  # a view: the scatter writes into out
        gm = g.reshape(*shape[:a], idx.size, *shape[a + 1:])
        np.add.at(moved, norm.reshape(-1), np.moveaxis(gm, a, 0))
        return [out]
