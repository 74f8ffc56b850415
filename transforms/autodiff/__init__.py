"""Symbolic reverse-mode automatic differentiation (``autodiff``)."""
