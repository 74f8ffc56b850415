"""The counters a pass reports (``graph-opt --pass-statistics``), as a declared field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker

from graphopt.transforms.levels import GRAPH, require_level


@dataclass(frozen=True)
class StatisticsPass(ModulePass):
    """A pass that counts what it did in :attr:`statistics`.

    The field is not an option (``init=False``: the pass-spec parser, the
    printer and ``--help`` skip it) and not part of the pass's identity
    (``compare=False``).  The dict itself is filled in place by
    :meth:`record`, so the frozen dataclass stays frozen.
    """

    statistics: dict[str, int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def record(self, **counters: int) -> None:
        """Replace the counters of the last run (option-style names: ``ops_fused`` -> ``ops-fused``)."""
        self.statistics.clear()
        self.statistics.update({k.replace("_", "-"): v for k, v in counters.items()})


class CountingPattern(Protocol):
    """A rewrite pattern that counts the ops it rewrote in ``count``."""

    count: int

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None: ...


def rewrite_counting(pattern: CountingPattern, module: Operation) -> int:
    """Walk ``module`` once with ``pattern``, not revisiting what it made
    (the producers it leaves unused are ``dce``'s); return its count."""
    PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(module)  # type: ignore[arg-type]
    return pattern.count


@dataclass(frozen=True)
class GraphRewritePass(StatisticsPass):
    """A graph-level pass that is one counting pattern walked once; its one
    statistic, named :attr:`counter`, is how many ops the pattern rewrote."""

    counter: ClassVar[str]

    def pattern(self) -> CountingPattern:
        """A fresh pattern (count 0) for one run, built from the options."""
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        self.record(**{self.counter: rewrite_counting(self.pattern(), op)})


__all__ = ["CountingPattern", "GraphRewritePass", "StatisticsPass", "rewrite_counting"]
