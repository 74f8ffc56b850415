"""Facts about an op, as xDSL traits on the op class.

Passes ask an op what it is instead of keeping their own lists of op classes:
canonicalization rewrites algebra from the algebraic facts, constant folding
asks whether an op may be folded and whether it passes splats through, memory
planning asks whether an op reads its operands' values.  A plugin op states
the same facts by listing the same traits.

Algebraic facts (as arith's ``is_right_unit`` / ``is_right_zero``; with
xDSL's ``Commutative`` they hold on either side):

* :class:`NeutralElement` ``c``: ``x op c == x``.  Exact in every dtype: NaN
  and inf pass through, and ``-0.0 + 0.0 = +0.0`` compares equal.
* :class:`AbsorbingElement` ``c``: ``x op c == c``.  Exact for integers only:
  ``NaN * 0`` and ``inf * 0`` are NaN and ``-1.0 * 0`` is ``-0.0``, so for floats
  it holds only when NaN and inf may be ignored (``canonicalize-graph{ignore-nan=true}``).
* :class:`SelfCancelling` ``c``: ``x op x == c``; for floats likewise only
  when NaN and inf may be ignored (``inf - inf`` is NaN).
* :class:`Involution` (``f(f(x)) == x``) and :class:`Idempotent`
  (``f(f(x)) == f(x)``), MLIR's traits of those names.
* :class:`IdentityIfSameType`: a one-operand op whose result has its
  operand's type returns the operand unchanged.

Folding and planning facts:

* :class:`NeverFolded`: the op is not evaluated at compile time even though it
  is Pure (a copy exists to make a distinct buffer); ``when`` narrows it to
  some ops of the class (a dropout in training).
* :class:`PreservesSplat`: a splat operand gives a splat result of the same
  value (the op only moves, selects or replicates elements).
* :class:`IgnoresOperandValues`: the op reads only its operands' types,
  never their values (NNVM's ``FIgnoreInputs``): ``zeros_like``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import Operation
from xdsl.traits import Commutative, OpTrait

Scalar = float | int | bool


@dataclass(frozen=True)
class NeutralElement(OpTrait):
    """``x op value == x`` (right operand; either one with ``Commutative``)."""

    value: Scalar


@dataclass(frozen=True)
class AbsorbingElement(OpTrait):
    """``x op value == value``; for floats only when NaN and inf are ignored."""

    value: Scalar


@dataclass(frozen=True)
class SelfCancelling(OpTrait):
    """``x op x == value``; for floats only when NaN and inf are ignored."""

    value: Scalar


@dataclass(frozen=True)
class Involution(OpTrait):
    """``f(f(x)) == x``."""


@dataclass(frozen=True)
class Idempotent(OpTrait):
    """``f(f(x)) == f(x)``."""


@dataclass(frozen=True)
class IdentityIfSameType(OpTrait):
    """With its result of its single operand's type, the op is the identity."""


def _always(op: Operation) -> bool:
    return True


@dataclass(frozen=True)
class NeverFolded(OpTrait):
    """Never evaluated at compile time, for the ops of the class ``when`` accepts."""

    when: Callable[[Operation], bool] = field(default=_always, compare=False)

    def holds(self, op: Operation) -> bool:
        return self.when(op)


@dataclass(frozen=True)
class PreservesSplat(OpTrait):
    """A splat operand (the op has one) gives a splat result of that value."""


@dataclass(frozen=True)
class IgnoresOperandValues(OpTrait):
    """Only the operands' types matter, never their values."""


def is_never_folded(op: Operation) -> bool:
    trait = op.get_trait(NeverFolded)
    return trait is not None and trait.holds(op)


def is_commutative(op: Operation) -> bool:
    return op.has_trait(Commutative)


__all__ = [
    "AbsorbingElement",
    "Commutative",
    "Idempotent",
    "IdentityIfSameType",
    "IgnoresOperandValues",
    "Involution",
    "NeutralElement",
    "NeverFolded",
    "PreservesSplat",
    "Scalar",
    "SelfCancelling",
    "is_commutative",
    "is_never_folded",
]
