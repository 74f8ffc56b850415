"""``fold-constants``: evaluate ops whose operands are all constants at compile time.

An op is folded through its own numpy ``reference`` semantics (the same ones the
reference interpreter uses) and replaced by ``graph.constant`` ops built with
``ConstantOp.from_array``, so a uniform result stays a splat.

What is never folded, and why:

* ops without the ``Pure`` trait (random ops such as a training-mode
  ``graph.dropout``): each run must draw new values;
* ops with the ``NeverFolded`` trait (``CopyOp``): a copy exists to
  produce a distinct buffer, folding it would merge it with its source;
* results (or dense operands) bigger than ``max-elements``: the IR would grow
  by megabytes for no run-time gain.

Splats never materialise: when every operand is a splat and the op is
elementwise or broadcasting, it is evaluated on one-element arrays; ops
with the ``PreservesSplat`` trait only move or select elements (transpose,
reshape, broadcast_to, slice, reduce_max...) and pass a splat through; the
splat rules (:data:`graphopt.rules.SPLAT`) cover ops whose answer depends on a property: a
``graph.fill`` becomes a splat directly, a ``graph.pad`` of a splat by the same
value stays one.  A fill of a million elements therefore costs one scalar, in
the IR and at compile time.

Each fold is a rewrite pattern (:class:`FoldConstant`) applied by xDSL's
walker; producers left without uses stay for ``dce`` (the pipelines run
``canonicalize`` and ``dce`` after this pass).  The pass records how many ops
it folded in ``statistics`` (shown by ``graph-opt --pass-statistics``).
Plugin ops declare the traits ``NeverFolded`` and ``PreservesSplat``
(``graphopt.dialects.traits``), or get a splat rule with
``registry.add_rule(SPLAT, OpClass, rule)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import Pure

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import GraphOp, numpy_dtype, tensor_of
from graphopt.transforms.pass_statistics import GraphRewritePass, rewrite_counting
from graphopt.dialects.traits import PreservesSplat, is_never_folded

Scalar = float | int | bool
#: rule(op, splat operand values) -> the splat value of the op's single result,
#: or None when the rule does not apply.
SplatRule = Callable[[Operation, Sequence[Scalar]], Scalar | None]



def _preserves_splat(op: Operation) -> bool:
    """The op passes a splat operand through (a fact about the op)."""
    return op.has_trait(PreservesSplat)


#: ``register_splat_rule(OpClass, rule)``: the splat result of ``OpClass``
#: ops over splat operands, for ops whose answer needs their properties.
register_splat_rule = rules.SPLAT.register


def _fill_rule(op: Operation, splats: Sequence[Scalar]) -> Scalar | None:
    """``graph.fill``: its value, already cast to the element type."""
    assert isinstance(op, graph.FillOp)
    return op.scalar


def _pad_rule(op: Operation, splats: Sequence[Scalar]) -> Scalar | None:
    """``graph.pad`` of a splat by that same value is a bigger splat."""
    assert isinstance(op, graph.PadOp)
    if len(splats) != 1:
        return None
    dtype = numpy_dtype(tensor_of(op.input).element_type)
    same = np.asarray(op.scalar).astype(dtype) == np.asarray(splats[0]).astype(dtype)
    return splats[0] if bool(same) else None


register_splat_rule(graph.FillOp, _fill_rule)
register_splat_rule(graph.PadOp, _pad_rule)


# --------------------------------------------------------------------------
# what can be folded
# --------------------------------------------------------------------------


def is_never_fold(op: Operation) -> bool:
    """Random ops, copies and anything else whose identity matters."""
    if not op.has_trait(Pure):
        return True
    return is_never_folded(op)


def splat_value(value: SSAValue) -> Scalar | None:
    """The repeated scalar of a splat ``graph.constant`` result, else None."""
    owner = value.owner
    if isinstance(owner, graph.ConstantOp) and owner.splat is not None:
        return owner.splat.value.data
    return None


def constant_operands(op: Operation) -> list[Operation] | None:
    """The defining constants of ``op``'s operands, or None if one is not constant."""
    owners = [v.owner for v in op.operands]
    if all(isinstance(o, graph.ConstantOp) for o in owners):
        return owners  # type: ignore[return-value]
    return None


