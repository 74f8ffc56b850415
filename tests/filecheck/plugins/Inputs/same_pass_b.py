"""The other of two plugins registering the pass ``my-cleanup``."""


def register(registry) -> None:
    registry.add_pattern_pass("my-cleanup", [])
