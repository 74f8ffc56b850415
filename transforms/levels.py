"""Which level a module is at, and the guard every project pass runs first.

A pass written for one level finds nothing it knows at another and would
exit 0 having done nothing, or worse (``autodiff`` after
``lower-graph-to-loop`` copied the forward driver into ``@f_grad``).  Each
project pass therefore states the level it runs at, and refuses another one
with a diagnostic naming the pass, the level found, and the op that shows it.

Levels, from the ops a module holds:

* ``graph``: ``graph.*`` and ``fused.*`` ops (and plugin ops built on
  :class:`GraphOp`);
* ``loop``: the buffer level, ``loop``/``scf``/``memref``/``vector``/``cf`` ops;
* ``llvm``: ``llvm.*`` ops.

A module holding none of these (for example only empty functions) is at no
particular level and every pass accepts it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from graphopt.dialects.graph import GraphOp

GRAPH, LOOP, LLVM = "graph", "loop", "llvm"
_ORDER = (GRAPH, LOOP, LLVM)

_LOOP_DIALECTS = frozenset({"loop", "scf", "memref", "vector", "cf"})


class PassLevelError(DiagnosticException):
    """A pass applied to a module at a level it does not run at."""


def level_of_op(op: Operation) -> str | None:
    if isinstance(op, GraphOp):
        return GRAPH
    dialect = op.name.split(".", 1)[0]
    if dialect in ("graph", "fused"):
        return GRAPH
    if dialect in _LOOP_DIALECTS:
        return LOOP
    if dialect == "llvm":
        return LLVM
    return None


def module_levels(module: ModuleOp) -> dict[str, Operation]:
    """Each level present in ``module``, with the first op that shows it."""
    found: dict[str, Operation] = {}
    for op in module.walk():
        level = level_of_op(op)
        if level is not None and level not in found:
            found[level] = op
            if len(found) == len(_ORDER):
                break
    return found


def op_location(op: Operation) -> str:
    from xdsl.dialects.builtin import FileLineColLoc

    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{op.name} at {loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return op.name


_LOWERING_TO = {LOOP: "lower-graph-to-loop", LLVM: "lower-loop-to-llvm"}


def require_level(module: ModuleOp, pass_name: str, level: str) -> None:
    """Refuse to run ``pass_name`` unless ``module`` is at ``level`` (or at none).

    A module that mixes ``level`` with a lower one (hand-written loop
    kernels next to graph functions) is refused too: the pass would silently
    skip part of it.
    """
    found = module_levels(module)
    others = [lv for lv in _ORDER if lv in found and lv != level]
    if not others:
        return
    # Name the level furthest from the pass's own: that is what makes it wrong.
    other = others[-1] if _ORDER.index(others[-1]) > _ORDER.index(level) else others[0]
    if _ORDER.index(other) > _ORDER.index(level):
        hint = f"the module has already been lowered by {_LOWERING_TO[other]}: run {pass_name} before it"
    else:
        hint = f"lower the module with {_LOWERING_TO[level]} first"
    raise PassLevelError(
        f"{pass_name}: runs on {level}-level IR, but the module is at the {other} level "
        f"({op_location(found[other])}); {hint}"
    )


def require_lowered(module: ModuleOp, pass_name: str) -> None:
    """Refuse graph-level IR for a conversion step of the LLVM lowering
    (``convert-*-to-llvm``, ``expand-math``): these run on loop-level IR and on
    the partly converted modules between the steps, never on tensors."""
    found = module_levels(module)
    if GRAPH in found:
        raise PassLevelError(
            f"{pass_name}: runs on loop-level IR, but the module is at the graph level "
            f"({op_location(found[GRAPH])}); lower the module with lower-graph-to-loop first"
        )


__all__ = [
    "GRAPH", "LLVM", "LOOP", "PassLevelError", "level_of_op", "module_levels", "op_location",
    "require_level", "require_lowered",
]