def _count(t: TensorType) -> int:
    return prod(t.get_shape())


# --------------------------------------------------------------------------
# evaluation
# --------------------------------------------------------------------------


def _splat_results(op: GraphOp, splats: list[Scalar]) -> list[Scalar] | None:
    """Fold ``op`` over splat operands without materialising them."""
    rule = rules.SPLAT.lookup(op)
    if rule is not None and len(op.results) == 1:
        value = rule(op, splats)
        if value is not None:
            return [value]
    if _preserves_splat(op) and len(splats) == 1 and len(op.results) == 1:
        if tensor_of(op.results[0]).element_type == tensor_of(op.operands[0]).element_type:
            return [splats[0]]
    if not splats or op.fuse_pattern not in (FusePattern.ELEMWISE, FusePattern.BROADCAST):
        return None
    inputs = [
        np.full((1,) * len(tensor_of(v).get_shape()), s, dtype=numpy_dtype(tensor_of(v).element_type))
        for v, s in zip(op.operands, splats)
    ]
    try:
        outs = op.reference(*inputs)
    except (ValueError, IndexError, NotImplementedError):
        # Semantics that need the real shapes (numpy refuses the one-element
        # stand-ins): fold densely instead, through the same reference.
        return None
    if len(outs) != len(op.results) or any(np.asarray(o).size != 1 for o in outs):
        return None
    return [np.asarray(o).reshape(-1)[0].item() for o in outs]


def fold_op(op: GraphOp, max_elements: int) -> list[Operation] | None:
    """Constants replacing ``op``'s results, or None when ``op`` stays."""
    if isinstance(op, graph.ConstantOp) or is_never_fold(op):
        return None
    owners = constant_operands(op)
    if owners is None:
        return None
    result_types = [r.type for r in op.results]
    if not all(isinstance(t, TensorType) for t in result_types):
        return None
    splats = [splat_value(v) for v in op.operands]
    if all(s is not None for s in splats):
        values = _splat_results(op, splats)  # type: ignore[arg-type]
        if values is not None:
            return [graph.ConstantOp.splat_of(t, v) for t, v in zip(result_types, values)]
    sizes = [_count(tensor_of(v)) for v in op.operands] + [_count(t) for t in result_types]
    if any(n > max_elements for n in sizes):
        return None
    inputs = [o.reference()[0] for o in owners]
    try:
        outs = op.reference(*inputs)
    except NotImplementedError:
        return None
    if len(outs) != len(result_types):
        return None
    folded: list[Operation] = []
    for out, t in zip(outs, result_types):
        dtype = numpy_dtype(t.element_type)
        array = np.asarray(out)
        if tuple(array.shape) != tuple(t.get_shape()) or array.dtype != dtype:
            return None  # the reference disagrees with the op's type: leave it alone
        new = graph.ConstantOp.from_array(array)
        # A pure op of no operands (an iota, say) is cheaper to compute than to
        # store, unless its result is uniform.
        if not op.operands and not new.is_splat:
            return None
        folded.append(new)
    return folded


@dataclass(eq=False)
class FoldConstant(RewritePattern):
    """Replace a graph op whose operands are all constants by the constants
    of its results; the producers left without uses are ``dce``'s."""

    max_elements: int = 1 << 20
    count: int = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GraphOp):
            return
        new_ops = fold_op(op, self.max_elements)
        if new_ops is None:
            return
        for new in new_ops:
            new.location = op.location
        rewriter.replace(op, new_ops, [new.results[0] for new in new_ops])
        self.count += 1


def fold_constants(module: Operation, max_elements: int = 1 << 20) -> int:
    """Fold every foldable op of ``module`` in place; return how many were folded."""
    return rewrite_counting(FoldConstant(max_elements), module)


@dataclass(frozen=True)
class FoldConstantsPass(GraphRewritePass):
    """Evaluate all-constant ops at compile time (see the module docstring)."""

    name = "fold-constants"
    counter = "folded"

    max_elements: int = 1 << 20

    def pattern(self) -> FoldConstant:
        return FoldConstant(self.max_elements)


__all__ = [
    "FoldConstant",
    "FoldConstantsPass",
    "fold_constants",
    "fold_op",
    "is_never_fold",
    "register_splat_rule",
    "splat_value",
]
