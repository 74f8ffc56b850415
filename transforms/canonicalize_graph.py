"""``canonicalize-graph``: xDSL's ``canonicalize`` with the graph patterns'
floating-point option.

    graph-opt -p 'canonicalize-graph{ignore-nan=true}' model.mlir

Without options it is ``canonicalize`` (on graph-level IR only).  ``ignore-nan=true`` is fast-math for
the algebra: the facts that hold for floats only when NaN and inf may be
ignored (``AbsorbingElement``: ``x * 0 -> 0``; ``SelfCancelling``:
``x - x -> 0``) are applied to floats too.  The option is the pass's, not the
process's, so two pipelines in one process may differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.dead_code_elimination import region_dce

from graphopt.transforms.canonicalize_patterns import TraitCanonicalization
from graphopt.transforms.levels import GRAPH, require_level


@dataclass
class _Canonicalization(RewritePattern):
    """xDSL's canonicalization dispatch, passing ``ignore_nan`` to graph ops."""

    ignore_nan: bool

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        patterns: list[RewritePattern] = []
        for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait):
            patterns += trait.get_patterns(type(op))
        if self.ignore_nan:
            fast = TraitCanonicalization(ignore_nan=True)
            patterns = [fast if isinstance(p, TraitCanonicalization) else p for p in patterns]
        if patterns:
            GreedyRewritePatternApplier(patterns).match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class CanonicalizeGraphPass(ModulePass):
    name = "canonicalize-graph"

    ignore_nan: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        pattern = GreedyRewritePatternApplier(
            [_Canonicalization(self.ignore_nan)], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
