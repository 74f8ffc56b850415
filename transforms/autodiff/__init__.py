"""Symbolic reverse-mode automatic differentiation (``autodiff``).

* ``rules``: the gradient-rule registry keyed by op class
  (:func:`register_gradient_rule`) and the context rules emit graph ops with;
* ``rules_*``: the rules of each op family;
* ``reverse``: the reverse walk that builds ``@f_grad``;
* ``training``: forward + backward + SGD update in one function;
* ``autodiff_pass``: the ``autodiff`` pass and the Python API
  (:func:`add_gradient`, :func:`add_training_step`).
"""

from graphopt.transforms.autodiff import rules_core  # noqa: F401  (registers rules)
from graphopt.transforms.autodiff import rules_blocked, rules_math, rules_nn, rules_tensor  # noqa: F401
from graphopt.transforms.autodiff.autodiff_pass import (
    AutodiffPass,
    add_gradient,
    add_training_step,
)
from graphopt.transforms.autodiff.reverse import differentiate, resolve_wrt
from graphopt.transforms.autodiff.rules import (
    GradContext,
    GradientError,
    gradient_rule_for,
    register_gradient_rule,
    register_non_differentiable,
)
from graphopt.transforms.autodiff.training import training_step

__all__ = [
    "AutodiffPass",
    "GradContext",
    "GradientError",
    "add_gradient",
    "add_training_step",
    "differentiate",
    "gradient_rule_for",
    "register_gradient_rule",
    "register_non_differentiable",
    "resolve_wrt",
    "training_step",
]
