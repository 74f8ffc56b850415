"""The built-in canonicalization patterns of graph ops (run by ``canonicalize``).

Every pattern only rewrites when the replacement has exactly the type of the
op's result: ``x + zeros(8x16)`` with ``x: 16`` broadcasts, so it is *not* ``x``.

Algebraic identities and floating point (NaN / inf / signed zero):

* ``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` -> ``x`` for every dtype.  They
  are exact for NaN and inf; the only difference is ``-0.0 + 0.0 = +0.0``,
  which compares equal.
* ``x * 0`` -> ``0`` and ``x - x`` -> ``0`` are applied to **integers only**:
  for floats ``NaN * 0``, ``inf * 0`` and ``inf - inf`` are NaN and
  ``-1.0 * 0`` is ``-0.0``, so the rewrite would change results.  Set
  :data:`FLOAT_ALGEBRA_IGNORES_NAN` to ``True`` (fast-math) to apply them to
  floats too.

Structural patterns: ``neg(neg x)``, ``relu(relu x)``, transpose∘transpose
(one transpose, or none when the permutations cancel), reshape∘reshape,
reshape / broadcast_to / flatten / squeeze / cast to the same type, a slice
covering its whole input (compared on the normalized start, step and count of
each axis, so ``starts = -4`` or ``ends = 1000`` count as full), a pad by zero,
a concat of one input, an inference-mode dropout; ``zeros_like`` /
``ones_like`` become splats.

Patterns are registered per op class and match with ``isinstance``; they read
properties through the ops' typed accessors.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from graphopt.dialects import graph
from graphopt.dialects.graph import BinaryBroadcastOp, UnaryElementwiseOp, tensor_of
from graphopt.transforms.graph_canonicalization import register_canonicalization_pattern

#: Apply ``x * 0 -> 0`` and ``x - x -> 0`` to floats (ignores NaN and inf).
FLOAT_ALGEBRA_IGNORES_NAN = False

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


def _is_exact_zero_algebra(t: TensorType) -> bool:
    return isinstance(t.element_type, IntegerType) or FLOAT_ALGEBRA_IGNORES_NAN


def _replace_with(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> bool:
    """Replace ``op`` by ``value`` when the types agree; report whether it did."""
    if value.type != op.results[0].type:
        return False
    rewriter.replace(op, [], [value])
    return True


def _replace_with_zeros(rewriter: PatternRewriter, op: Operation) -> None:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    rewriter.replace(op, graph.ConstantOp.splat_of(t, 0))


class BinaryIdentity(RewritePattern):
    """``x op c -> x`` (and ``c op x -> x`` when ``commutative``) for a neutral ``c``."""

    def __init__(self, neutral: float, commutative: bool):
        self.neutral = neutral
        self.commutative = commutative

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryBroadcastOp, rewriter: PatternRewriter, /) -> None:
        lhs, rhs = op.lhs, op.rhs
        pairs = [(lhs, rhs), (rhs, lhs)] if self.commutative else [(lhs, rhs)]
        for keep, other in pairs:
            c = uniform_constant(other)
            if c is not None and c == self.neutral and _replace_with(rewriter, op, keep):
                return


class MulByZero(RewritePattern):
    """``x * 0 -> 0`` for integers (see the module docstring for floats)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryBroadcastOp, rewriter: PatternRewriter, /) -> None:
        if not _is_exact_zero_algebra(tensor_of(op.result)):
            return
        if uniform_constant(op.lhs) == 0 or uniform_constant(op.rhs) == 0:
            _replace_with_zeros(rewriter, op)


class SubSelf(RewritePattern):
    """``x - x -> 0`` for integers."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryBroadcastOp, rewriter: PatternRewriter, /) -> None:
        if op.lhs is op.rhs and _is_exact_zero_algebra(tensor_of(op.result)):
            _replace_with_zeros(rewriter, op)


class Involution(RewritePattern):
    """``f(f(x)) -> x`` (neg)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UnaryElementwiseOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if type(inner) is type(op):
            assert isinstance(inner, UnaryElementwiseOp)
            _replace_with(rewriter, op, inner.input)


class Idempotent(RewritePattern):
    """``f(f(x)) -> f(x)`` (relu)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UnaryElementwiseOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if type(inner) is type(op):
            assert isinstance(inner, UnaryElementwiseOp)
            _replace_with(rewriter, op, inner.result)


class SameTypeIdentity(RewritePattern):
    """A one-input op whose result has its input's type is the identity
    (reshape, broadcast_to, cast, flatten, squeeze, a concat of one input)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if len(op.operands) == 1 and len(op.results) == 1:
            _replace_with(rewriter, op, op.operands[0])


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
    """``reshape(reshape(x))`` -> ``reshape(x)`` (or ``x`` when shapes agree)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        if _replace_with(rewriter, op, op.input):
            return
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


class LikeToSplat(RewritePattern):
    """``zeros_like(x)`` / ``ones_like(x)`` -> a splat constant (``x`` is never read)."""

    def __init__(self, value: int):
        self.value = value

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.ZerosLikeOp | graph.OnesLikeOp, rewriter: PatternRewriter, /
    ) -> None:
        rewriter.replace(op, graph.ConstantOp.splat_of(tensor_of(op.result), self.value))


def register_builtin_patterns() -> None:
    reg = register_canonicalization_pattern
    reg(graph.AddOp, BinaryIdentity(0, commutative=True))
    reg(graph.SubOp, BinaryIdentity(0, commutative=False))
    reg(graph.SubOp, SubSelf())
    reg(graph.MulOp, BinaryIdentity(1, commutative=True))
    reg(graph.MulOp, MulByZero())
    reg(graph.DivOp, BinaryIdentity(1, commutative=False))
    reg(graph.NegOp, Involution())
    reg(graph.ReluOp, Idempotent())
    reg(graph.TransposeOp, ComposeTranspose())
    reg(graph.ReshapeOp, ComposeReshape())
    for op_class in (graph.BroadcastToOp, graph.CastOp, graph.ConcatOp, graph.FlattenOp, graph.SqueezeOp):
        reg(op_class, SameTypeIdentity())
    reg(graph.SliceOp, FullSlice())
    reg(graph.PadOp, ZeroPad())
    reg(graph.DropoutOp, InferenceDropout())
    reg(graph.ZerosLikeOp, LikeToSplat(0))
    reg(graph.OnesLikeOp, LikeToSplat(1))
