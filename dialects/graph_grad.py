"""Graph ops that gradients need and the forward op set lacks.

    %s = graph.add_n %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

``graph.add_n`` is the n-ary sum autodiff aggregates gradient contributions
with (one op, not a chain of adds, so fan-out of k uses costs one node).
The backward ops of convolution and pooling live in ``graph_grad_nn`` and
are re-exported here; ``slice_grad`` and ``gather_grad`` scatter a gradient
back into the shape of the sliced or gathered tensor.
"""

from __future__ import annotations

from math import prod

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph_grad_nn import (  # noqa: F401 - re-exported
    WINDOW_GRAD_OPS,
    AvgPool2dGradOp,
    Conv2dGradFilterOp,
    Conv2dGradInputOp,
    LrnGradOp,
    MaxPool2dGradOp,
    WindowGradOp,
    int_values,
    shape_prop,
)
from graphopt.dialects.graph_base import (
    NUMERIC_TYPES,
    GraphOp,
    check_static_tensor,
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
            properties={"shape": shape_prop(shape), "firsts": shape_prop(firsts),
                        "steps": shape_prop(steps)},
        )

    def inferred_result_types(self) -> Sequence[Attribute]:
        shape, firsts, steps = int_values(self.shape), int_values(self.firsts), int_values(self.steps)
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
        out = np.zeros(int_values(self.shape), g.dtype)
        index = np.ix_(*[f + st * np.arange(c) for f, st, c in zip(int_values(self.firsts), int_values(self.steps), g.shape)])
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
            properties={"shape": shape_prop(shape), "axis": IntegerAttr(axis, i64)},
        )

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    def inferred_result_types(self) -> Sequence[Attribute]:
        shape, a = int_values(self.shape), self.axis_value
        ishape, gs = tensor_of(self.indices).get_shape(), tensor_of(self.grad).get_shape()
        if tensor_of(self.indices).element_type != i64:
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
        return [tensor(shape, tensor_of(self.grad).element_type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        idx, g = inputs
        shape, a = int_values(self.shape), self.axis_value
        dim = shape[a]
        norm = np.clip(np.where(idx < 0, idx + dim, idx), 0, dim - 1)
        out = np.zeros(shape, g.dtype)
        moved = np.moveaxis(out, a, 0)  # a view: the scatter writes into out
        gm = g.reshape(*shape[:a], idx.size, *shape[a + 1:])
        np.add.at(moved, norm.reshape(-1), np.moveaxis(gm, a, 0))
        return [out]


OPS: tuple[type[GraphOp], ...] = (AddNOp, *WINDOW_GRAD_OPS, SliceGradOp, GatherGradOp)

__all__ = [op.__name__ for op in OPS]
