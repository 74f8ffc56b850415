"""Canonicalization patterns for graph ops, keyed by op class.

xDSL's ``canonicalize`` pass finds them through the ``GraphCanonicalization``
trait every graph op carries.  The built-in patterns live in
``canonicalize_patterns`` and register on the first lookup.  Plugins add patterns with
:func:`register_canonicalization_pattern` (or ``registry.add_canonicalization_pattern``).
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

CANONICALIZATION_PATTERNS: dict[type[Operation], list[RewritePattern]] = {}
_builtin_loaded = False


def _load_builtin_patterns() -> None:
    """Register the project's own patterns (``canonicalize_patterns``) once.

    Done lazily: that module imports the whole graph dialect, and this one is
    imported by plugins while the dialect may still be loading.
    """
    global _builtin_loaded
    if _builtin_loaded:
        return
    _builtin_loaded = True
    from graphopt.transforms.canonicalize_patterns import register_builtin_patterns

    register_builtin_patterns()


def register_canonicalization_pattern(op_class: type[Operation], pattern: RewritePattern) -> None:
    """Run ``pattern`` on ``op_class`` ops whenever ``canonicalize`` runs."""
    CANONICALIZATION_PATTERNS.setdefault(op_class, []).append(pattern)


def patterns_for(op_class: type[Operation]) -> tuple[RewritePattern, ...]:
    _load_builtin_patterns()
    return tuple(CANONICALIZATION_PATTERNS.get(op_class, ()))
