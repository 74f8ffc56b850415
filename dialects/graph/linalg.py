"""Contractions of the ``graph`` dialect: ``matmul``.

    %m = graph.matmul %a, %w : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import ParsePropInAttrDict, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    GraphOp, NUMERIC_TYPES, broadcast_shapes, check_static_tensor, shape_str, tensor,
)


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

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        a, b = inputs
        return [np.matmul(a, b).astype(a.dtype, copy=False)]
