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
