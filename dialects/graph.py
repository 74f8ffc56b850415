"""The ``graph`` dialect: tensor-level ops with value semantics.

Every op implements the interface of :class:`GraphOp` (result-type inference,
fuse pattern, numpy reference semantics); see ``graph_base``.  Syntax:

    %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %z = graph.constant splat 0.0 : tensor<1024x1024xf32>
    %y = graph.relu %x : tensor<8x16xf32>
    %s = graph.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %m = graph.matmul %a, %w : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
    %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %r = graph.reduce_sum %x {axes = array<i64: -1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %p = graph.softmax %x {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph_base import (
    ALL_TYPES,
    FLOAT_TYPES,
    AxisNormalizationOp,
    NUMERIC_TYPES,
    BinaryBroadcastOp,
    GraphOp,
    ReduceOp,
    UnaryElementwiseOp,
    broadcast_shapes,
    check_static_tensor,
    dense_i64_array,
    shape_str,
    tensor,
    tensor_of,
)

from graphopt.dialects.graph_constant import ConstantOp  # noqa: E402

# --------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    name = "graph.neg"
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES
    NUMPY_FN = staticmethod(np.negative)


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    name = "graph.exp"
    NUMPY_FN = staticmethod(np.exp)


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    name = "graph.log"
    NUMPY_FN = staticmethod(np.log)


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    name = "graph.sqrt"
    NUMPY_FN = staticmethod(np.sqrt)


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    name = "graph.tanh"
    NUMPY_FN = staticmethod(np.tanh)


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    name = "graph.sigmoid"
    NUMPY_FN = staticmethod(_sigmoid)


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    name = "graph.relu"
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES
    NUMPY_FN = staticmethod(lambda x: np.maximum(x, np.zeros((), dtype=x.dtype)))


@irdl_op_definition
class AddOp(BinaryBroadcastOp):
    name = "graph.add"
    NUMPY_FN = staticmethod(np.add)


@irdl_op_definition
class SubOp(BinaryBroadcastOp):
    name = "graph.sub"
    NUMPY_FN = staticmethod(np.subtract)


@irdl_op_definition
class MulOp(BinaryBroadcastOp):
    name = "graph.mul"
    NUMPY_FN = staticmethod(np.multiply)


@irdl_op_definition
class DivOp(BinaryBroadcastOp):
    """Floating-point division (integer division is not defined yet)."""

    name = "graph.div"
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES
    NUMPY_FN = staticmethod(np.divide)


@irdl_op_definition
class MaximumOp(BinaryBroadcastOp):
    """Elementwise maximum; NaN propagates, as in numpy."""

    name = "graph.maximum"
    NUMPY_FN = staticmethod(np.maximum)


# --------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------


@irdl_op_definition
class MatmulOp(GraphOp):
    """``a[..., M, K] @ b[..., K, N]``; batch dims broadcast as in numpy."""

    name = "graph.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[self.infer_type(lhs.type, rhs.type)])

    @classmethod
    def infer_type(cls, lhs: Attribute, rhs: Attribute) -> TensorType:
        check_static_tensor(cls.name, "lhs", lhs)
        check_static_tensor(cls.name, "rhs", rhs)
        assert isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
        a, b = lhs.get_shape(), rhs.get_shape()
        if len(a) < 2 or len(b) < 2:
            raise VerifyException(
                f"graph.matmul: operands must have rank >= 2 ({shape_str(a)} vs {shape_str(b)})"
            )
        if lhs.element_type != rhs.element_type:
            raise VerifyException(
                f"graph.matmul: element types differ ({lhs.element_type} vs {rhs.element_type})"
            )
        if a[-1] != b[-2]:
            raise VerifyException(
                f"graph.matmul: inner dimensions differ ({shape_str(a)} vs {shape_str(b)})"
            )
        batch = broadcast_shapes(cls.name, a[:-2], b[:-2])
        return tensor((*batch, a[-2], b[-1]), lhs.element_type)

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.lhs.type, self.rhs.type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        a, b = inputs
        return [np.matmul(a, b).astype(a.dtype, copy=False)]


# --------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------


@irdl_op_definition
class TransposeOp(GraphOp):
    """Permute axes: ``out.shape[i] = in.shape[perm[i]]``."""

    name = "graph.transpose"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    perm = prop_def(DenseArrayBase)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, perm: Sequence[int] | None = None):
        rank = len(tensor_of(input).get_shape())
        perm = tuple(reversed(range(rank))) if perm is None else tuple(perm)
        super().__init__(
            operands=[input],
            result_types=[self.infer_type(input.type, perm)],
            properties={"perm": dense_i64_array(perm)},
        )

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

    @property
    def permutation(self) -> tuple[int, ...]:
        return tuple(self.perm.get_values())  # type: ignore[arg-type]

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [self.infer_type(self.input.type, self.permutation)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [np.transpose(inputs[0], self.permutation).copy(order="C")]


@irdl_op_definition
class ReshapeOp(GraphOp):
    """Same elements in row-major order, new shape (given by the result type)."""

    name = "graph.reshape"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.INJECTIVE
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

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


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "graph.reduce_sum"
    NUMPY_FN = staticmethod(np.sum)


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "graph.reduce_mean"
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES
    NUMPY_FN = staticmethod(np.mean)


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "graph.reduce_max"
    NUMPY_FN = staticmethod(np.max)

    def verify_extra(self) -> None:
        shape = tensor_of(self.input).get_shape()
        if any(shape[a] == 0 for a in self.normalized_axes):
            raise VerifyException("graph.reduce_max: cannot reduce an empty axis")


# --------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------


@irdl_op_definition
class SoftmaxOp(AxisNormalizationOp):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis`` (stable for large logits)."""

    name = "graph.softmax"

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        axis = self.normalized_axis
        shifted = x - np.max(x, axis=axis, keepdims=True)
        e = np.exp(shifted)
        return [(e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)]


CORE_OPS: tuple[type[GraphOp], ...] = (
    ConstantOp,
    NegOp,
    ExpOp,
    LogOp,
    SqrtOp,
    TanhOp,
    SigmoidOp,
    ReluOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    MatmulOp,
    TransposeOp,
    ReshapeOp,
    ReduceSumOp,
    ReduceMeanOp,
    ReduceMaxOp,
    SoftmaxOp,
)

# The rest of the op set lives in thematic modules; this module is the dialect.
from graphopt.dialects import graph_grad, graph_math, graph_nn, graph_tensor  # noqa: E402
from graphopt.dialects.graph_grad import *  # noqa: E402,F403
from graphopt.dialects.graph_math import *  # noqa: E402,F403
from graphopt.dialects.graph_nn import *  # noqa: E402,F403
from graphopt.dialects.graph_tensor import *  # noqa: E402,F403

GRAPH_OPS: tuple[type[GraphOp], ...] = (
    CORE_OPS + graph_math.OPS + graph_nn.OPS + graph_tensor.OPS + graph_grad.OPS
)

Graph = Dialect("graph", list(GRAPH_OPS), [])


def op_class_by_name(name: str) -> type[GraphOp] | None:
    """The graph op class called ``graph.<name>`` (or ``name``), if any."""
    full = name if name.startswith("graph.") else f"graph.{name}"
    return next((op for op in GRAPH_OPS if op.name == full), None)


__all__ = [op.__name__ for op in GRAPH_OPS] + [
    "GRAPH_OPS",
    "Graph",
    "GraphOp",
    "ALL_TYPES",
    "op_class_by_name",
]
