"""The built-in canonicalization patterns of graph ops (run by ``canonicalize``).

Most patterns are generic: they read the facts an op class declares as traits
(``graphopt.dialects.traits``), so a plugin op that lists the traits gets the
rewrites.  The ``GraphCanonicalization`` trait of every graph op hands them
to xDSL's ``canonicalize`` (:func:`trait_patterns`), followed by the per-op
patterns registered in ``graph_canonicalization``.

Every pattern only rewrites when the replacement has exactly the type of the
op's result: ``x + zeros(8x16)`` with ``x: 16`` broadcasts, so it is *not* ``x``.

Algebraic identities and floating point (NaN / inf / signed zero):

* ``NeutralElement``: ``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` -> ``x`` for
  every dtype.  They are exact for NaN and inf; the only difference is
  ``-0.0 + 0.0 = +0.0``, which compares equal.
* ``AbsorbingElement`` (``x * 0`` -> ``0``) and ``SelfCancelling``
  (``x - x`` -> ``0``) are applied to **integers only**: for floats
  ``NaN * 0``, ``inf * 0`` and ``inf - inf`` are NaN and ``-1.0 * 0`` is
  ``-0.0``, so the rewrite would change results.  The pass option
  ``canonicalize-graph{ignore-nan=true}`` (fast-math) applies them to floats
  too.
* ``Involution`` (``neg(neg x)``), ``Idempotent`` (``relu(relu x)``),
  ``IdentityIfSameType`` (reshape / broadcast_to / flatten / squeeze / cast
  to the same type, a concat of one input), ``IgnoresOperandValues``
  (``zeros_like`` / ``ones_like`` become splats).

Per-op structural patterns: transpose∘transpose (one transpose, or none when
the permutations cancel), reshape∘reshape, a slice covering its whole input
(compared on the normalized start, step and count of each axis, so
``starts = -4`` or ``ends = 1000`` count as full), a pad by zero, an
inference-mode dropout.  They are registered per op class and read
properties through the ops' typed accessors.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import Commutative

from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import GraphOp, numpy_dtype, tensor_of
from graphopt.dialects.traits import (
    AbsorbingElement,
    Idempotent,
    IdentityIfSameType,
    IgnoresOperandValues,
    Involution,
    NeutralElement,
    SelfCancelling,
)
from graphopt.transforms.graph_canonicalization import register_canonicalization_pattern

_MAX_DENSE_SCAN = 4096


def uniform_constant(value: SSAValue) -> float | int | bool | None:
    """The single value of a splat (or small uniform dense) constant, else None."""
    owner = value.owner
    if not isinstance(owner, graph.ConstantOp):
        return None
    if owner.splat is not None:
        return owner.splat.value.data
    t = tensor_of(owner.result)
    if np.prod(t.get_shape()) > _MAX_DENSE_SCAN:
        return None
    flat = owner.reference()[0].reshape(-1)
    if flat.size and bool(np.all(flat == flat[0])):
        return flat[0].item()
    return None


def _replace_with(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> bool:
    """Replace ``op`` by ``value`` when the types agree; report whether it did."""
    if value.type != op.results[0].type:
        return False
    rewriter.replace(op, [], [value])
    return True


def _replace_with_splat(rewriter: PatternRewriter, op: Operation, value: float | int | bool) -> None:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    rewriter.replace(op, graph.ConstantOp.splat_of(t, value))


def _binary_operands(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    if len(op.operands) != 2 or len(op.results) != 1:
        return None
    return op.operands[0], op.operands[1]


class NeutralOperand(RewritePattern):
    """``x op c -> x`` for the op's ``NeutralElement`` ``c`` (either side when
    ``Commutative``)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        trait = op.get_trait(NeutralElement)
        operands = _binary_operands(op)
        if trait is None or operands is None:
            return
        lhs, rhs = operands
        pairs = [(lhs, rhs), (rhs, lhs)] if op.has_trait(Commutative) else [(lhs, rhs)]
        for keep, other in pairs:
            c = uniform_constant(other)
            if c is not None and c == trait.value and _replace_with(rewriter, op, keep):
                return


class _InexactForFloats(RewritePattern):
    """A rewrite exact for integers, and for floats only when NaN and inf
    may be ignored (the ``ignore-nan`` option)."""

    def __init__(self, ignore_nan: bool = False):
        self.ignore_nan = ignore_nan

    def applies_to(self, op: Operation) -> bool:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        return isinstance(t.element_type, IntegerType) or self.ignore_nan


class AbsorbingOperand(_InexactForFloats):
    """``x op c -> c`` for the op's ``AbsorbingElement`` ``c``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        trait = op.get_trait(AbsorbingElement)
        operands = _binary_operands(op)
        if trait is None or operands is None or not self.applies_to(op):
            return
        lhs, rhs = operands
        sides = (lhs, rhs) if op.has_trait(Commutative) else (rhs,)
        if any(uniform_constant(v) == trait.value for v in sides):
            _replace_with_splat(rewriter, op, trait.value)


class SelfCancellingOperands(_InexactForFloats):
    """``x op x -> c`` for the op's ``SelfCancelling`` ``c``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        trait = op.get_trait(SelfCancelling)
        operands = _binary_operands(op)
        if trait is None or operands is None or operands[0] is not operands[1]:
            return
        if self.applies_to(op):
            _replace_with_splat(rewriter, op, trait.value)


