"""The project's passes, registered by name for ``graph-opt -p``.

Each entry is a lazy factory so that ``graph-opt`` starts fast and a pass
module is imported only when it is used.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def project_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> lazy factory of every pass graph-opt defines."""

    def lower_loop_to_llvm() -> type[ModulePass]:
        from graphopt.lowering.loop_to_llvm import LowerLoopToLLVMPass

        return LowerLoopToLLVMPass

    def lower_graph_to_loop() -> type[ModulePass]:
        from graphopt.lowering.graph_to_loop import LowerGraphToLoopPass

        return LowerGraphToLoopPass

    return {
        "lower-graph-to-loop": lower_graph_to_loop,
        "lower-loop-to-llvm": lower_loop_to_llvm,
    }


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass ``graph-opt -p`` knows: xDSL's, graph-opt's and plugins'."""
    from xdsl.universe import Universe

    from graphopt.plugins import REGISTRY

    passes = dict(Universe.get_multiverse().all_passes)
    passes.update(project_passes())
    passes.update(REGISTRY.passes)
    return passes
