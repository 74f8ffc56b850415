"""The project's dialects: ``graph`` (tensors), ``fused`` (fused groups) and
``loop`` (buffer-level loops)."""

from collections.abc import Callable

from xdsl.ir import Dialect


def project_dialects() -> dict[str, Callable[[], Dialect]]:
    """Name -> lazy factory of every dialect graph-opt defines."""

    def graph() -> Dialect:
        from graphopt.dialects.graph import Graph

        return Graph

    def fused() -> Dialect:
        from graphopt.dialects.fused import Fused

        return Fused

    def loop() -> Dialect:
        from graphopt.dialects.loop import Loop

        return Loop

    return {"graph": graph, "fused": fused, "loop": loop}


def project_context(allow_unregistered: bool = False):
    """An xDSL ``Context`` with every xDSL dialect, graph-opt's and plugins'."""
    from xdsl.context import Context
    from xdsl.universe import Universe

    from graphopt.plugins import REGISTRY

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    for name, factory in {**project_dialects(), **REGISTRY.dialects}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx
