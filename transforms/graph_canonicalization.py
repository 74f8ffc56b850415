"""Canonicalization patterns for graph ops, in :data:`graphopt.rules.CANONICALIZATION`.

xDSL's ``canonicalize`` pass finds them through the ``GraphCanonicalization``
trait every graph op carries, which asks the registry for the patterns of the
op's class and of its base classes (most specific first): a pattern
registered on ``BinaryBroadcastOp`` runs on ``graph.add``.  The built-in
patterns live in ``canonicalize_patterns`` and register on the first lookup.
Plugins add patterns with ``registry.add_rule(CANONICALIZATION, OpClass, pattern)``.
"""

from __future__ import annotations

from graphopt import rules

#: ``register_canonicalization_pattern(OpClass, pattern)``: run ``pattern`` on
#: ``OpClass`` ops (and its subclasses) whenever ``canonicalize`` runs.
register_canonicalization_pattern = rules.CANONICALIZATION.register

__all__ = ["register_canonicalization_pattern"]
