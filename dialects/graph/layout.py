"""Graph ops that only change how elements are indexed, not which ones exist:
transpose, reshape, broadcast_to, expand_dims, squeeze and flatten.

    %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %r = graph.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
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
from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import check_static_tensor, normalize_axes, shape_str, tensor, tensor_of
from graphopt.dialects.graph.families import AxisOp, PureOp, UnaryTensorOp
from graphopt.dialects.graph.properties import PropertyValue, int_values
from graphopt.dialects.traits import IdentityIfSameType, PreservesSplat


def shape_of(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


class LayoutOp(PureOp):
    """Shared settings of the layout ops: Pure, Injective."""

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE


class UnaryLayoutOp(LayoutOp, UnaryTensorOp):
    """A layout op of one ``input``."""


@irdl_op_definition
class TransposeOp(UnaryLayoutOp):
    """Permute axes: ``out.shape[i] = in.shape[perm[i]]``."""

    name = "graph.transpose"
    perm = prop_def(DenseArrayBase)
    traits = traits_def(PreservesSplat())

    def __init__(self, input: SSAValue, perm: Sequence[int] | None = None):
        rank = len(tensor_of(input).get_shape())
        perm = tuple(reversed(range(rank))) if perm is None else perm
        super().__init__(operands=[input], properties={"perm": perm})

    @classmethod
    def infer_type(cls, input: Attribute, perm: Sequence[int]) -> TensorType:
        check_static_tensor(cls.name, "input", input)
        assert isinstance(input, TensorType)
        shape = input.get_shape()
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(
                f"graph.transpose: perm {list(perm)} is not a permutation of the "
                f"{len(shape)} axes of {shape_str(shape)}"
            )
        return tensor([shape[p] for p in perm], input.element_type)

    permutation = PropertyValue(perm)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [np.transpose(inputs[0], self.permutation).copy(order="C")]


@irdl_op_definition
class ReshapeOp(UnaryLayoutOp):
    """Same elements in row-major order, new shape (given by the result type)."""

    name = "graph.reshape"
    traits = traits_def(PreservesSplat(), IdentityIfSameType())

    def __init__(self, input: SSAValue, shape: Sequence[int]):
        super().__init__(operands=[input], result_types=[self.infer_type(input.type, shape)])

    @classmethod
    def infer_type(cls, input: Attribute, shape: Sequence[int]) -> TensorType:
        """``shape`` may hold one -1, inferred from the element count."""
        check_static_tensor(cls.name, "input", input)
        assert isinstance(input, TensorType)
        count = prod(input.get_shape())
        shape = list(shape)
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise VerifyException(f"graph.reshape: invalid target shape {shape}")
        if -1 in shape:
            known = prod(d for d in shape if d != -1)
            if known == 0 or count % known:
                raise VerifyException(
                    f"graph.reshape: cannot reshape {shape_str(input.get_shape())} to {shape}"
                )
            shape[shape.index(-1)] = count // known
        if prod(shape) != count:
            raise VerifyException(
                f"graph.reshape: element counts differ ({shape_str(input.get_shape())} "
                f"has {count}, {shape_str(shape)} has {prod(shape)})"
            )
        return tensor(shape, input.element_type)

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.input.type, tensor_of(self.result).get_shape())]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(tensor_of(self.result).get_shape())]


@irdl_op_definition
class BroadcastToOp(UnaryLayoutOp):
    """Numpy broadcasting to the shape of the result type."""

    name = "graph.broadcast_to"
    traits = traits_def(PreservesSplat(), IdentityIfSameType())
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.BROADCAST

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
class ExpandDimsOp(UnaryLayoutOp):
    """Insert size-1 axes; ``axes`` index the result (ONNX Unsqueeze)."""

    name = "graph.expand_dims"
    traits = traits_def(PreservesSplat())
    axes = prop_def(DenseArrayBase)
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.BROADCAST

    def __init__(self, input: SSAValue, axes: Sequence[int] | int):
        axes = [axes] if isinstance(axes, int) else list(axes)
        super().__init__(operands=[input], properties={"axes": axes})

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

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(shape_of(self.result.type))]


@irdl_op_definition
class SqueezeOp(UnaryLayoutOp):
    """Drop size-1 axes: the given ``axes`` (of the input), or all of them."""

    name = "graph.squeeze"
    traits = traits_def(PreservesSplat(), IdentityIfSameType())
    axes = opt_prop_def(DenseArrayBase)

    def __init__(self, input: SSAValue, axes: Sequence[int] | int | None = None):
        axes = [axes] if isinstance(axes, int) else axes
        super().__init__(operands=[input], properties={"axes": axes})

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

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(shape_of(self.result.type))]


@irdl_op_definition
class FlattenOp(UnaryLayoutOp, AxisOp):
    """ONNX Flatten: a 2-D result ``(prod(shape[:axis]), prod(shape[axis:]))``;
    ``axis`` is in [-rank, rank]."""

    name = "graph.flatten"
    traits = traits_def(PreservesSplat(), IdentityIfSameType())

    def __init__(self, input: SSAValue, axis: int = 1):
        super().__init__(operands=[input], properties={"axis": axis})

    @classmethod
    def axis_in(cls, input: Attribute, axis: int) -> int:
        """The split point: ``axis`` may also be ``rank``."""
        r = len(shape_of(input))
        if not -r <= axis <= r:
            raise VerifyException(f"graph.flatten: axis {axis} is out of range [{-r}, {r}]")
        return axis + r if axis < 0 else axis

    @classmethod
    def infer_type(cls, input: Attribute, axis: int) -> TensorType:
        assert isinstance(input, TensorType)
        shape = shape_of(input)
        a = cls.axis_in(input, axis)
        return tensor([prod(shape[:a]), prod(shape[a:])], input.element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].reshape(shape_of(self.result.type))]
