"""The one registry of per-op rules: how each transformation treats an op class.

What an op *is* lives on its class (type inference, reference semantics,
traits, fuse pattern).  How a transformation treats it lives here, as a
*rule* of one :class:`RuleKind`, keyed by op class:

========================  ==========================================  =====================================
kind                      rule                                        used by
========================  ==========================================  =====================================
:data:`COMPUTE`           ``(emitter, op, result_index, idx) -> v``   ``lower-graph-to-loop`` (one element)
:data:`LOOP_ORDER`        ``(op, result_index) -> [dims]``            ``lower-graph-to-loop`` (nest order)
:data:`GEMM_PLAN`         ``(op, constants, target) -> plan | None``  the GEMM schedule (micro-kernels)
:data:`GRADIENT`          ``(ctx, op, grads) -> [grad | None]``       ``autodiff``
:data:`CANONICALIZATION`  a ``RewritePattern`` (several per class)    ``canonicalize``
:data:`DECOMPOSITION`     ``(op, emitter) -> value | None``           ``decompose``
:data:`SPLAT`             ``(op, splat operands) -> scalar | None``   ``fold-constants``
:data:`FUSION`            ``(op) -> FusePattern``                     ``fuse-ops``
========================  ==========================================  =====================================

Every kind has the same lookup: walk the op's class hierarchy (``__mro__``),
most specific class first, so a rule on a base class (``BinaryBroadcastOp``)
reaches every subclass and a rule on the subclass wins.  A kind that holds
*several* rules per class (canonicalization patterns) returns all of them,
the most specific class's first.

The built-in rules are registered by the module that owns the kind
(``builtins``), imported on the first lookup: this module sits below the
dialects and passes and imports none of them.  Plugins register through
``PluginRegistry.add_rule`` (which refuses to replace a rule another source
registered for the same class, and rolls back a failed plugin).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

R = TypeVar("R")

BUILTIN = "graph-opt"


@dataclass(eq=False)
class RuleKind(Generic[R]):
    """One kind of per-op rule and its table (op class -> rules)."""

    name: str
    """How diagnostics name the kind: ``compute rule``, ``gradient rule``..."""
    builtins: tuple[str, ...] = ()
    """The modules registering the built-in rules, imported on first lookup."""
    several: bool = False
    """Whether a class holds several rules (patterns) instead of one."""
    _table: dict[type, list[R]] = field(default_factory=dict, repr=False)
    _sources: dict[type, str] = field(default_factory=dict, repr=False)
    _loaded: bool = field(default=False, repr=False)

    # -- registering ----------------------------------------------------------

    def register(self, *args: Any) -> Callable[[R], R]:
        """``@kind.register(OpA, OpB)`` as a decorator, or
        ``kind.register(OpA, rule)`` directly (a trailing argument that is
        not a class is the rule).  A built-in registration replaces an
        earlier rule of the same class (for kinds of one rule per class)."""
        classes = list(args)
        rule = classes.pop() if classes and not isinstance(classes[-1], type) else None

        def decorate(fn: R) -> R:
            for cls in classes:
                self.add(cls, fn, BUILTIN)
            return fn

        if rule is not None:
            decorate(rule)
            return lambda fn: fn
        return decorate

    def add(self, op_class: type, rule: R, source: str) -> None:
        """Register ``rule`` for ``op_class`` on behalf of ``source``."""
        if self.several:
            self._table.setdefault(op_class, []).append(rule)
            self._sources.setdefault(op_class, source)
        else:
            self._table[op_class] = [rule]
            self._sources[op_class] = source

    # -- looking up -----------------------------------------------------------

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            for module in self.builtins:
                importlib.import_module(module)

    def _classes(self, op: object) -> tuple[type, ...]:
        self._load()
        return (op if isinstance(op, type) else type(op)).__mro__

    def lookup_with_class(self, op: object) -> tuple[type, R] | None:
        """``(class, rule)`` of the most specific class of ``op`` (an op or
        an op class) that has a rule, or ``None``."""
        for cls in self._classes(op):
            rules = self._table.get(cls)
            if rules:
                return cls, rules[-1]
        return None

    def lookup(self, op: object) -> R | None:
        """The rule of ``op``'s most specific class that has one, or ``None``."""
        found = self.lookup_with_class(op)
        return None if found is None else found[1]

    def lookup_all(self, op: object) -> tuple[R, ...]:
        """Every rule along ``op``'s class hierarchy, most specific class first
        (in registration order within a class)."""
        return tuple(r for cls in self._classes(op) for r in self._table.get(cls, ()))

    def owner(self, op_class: type) -> str | None:
        """Who registered a rule for exactly ``op_class``, if anyone."""
        self._load()
        return self._sources.get(op_class) if self._table.get(op_class) else None

    def classes(self) -> tuple[type, ...]:
        """The op classes that have a rule, in registration order."""
        self._load()
        return tuple(cls for cls, rules in self._table.items() if rules)

    def __iter__(self) -> Iterator[type]:
        return iter(self.classes())

    def __contains__(self, op_class: object) -> bool:
        return op_class in self.classes()

    # -- undo (plugin rollback, tests) ------------------------------------------

    def snapshot(self) -> tuple[dict[type, list[R]], dict[type, str]]:
        self._load()
        return {c: list(r) for c, r in self._table.items()}, dict(self._sources)

    def restore(self, snapshot: tuple[dict[type, list[R]], dict[type, str]]) -> None:
        table, sources = snapshot
        self._table = {c: list(r) for c, r in table.items()}
        self._sources = dict(sources)


