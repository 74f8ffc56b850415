"""A test plugin: ``nograd.cube``, an op with a compute rule but no gradient rule."""

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Dialect
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
)

from graphopt.dialects.graph import GraphOp


@irdl_op_definition
class CubeOp(GraphOp):
    name = "nograd.cube"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    assembly_format = "$input attr-dict `:` type($input)"

    def inferred_result_types(self):
        return [self.input.type]

    def reference(self, *inputs):
        return [np.power(inputs[0], 3)]


def register(registry) -> None:
    registry.add_dialect(Dialect("nograd", [CubeOp], []))
