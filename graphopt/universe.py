"""graph-opt's ``xdsl.universe``: its dialects, passes and targets for stock
``xdsl-opt`` (and any other xDSL tool that reads the multiverse).

    xdsl-opt examples/mlp.mlir -p fuse-ops,plan-memory
    xdsl-opt examples/mlp.mlir -p lower-graph-to-loop,lower-loop-to-llvm -t graph-llvm

Everything is looked up lazily, so publishing the universe costs xdsl-opt
nothing until a graph-opt dialect or pass is used.  The targets are named
``graph-dot`` and ``graph-llvm`` because xDSL already has ``llvm`` (which
drops the kernels' internal linkage); ``graph-opt`` itself calls them
``dot`` and ``llvm``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from xdsl.universe import Universe
from xdsl.utils.target import Target

from graphopt.dialects import project_dialects
from graphopt.transforms import project_passes


def _renamed(name: str, load: Callable[[], type[Target]]) -> Callable[[], type[Target]]:
    """The target ``load`` imports, subclassed once, when first asked for,
    under xdsl-opt's ``name`` for it."""

    @cache
    def target() -> type[Target]:
        base = load()
        cls = type(f"Graph{base.__name__}", (base,), {"name": name, "__module__": __name__})
        return dataclass(frozen=True)(cls)

    return target


def _dot() -> type[Target]:
    from graphopt.tools.dot_target import DotTarget

    return DotTarget


def _llvm() -> type[Target]:
    from graphopt.tools.llvm_target import LLVMTarget

    return LLVMTarget


GRAPHOPT_UNIVERSE = Universe(
    all_dialects=project_dialects(),
    all_passes=project_passes(),
    all_targets={name: _renamed(name, load) for name, load in (("graph-dot", _dot), ("graph-llvm", _llvm))},
)
"""Published as the ``graphopt`` entry point of the ``xdsl.universe`` group."""
