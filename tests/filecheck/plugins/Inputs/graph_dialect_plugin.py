"""A plugin whose dialect takes the name of graph-opt's ``graph``."""
from xdsl.ir import Dialect


def register(registry) -> None:
    registry.add_dialect(Dialect("graph", [], []))
