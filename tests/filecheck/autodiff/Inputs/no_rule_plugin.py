"""A test plugin: ``nograd.cube``, an op with a compute rule but no gradient rule."""

import numpy as np
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition

from graphopt.dialects.graph import SameTypeOp


@irdl_op_definition
class CubeOp(SameTypeOp):
    name = "nograd.cube"

    def reference(self, *inputs):
        return [np.power(inputs[0], 3)]


def register(registry) -> None:
    registry.add_dialect(Dialect("nograd", [CubeOp], []))
