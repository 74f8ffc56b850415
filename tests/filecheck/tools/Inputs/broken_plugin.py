"""A plugin whose import fails: graph-opt must report it without a traceback."""

from graphopt.plugins import PluginRegistry

raise RuntimeError("this plugin is broken on purpose")


def register(registry: PluginRegistry) -> None:  # pragma: no cover - never reached
    pass
