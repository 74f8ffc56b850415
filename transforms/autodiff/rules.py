"""The gradient-rule registry, keyed by op class, and the context rules build with.

A gradient rule is the vector-Jacobian product of one op: it receives the
op's incoming gradient for each result (``None`` is a symbolic zero: that
result's gradient does not exist) and returns one gradient per operand
(``None`` for "no gradient", e.g. for masks and indices).  Rules emit graph
ops through the :class:`GradContext`, so gradients are ordinary graph IR that
goes through the normal pipeline.

    @register_gradient_rule(graph.TanhOp)
    def _tanh(ctx: GradContext, op: graph.TanhOp, grads):
        (g,) = grads
        t = op.result
        return [ctx.mul(g, ctx.sub(ctx.scalar(1.0, t), ctx.mul(t, t)))]

A rule is only called when at least one of its results has a gradient;
``ctx.needs(i)`` says whether operand ``i`` needs one at all (rules may skip
work for the others).  The rules live in :data:`graphopt.rules.GRADIENT`,
looked up along the op's class hierarchy; plugins add theirs with
``registry.add_rule(GRADIENT, OpClass, rule)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import FLOAT_TYPES, shape_str, tensor, tensor_of

GradientRule = Callable[["GradContext", Any, Sequence[SSAValue | None]], Sequence[SSAValue | None]]

class GradientError(DiagnosticException):
    """Differentiation is impossible (no rule, bad option); one diagnostic, no traceback."""


#: ``@register_gradient_rule(OpA, OpB)`` or ``register_gradient_rule(OpA, rule)``:
#: the gradient rule of those classes (and of their subclasses without one).
register_gradient_rule = rules.GRADIENT.register

def _no_gradient(ctx: GradContext, op: Operation, grads: Sequence[SSAValue | None]) -> list[None]:
    return [None] * len(op.operands)


def register_non_differentiable(*op_classes: type[Operation]) -> None:
    """Ops whose results do not depend differentiably on their operands
    (argmax, comparisons, ``zeros_like``...): their operands get no gradient."""
    register_gradient_rule(*op_classes, _no_gradient)


def gradient_rule_for(op: Operation) -> GradientRule | None:
    return rules.GRADIENT.lookup(op)


def is_float(value: SSAValue | Attribute) -> bool:
    t = value.type if isinstance(value, SSAValue) else value
    return isinstance(t, TensorType) and t.element_type in FLOAT_TYPES


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(tensor_of(value).get_shape())


def _emits(op_class: type[Operation], doc: str = "") -> Callable[..., SSAValue]:
    """A :class:`GradContext` method emitting ``op_class`` of its operands."""

    def method(self: GradContext, *operands: SSAValue) -> SSAValue:
        return self.apply(op_class, *operands)

    method.__doc__ = doc or f"``{op_class.name}`` of the operands."
    return method


class GradContext:
    """Emits the backward graph ops of one gradient function (before ``anchor``)."""

    def __init__(self, block: Block, anchor: Operation):
        self.block = block
        self.anchor = anchor
        self.emitted: list[Operation] = []
        self.operand_needs: Sequence[bool] = ()

    # -- emission ------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        self.block.insert_op_before(op, self.anchor)
        self.emitted.append(op)
        return op

    def apply(self, op_class: type[Operation], *args: Any, **kwargs: Any) -> SSAValue:
        """Emit ``op_class(*args, **kwargs)``; its (first) result."""
        return self.emit(op_class(*args, **kwargs)).results[0]

    def needs(self, index: int) -> bool:
        """Whether operand ``index`` of the op being differentiated needs a gradient."""
        return index < len(self.operand_needs) and self.operand_needs[index]

    # -- constants -------------------------------------------------------------

    def constant(self, value: float, type: Attribute) -> SSAValue:
        assert isinstance(type, TensorType)
        return self.emit(graph.ConstantOp.splat_of(type, value)).results[0]

    def scalar(self, value: float, like: SSAValue) -> SSAValue:
        """A rank-0 constant of ``like``'s element type (it broadcasts anywhere)."""
        return self.constant(value, tensor((), tensor_of(like).element_type))

    def zeros(self, type: Attribute) -> SSAValue:
        return self.constant(0.0, type)

    def ones(self, type: Attribute) -> SSAValue:
        return self.constant(1.0, type)

    # -- arithmetic ------------------------------------------------------------

    add = _emits(graph.AddOp)
    sub = _emits(graph.SubOp)
    mul = _emits(graph.MulOp)
    div = _emits(graph.DivOp)
    neg = _emits(graph.NegOp)

    def scale(self, a: SSAValue, factor: float) -> SSAValue:
        return a if factor == 1.0 else self.mul(a, self.scalar(factor, a))

    matmul = _emits(graph.MatmulOp)

    def add_n(self, values: Sequence[SSAValue]) -> SSAValue:
        """One n-ary sum of same-typed values (a single value passes through)."""
        if len(values) == 1:
            return values[0]
        return self.apply(graph.AddNOp, list(values))

    # -- layout ------------------------------------------------------------------

    def reshape(self, a: SSAValue, shape: Sequence[int]) -> SSAValue:
        if shape_of(a) == tuple(shape):
            return a
        return self.apply(graph.ReshapeOp, a, list(shape))

    def transpose(self, a: SSAValue, perm: Sequence[int]) -> SSAValue:
        if list(perm) == list(range(len(perm))):
            return a
        return self.apply(graph.TransposeOp, a, list(perm))

    def reduce_sum(self, a: SSAValue, axes: Sequence[int], keepdims: bool = False) -> SSAValue:
        if not axes:
            return a
        return self.apply(graph.ReduceSumOp, a, list(axes), keepdims)

    def broadcast_to(self, a: SSAValue, shape: Sequence[int]) -> SSAValue:
        """``a`` broadcast (numpy rules) to ``shape``."""
        if shape_of(a) == tuple(shape):
            return a
        return self.apply(graph.BroadcastToOp, a, list(shape))

    def unbroadcast(self, g: SSAValue, target: SSAValue | Attribute) -> SSAValue:
        """Sum ``g`` over the axes along which ``target``'s shape was broadcast
        (leading axes added by rank promotion, and size-1 axes), then reshape
        to ``target``'s shape."""
        t = target.type if isinstance(target, SSAValue) else target
        assert isinstance(t, TensorType)
        want = tuple(t.get_shape())
        have = shape_of(g)
        if want == have:
            return g
        lead = len(have) - len(want)
        axes = [d for d in range(len(have)) if d < lead or (want[d - lead] == 1 and have[d] != 1)]
        return self.reshape(self.reduce_sum(g, axes), want)

    # -- masks -------------------------------------------------------------------

    exp = _emits(graph.ExpOp)
    greater = _emits(graph.GreaterOp, "The i1 mask ``a > b``.")
    less = _emits(graph.LessOp, "The i1 mask ``a < b``.")
    equal = _emits(graph.EqualOp, "The i1 mask ``a == b``.")
    where = _emits(graph.WhereOp, "``a`` where ``cond`` holds, else ``b``.")

    def mask_grad(self, cond: SSAValue, g: SSAValue) -> SSAValue:
        """``g`` where ``cond`` holds, else zero."""
        return self.where(cond, g, self.scalar(0.0, g))

    def count(self, shape: Sequence[int], axes: Sequence[int]) -> int:
        return math.prod(shape[a] for a in axes)


def check_rule_result(op: Operation, grads: Sequence[SSAValue | None] | None) -> list[SSAValue | None]:
    """The rule's gradients, checked: one per operand, each of its operand's type."""
    grads = list(grads or [])
    if len(grads) != len(op.operands):
        raise GradientError(
            f"the gradient rule of {op.name} returned {len(grads)} gradients "
            f"for {len(op.operands)} operands"
        )
    for i, (g, x) in enumerate(zip(grads, op.operands)):
        if g is not None and g.type != x.type:
            gt, xt = tensor_of(g), tensor_of(x)
            raise GradientError(
                f"the gradient rule of {op.name} returned a {shape_str(gt.get_shape())}x"
                f"{gt.element_type} gradient for operand #{i} of type "
                f"{shape_str(xt.get_shape())}x{xt.element_type}"
            )
    return grads
