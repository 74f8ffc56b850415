"""A plugin whose pass takes the name of xDSL's ``cse``."""


def register(registry) -> None:
    registry.add_pattern_pass("cse", [])
