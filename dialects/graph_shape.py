"""Graph ops that only change how elements are indexed, not which ones exist:
broadcast_to, expand_dims, squeeze, flatten (re-exported through
``graph_tensor``), plus the helpers the layout ops share.

    %b = graph.broadcast_to %v : (tensor<8xf32>) -> tensor<4x8xf32>
    %e = graph.expand_dims %v {axes = array<i64: 0, -1>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
    %u = graph.squeeze %e {axes = array<i64: 0>} : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
    %f = graph.flatten %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph_base import (
    GraphOp,
    dense_i64_array,
    normalize_axes,
    shape_str,
    tensor,
)


def int_values(attr: DenseArrayBase | None) -> tuple[int, ...] | None:
    return None if attr is None else tuple(attr.get_values())  # type: ignore[arg-type]


def shape_of(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


class LayoutOp(GraphOp):
    """Shared settings of the layout ops: Pure, Injective, properties in the
    attr-dict."""

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)

# --------------------------------------------------------------------------
# broadcast_to, expand_dims, squeeze, flatten
# --------------------------------------------------------------------------


@irdl_op_definition
class BroadcastToOp(LayoutOp):
    """Numpy broadcasting to the shape of the result type."""

    name = "graph.broadcast_to"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.BROADCAST
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, shape: Sequence[int]):
        super().__init__(operands=[input], result_types=[self.infer_type(input.type, shape)])

    @classmethod
    def infer_type(cls, input: Attribute, shape: Sequence[int]) -> TensorType:
        assert isinstance(input, TensorType)
        src = shape_of(input)
        shape = tuple(shape)
        ok = len(src) <= len(shape) and all(
            d in (1, e) for d, e in zip(src, shape[len(shape) - len(src):])
        )
        if not ok or any(d < 0 for d in shape):
            raise VerifyException(
                f"graph.broadcast_to: cannot broadcast {shape_str(src)} to {shape_str(shape)}"
            )
        return tensor(shape, input.element_type)

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.input.type, shape_of(self.result.type))]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(np.broadcast_to(inputs[0], shape_of(self.result.type)), order="C")]


@irdl_op_definition
class ExpandDimsOp(LayoutOp):
    """Insert size-1 axes; ``axes`` index the result (ONNX Unsqueeze)."""

    name = "graph.expand_dims"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axes = prop_def(DenseArrayBase)
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.BROADCAST
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, axes: Sequence[int] | int):
        axes = [axes] if isinstance(axes, int) else list(axes)
        super().__init__(
            operands=[input],
            result_types=[self.infer_type(input.type, axes)],
            properties={"axes": dense_i64_array(axes)},
        )

    @classmethod
    def new_axes(cls, input: Attribute, axes: Sequence[int]) -> tuple[int, ...]:
        return normalize_axes(cls.name, axes, len(shape_of(input)) + len(axes))

    @classmethod
    def infer_type(cls, input: Attribute, axes: Sequence[int]) -> TensorType:
        assert isinstance(input, TensorType)
        new = cls.new_axes(input, axes)
        src = iter(shape_of(input))
        out = [1 if k in new else next(src) for k in range(len(shape_of(input)) + len(axes))]
        return tensor(out, input.element_type)

    @property
    def normalized_axes(self) -> tuple[int, ...]:
        return self.new_axes(self.input.type, int_values(self.axes))  # type: ignore[arg-type]

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.input.type, int_values(self.axes))]  # type: ignore[arg-type]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(shape_of(self.result.type))]


@irdl_op_definition
class SqueezeOp(LayoutOp):
    """Drop size-1 axes: the given ``axes`` (of the input), or all of them."""

    name = "graph.squeeze"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axes = opt_prop_def(DenseArrayBase)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, axes: Sequence[int] | int | None = None):
        axes = [axes] if isinstance(axes, int) else axes
        props = {} if axes is None else {"axes": dense_i64_array(axes)}
        super().__init__(
            operands=[input], result_types=[self.infer_type(input.type, axes)], properties=props
        )

    @classmethod
    def dropped_axes(cls, input: Attribute, axes: Sequence[int] | None) -> tuple[int, ...]:
        shape = shape_of(input)
        if axes is None:
            return tuple(k for k, d in enumerate(shape) if d == 1)
        norm = normalize_axes(cls.name, axes, len(shape))
        for a, k in zip(axes, norm):
            if shape[k] != 1:
                raise VerifyException(
                    f"graph.squeeze: axis {a} of {shape_str(shape)} has size {shape[k]}, not 1"
                )
        return norm

    @classmethod
    def infer_type(cls, input: Attribute, axes: Sequence[int] | None) -> TensorType:
        assert isinstance(input, TensorType)
        drop = cls.dropped_axes(input, axes)
        return tensor([d for k, d in enumerate(shape_of(input)) if k not in drop], input.element_type)

    @property
    def normalized_axes(self) -> tuple[int, ...]:
        return self.dropped_axes(self.input.type, int_values(self.axes))

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.input.type, int_values(self.axes))]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(shape_of(self.result.type))]


@irdl_op_definition
class FlattenOp(LayoutOp):
    """ONNX Flatten: a 2-D result ``(prod(shape[:axis]), prod(shape[axis:]))``;
    ``axis`` is in [-rank, rank]."""

    name = "graph.flatten"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, axis: int = 1):
        super().__init__(
            operands=[input],
            result_types=[self.infer_type(input.type, axis)],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    @classmethod
    def split_axis(cls, input: Attribute, axis: int) -> int:
        r = len(shape_of(input))
        if not -r <= axis <= r:
            raise VerifyException(f"graph.flatten: axis {axis} is out of range [{-r}, {r}]")
        return axis + r if axis < 0 else axis

    @classmethod
    def infer_type(cls, input: Attribute, axis: int) -> TensorType:
        assert isinstance(input, TensorType)
        shape = shape_of(input)
        a = cls.split_axis(input, axis)
        return tensor([prod(shape[:a]), prod(shape[a:])], input.element_type)

    @property
    def normalized_axis(self) -> int:
        return self.split_axis(self.input.type, self.axis.value.data)

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.input.type, self.axis.value.data)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(shape_of(self.result.type))]



OPS: tuple[type[GraphOp], ...] = (BroadcastToOp, ExpandDimsOp, SqueezeOp, FlattenOp)

__all__ = [op.__name__ for op in OPS] + ["LayoutOp", "int_values", "shape_of"]
