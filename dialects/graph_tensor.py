"""Graph ops: (to be filled)."""

from graphopt.dialects.graph_base import GraphOp

OPS: tuple[type[GraphOp], ...] = ()

__all__: list[str] = []
