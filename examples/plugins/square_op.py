"""An example graph-opt plugin: a new op, ``toy.square``, end to end.

It shows everything an op needs to take part in the whole compiler:

* the op class (a ``GraphOp``: verifier, result-type inference, numpy
  reference semantics, fuse pattern ElemWise), in a new dialect ``toy``;
* its index-space compute rule, so ``lower-graph-to-loop`` can compile it;
* its gradient rule, so ``autodiff`` can differentiate through it.

    graph-run --load-plugin examples/plugins/square_op.py examples/plugins/square.mlir --check
    graph-opt --load-plugin examples/plugins/square_op.py -p 'autodiff{func=energy}' examples/plugins/square.mlir
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import FLOAT_TYPES, GraphOp
from graphopt.plugins import PluginRegistry
from graphopt.rules import COMPUTE, GRADIENT


@irdl_op_definition
class SquareOp(GraphOp):
    """``%y = toy.square %x : tensor<4xf32>``: ``y = x * x`` elementwise."""

    name = "toy.square"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.ELEMWISE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[self.infer_type(input.type)])

    @classmethod
    def infer_type(cls, input: Attribute) -> Attribute:
        return input

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        return [x * x]


Toy = Dialect("toy", [SquareOp], [])


def square_compute_rule(em, op: SquareOp, result_index: int, idx: list[SSAValue]) -> SSAValue:
    """``out[i] = x[i] * x[i]`` (the load of ``x[i]`` is shared)."""
    x = em.value_at(op.input, idx)
    return em.emit(arith.MulfOp(x, x)).results[0]


def square_gradient_rule(ctx, op: SquareOp, grads: Sequence[SSAValue | None]) -> list[SSAValue]:
    """d(x*x) = 2 x g, built from graph ops."""
    (g,) = grads
    return [ctx.mul(ctx.scale(g, 2.0), op.input)]


def register(registry: PluginRegistry) -> None:
    registry.add_dialect(Toy)
    registry.add_rule(COMPUTE, SquareOp, square_compute_rule)
    registry.add_rule(GRADIENT, SquareOp, square_gradient_rule)
