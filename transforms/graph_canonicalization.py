"""Canonicalization patterns for graph ops, keyed by op class.

xDSL's ``canonicalize`` pass finds them through the ``GraphCanonicalization``
trait every graph op carries.  Plugins add patterns with
:func:`register_canonicalization_pattern` (or ``registry.add_canonicalization_pattern``).
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

CANONICALIZATION_PATTERNS: dict[type[Operation], list[RewritePattern]] = {}


def register_canonicalization_pattern(op_class: type[Operation], pattern: RewritePattern) -> None:
    """Run ``pattern`` on ``op_class`` ops whenever ``canonicalize`` runs."""
    CANONICALIZATION_PATTERNS.setdefault(op_class, []).append(pattern)


def patterns_for(op_class: type[Operation]) -> tuple[RewritePattern, ...]:
    return tuple(CANONICALIZATION_PATTERNS.get(op_class, ()))
