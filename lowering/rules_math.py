"""Compute rules for the ops of ``graphopt.dialects.graph_math``."""
