"""An example graph-opt plugin: a new op, ``toy.square``, end to end.

It shows everything an op needs to take part in the whole compiler:

* the op class, in a new dialect ``toy``: an elementwise op is a
  ``UnaryElementwiseOp`` that names itself and its numpy function, and
  inherits the rest (same-type result inference, the verifier, numpy
  reference semantics, Pure, fuse pattern ElemWise, float element types);
* its index-space compute rule, so ``lower-graph-to-loop`` can compile it;
* its gradient rule, so ``autodiff`` can differentiate through it.

    graph-run --load-plugin examples/plugins/square_op.py examples/plugins/square.mlir --check
    graph-opt --load-plugin examples/plugins/square_op.py -p 'autodiff{func=energy}' examples/plugins/square.mlir
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import irdl_op_definition

from graphopt.dialects.graph import UnaryElementwiseOp
from graphopt.plugins import PluginRegistry
from graphopt.rules import COMPUTE, GRADIENT


@irdl_op_definition
class SquareOp(UnaryElementwiseOp):
    """``%y = toy.square %x : tensor<4xf32>``: ``y = x * x`` elementwise."""

    name = "toy.square"
    NUMPY_FN = staticmethod(np.square)


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