_LOWERING_RULES = tuple(
    f"graphopt.lowering.{m}" for m in ("compute_rules", "rules_grad", "rules_math", "rules_nn", "rules_tensor", "conv_nchwc")
)

COMPUTE: RuleKind[Callable] = RuleKind("compute rule", _LOWERING_RULES)
"""Element ``idx`` of result ``i`` of an op, as scalar code (see ``lowering.compute_rules``)."""

LOOP_ORDER: RuleKind[Callable] = RuleKind("loop-order rule", _LOWERING_RULES)
"""The preferred loop order of an anchor's output nest (softmax along axis 0
wants that axis innermost, so its max and sum are computed once per column)."""

GEMM_PLAN: RuleKind[Callable] = RuleKind("GEMM schedule rule", ("graphopt.lowering.gemm",))
"""How an anchor maps onto ``C = A . B`` for the register-tiled GEMM
micro-kernel (matmul; 1x1 conv2d), or ``None`` for the generic loop nest."""

GRADIENT: RuleKind[Callable] = RuleKind("gradient rule", ("graphopt.transforms.autodiff",))
"""The vector-Jacobian product of an op (see ``transforms.autodiff.rules``)."""

CANONICALIZATION: RuleKind[Any] = RuleKind(
    "canonicalization pattern", ("graphopt.transforms.canonicalize_patterns",), several=True
)
"""Rewrite patterns xDSL's ``canonicalize`` runs on an op (the ``GraphCanonicalization`` trait)."""

DECOMPOSITION: RuleKind[Callable] = RuleKind("decomposition", ("graphopt.transforms.decompose",))
"""A composite op as graph primitives (``decompose``)."""

SPLAT: RuleKind[Callable] = RuleKind("splat rule", ("graphopt.transforms.fold_constants",))
"""The splat result of an op over splat operands, where it needs the op's properties."""

FUSION: RuleKind[Callable] = RuleKind("fusion rule")
"""The fuse pattern ``fuse-ops`` gives an op, instead of its class's own
(for ops of other dialects, or to make an op opaque to fusion)."""

KINDS: tuple[RuleKind, ...] = (
    COMPUTE,
    LOOP_ORDER,
    GEMM_PLAN,
    GRADIENT,
    CANONICALIZATION,
    DECOMPOSITION,
    SPLAT,
    FUSION,
)


def snapshot() -> tuple:
    """Every kind's table, for :func:`restore` (a failed plugin is rolled back)."""
    return tuple(kind.snapshot() for kind in KINDS)


def restore(saved: tuple) -> None:
    for kind, state in zip(KINDS, saved):
        kind.restore(state)


__all__ = [
    "CANONICALIZATION",
    "COMPUTE",
    "DECOMPOSITION",
    "FUSION",
    "GEMM_PLAN",
    "GRADIENT",
    "KINDS",
    "LOOP_ORDER",
    "SPLAT",
    "RuleKind",
    "restore",
    "snapshot",
]
