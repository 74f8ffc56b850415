"""Helpers for tests of graph-opt and of plugins (not used by the compiler itself)."""