class RepeatedUnary(RewritePattern):
    """``f(f(x))``: ``x`` for an ``Involution``, ``f(x)`` for an ``Idempotent`` op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        inner = op.operands[0].owner if len(op.operands) == 1 else None
        if type(inner) is not type(op):
            return
        assert isinstance(inner, Operation)
        if op.has_trait(Involution):
            _replace_with(rewriter, op, inner.operands[0])
        elif op.has_trait(Idempotent):
            _replace_with(rewriter, op, inner.results[0])


class SameTypeIdentity(RewritePattern):
    """An ``IdentityIfSameType`` op whose one result has its one operand's type
    is that operand."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.has_trait(IdentityIfSameType) and len(op.operands) == 1 and len(op.results) == 1:
            _replace_with(rewriter, op, op.operands[0])


class IgnoredOperandsToSplat(RewritePattern):
    """An elementwise op that ``IgnoresOperandValues`` is a splat constant
    (``zeros_like`` / ``ones_like``): evaluated once on one-element inputs."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not (isinstance(op, GraphOp) and op.has_trait(IgnoresOperandValues)):
            return
        if op.fuse_pattern != FusePattern.ELEMWISE or len(op.results) != 1:
            return
        inputs = [
            np.zeros((1,) * len(tensor_of(v).get_shape()), numpy_dtype(tensor_of(v).element_type))
            for v in op.operands
        ]
        (out,) = op.reference(*inputs)
        _replace_with_splat(rewriter, op, np.asarray(out).reshape(-1)[0].item())


#: The generic patterns, each with the traits that make it apply.
_TRAIT_PATTERNS: tuple[tuple[type, tuple[type, ...]], ...] = (
    (NeutralOperand, (NeutralElement,)),
    (SelfCancellingOperands, (SelfCancelling,)),
    (AbsorbingOperand, (AbsorbingElement,)),
    (RepeatedUnary, (Involution, Idempotent)),
    (SameTypeIdentity, (IdentityIfSameType,)),
    (IgnoredOperandsToSplat, (IgnoresOperandValues,)),
)


@cache
def trait_patterns(op_class: type[Operation], ignore_nan: bool = False) -> tuple[RewritePattern, ...]:
    """The generic patterns the traits of ``op_class`` call for (made once per
    class: ``canonicalize`` asks for every op it visits)."""
    out: list[RewritePattern] = []
    for pattern, traits in _TRAIT_PATTERNS:
        if any(op_class.has_trait(t) for t in traits):
            out.append(pattern(ignore_nan) if issubclass(pattern, _InexactForFloats) else pattern())
    return tuple(out)


@dataclass(frozen=True)
class TraitCanonicalization(RewritePattern):
    """Applies the generic patterns :func:`trait_patterns` gives an op's class.

    Registered once, on ``Operation``; ``canonicalize-graph{ignore-nan=true}``
    runs it with ``ignore_nan`` set."""

    ignore_nan: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        for pattern in trait_patterns(type(op), self.ignore_nan):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


class ComposeTranspose(RewritePattern):
    """``transpose(transpose(x, p), q)`` -> ``transpose(x, p∘q)``; identity perms vanish."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.TransposeOp, rewriter: PatternRewriter, /) -> None:
        perm = op.permutation
        if perm == tuple(range(len(perm))):
            _replace_with(rewriter, op, op.input)
            return
        inner = op.input.owner
        if not isinstance(inner, graph.TransposeOp):
            return
        composed = tuple(inner.permutation[p] for p in perm)
        if composed == tuple(range(len(composed))):
            _replace_with(rewriter, op, inner.input)
        else:
            rewriter.replace(op, graph.TransposeOp(inner.input, composed))


class ComposeReshape(RewritePattern):
    """``reshape(reshape(x))`` -> ``reshape(x)`` (or ``x`` when shapes agree; a
    reshape to its own type is ``SameTypeIdentity``'s)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, graph.ReshapeOp):
            return
        if not _replace_with(rewriter, op, inner.input):
            rewriter.replace(op, graph.ReshapeOp(inner.input, tensor_of(op.result).get_shape()))


class ZeroPad(RewritePattern):
    """A pad by zero everywhere is ``x`` (whatever the pad value)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.PadOp, rewriter: PatternRewriter, /) -> None:
        if all(p == 0 for p in op.pad_values):
            _replace_with(rewriter, op, op.input)


class FullSlice(RewritePattern):
    """A slice that takes every element of every axis, in order, is ``x``.

    Compared on the normalized ``(first, step, count)`` of each axis, so
    negative or clamped starts and ends count too; a reversing slice keeps the
    shape but is not the identity (except along an axis of size 0 or 1).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.SliceOp, rewriter: PatternRewriter, /) -> None:
        shape = tensor_of(op.input).get_shape()
        for dim, (first, step, count) in zip(shape, op.axis_ranges()):
            if count != dim:
                return
            if dim > 1 and (first != 0 or step != 1):
                return
        _replace_with(rewriter, op, op.input)


class InferenceDropout(RewritePattern):
    """A dropout without the ``training`` flag is the identity."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.DropoutOp, rewriter: PatternRewriter, /) -> None:
        if not op.is_training:
            _replace_with(rewriter, op, op.input)


def register_builtin_patterns() -> None:
    reg = register_canonicalization_pattern
    reg(graph.TransposeOp, ComposeTranspose())
    reg(graph.ReshapeOp, ComposeReshape())
    reg(graph.SliceOp, FullSlice())
    reg(graph.PadOp, ZeroPad())
    reg(graph.DropoutOp, InferenceDropout())
    # The generic, trait-driven patterns, on the root class: every op that
    # carries GraphCanonicalization (a plugin's too) reaches them.
    reg(Operation, TraitCanonicalization())


register_builtin_patterns()
