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

from dataclasses import dataclass
from functools import cache

from xdsl.universe import Universe
from xdsl.utils.target import Target

from graphopt.dialects import project_dialects
from graphopt.transforms import project_passes


def _renamed(base: type[Target], name: str) -> type[Target]:
    """``base`` under the universe's ``name`` (xDSL names its own ``llvm``)."""
    return dataclass(frozen=True)(type(f"Graph{base.__name__}", (base,), {"name": name, "__module__": __name__}))


@cache
def _dot_target() -> type[Target]:
    from graphopt.tools.dot_target import DotTarget

    return _renamed(DotTarget, "graph-dot")


@cache
def _llvm_target() -> type[Target]:
    from graphopt.tools.llvm_target import LLVMTarget

    return _renamed(LLVMTarget, "graph-llvm")


GRAPHOPT_UNIVERSE = Universe(
    all_dialects=project_dialects(),
    all_passes=project_passes(),
    all_targets={"graph-dot": _dot_target, "graph-llvm": _llvm_target},
)
"""Published as the ``graphopt`` entry point of the ``xdsl.universe`` group."""
