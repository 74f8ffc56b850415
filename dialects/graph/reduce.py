"""Reductions: reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod
and argmax.

    %r = graph.reduce_sum %x {axes = array<i64: -1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %p = graph.reduce_prod %x {axes = array<i64: 0>} : (tensor<4x8xi32>) -> tensor<8xi32>
    %i = graph.argmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4xi64>
    %k = graph.argmax %x {axis = -1 : i64, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xi64>

``argmax`` returns the first index of the largest element, as numpy does; a
NaN counts as larger than everything, so the first NaN's index is returned
(numpy's behaviour too).  On i1, true is larger than false.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType, UnitAttr, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    ALL_TYPES, FLOAT_TYPES, check_static_tensor, shape_str, tensor,
)
from graphopt.dialects.graph.families import AxisOp, ReduceOp, UnaryTensorOp
from graphopt.dialects.graph.properties import PropertyValue
from graphopt.dialects.traits import PreservesSplat


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "graph.reduce_sum"
    NUMPY_FN = staticmethod(np.sum)


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "graph.reduce_mean"
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES
    NUMPY_FN = staticmethod(np.mean)


class ExtremumReduceOp(ReduceOp):
    """``reduce_max`` and ``reduce_min``: the result is one of the reduced
    elements, so a splat stays a splat, and an empty axis has no value."""

    traits = traits_def(PreservesSplat())


@irdl_op_definition
class ReduceMaxOp(ExtremumReduceOp):
    name = "graph.reduce_max"
    NUMPY_FN = staticmethod(np.max)
    EMPTY_AXIS_ERROR: ClassVar[str] = "cannot reduce an empty axis"


@irdl_op_definition
class ReduceMinOp(ExtremumReduceOp):
    """Smallest element over ``axes``; NaN propagates, as in numpy."""

    name = "graph.reduce_min"
    NUMPY_FN = staticmethod(np.min)
    EMPTY_AXIS_ERROR: ClassVar[str] = "cannot reduce an empty axis ({shape})"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    """Product over ``axes`` (1 for an empty axis); integers wrap around."""

    name = "graph.reduce_prod"
    NUMPY_FN = staticmethod(np.prod)


@irdl_op_definition
class ArgmaxOp(UnaryTensorOp, AxisOp):
    """Index (i64) of the first maximum along ``axis`` (see the module docstring)."""

    name = "graph.argmax"
    keepdims = opt_prop_def(UnitAttr)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.COMM_REDUCE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = ALL_TYPES

    def __init__(self, input: SSAValue, axis: int = -1, keepdims: bool = False):
        super().__init__(operands=[input], properties={"axis": axis, "keepdims": keepdims})

    @classmethod
    def infer_type(cls, input: Attribute, axis: int, keepdims: bool) -> TensorType:
        check_static_tensor(cls.name, "input", input)
        assert isinstance(input, TensorType)
        shape = input.get_shape()
        a = cls.axis_in(input, axis)
        if shape[a] == 0:
            raise VerifyException(
                f"graph.argmax: cannot take the argmax of an empty axis "
                f"(axis {axis} of {shape_str(shape)})"
            )
        out = [1 if d == a else n for d, n in enumerate(shape)] if keepdims else [
            n for d, n in enumerate(shape) if d != a
        ]
        return tensor(out, i64)

    keeps_dims = PropertyValue(keepdims, default=False)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        out = np.argmax(x, axis=self.normalized_axis, keepdims=self.keeps_dims)
        return [np.asarray(out, dtype=np.int64)]
