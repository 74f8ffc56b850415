"""A plugin whose ``register`` raises: graph-opt must report it without a traceback."""

from graphopt.plugins import PluginRegistry


def register(registry: PluginRegistry) -> None:
    raise ValueError("cannot register: missing configuration")
