"""Contractions of the ``graph`` dialect: ``matmul``.

    %m = graph.matmul %a, %w : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import NUMERIC_TYPES, broadcast_shapes, shape_str, tensor
from graphopt.dialects.graph.families import BinaryTensorOp


@irdl_op_definition
class MatmulOp(BinaryTensorOp):
    """``a[..., M, K] @ b[..., K, N]``; batch dims broadcast as in numpy."""

    name = "graph.matmul"
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES

    @classmethod
    def infer_type(cls, lhs: Attribute, rhs: Attribute) -> Attribute:
        x, w = cls.checked_operands(lhs, rhs, ranked=2)
        a, b = x.get_shape(), w.get_shape()
        if a[-1] != b[-2]:
            raise VerifyException(
                f"graph.matmul: inner dimensions differ ({shape_str(a)} vs {shape_str(b)})"
            )
        batch = broadcast_shapes(cls.name, a[:-2], b[:-2])
        return tensor((*batch, a[-2], b[-1]), x.element_type)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        a, b = inputs
        return [np.matmul(a, b).astype(a.dtype, copy=False)]
