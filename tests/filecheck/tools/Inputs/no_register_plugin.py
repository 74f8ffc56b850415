"""A plugin module that forgets to define ``register(registry)``."""

PASSES = ["nothing-here"]


def setup(registry) -> None:
    """Misnamed: graph-opt looks for ``register``."""
