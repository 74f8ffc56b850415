"""The checker must catch wrong rules: mutate two rules and expect failures.

TVM's tanh gradient ``g - t*t`` (instead of ``g * (1 - t*t)``) passed tests
that used a ones cotangent; a random cotangent catches it.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest

from graphopt.dialects import graph
from graphopt.rules import GRADIENT
from graphopt.testing.gradcheck import GradientMismatch, build_module, check_vjp

RNG = np.random.default_rng(11)


@contextmanager
def swapped_rule(op_class, rule):
    saved = GRADIENT.snapshot()
    GRADIENT.register(op_class, rule)
    try:
        yield
    finally:
        GRADIENT.restore(saved)


def tanh_bug(ctx, op, grads):
    t = op.result
    return [ctx.sub(grads[0], ctx.mul(t, t))]


def div_sign_bug(ctx, op, grads):
    g = grads[0]
    return [
        ctx.unbroadcast(ctx.div(g, op.rhs), op.lhs),
        ctx.unbroadcast(ctx.div(ctx.mul(g, op.result), op.rhs), op.rhs),  # missing minus
    ]


def _tanh_case():
    x = RNG.standard_normal((3, 4))
    return build_module(lambda b, a: b.tanh(a[0]), [x]), [x]


def _div_case():
    a, c = RNG.standard_normal((3, 4)), np.abs(RNG.standard_normal(4)) + 0.5
    return build_module(lambda b, v: b.div(v[0], v[1]), [a, c]), [a, c]


@pytest.mark.parametrize(
    "op_class,bug,case",
    [(graph.TanhOp, tanh_bug, _tanh_case), (graph.DivOp, div_sign_bug, _div_case)],
)
def test_checker_catches_mutated_rule(op_class, bug, case) -> None:
    module, inputs = case()
    check_vjp(module, inputs, rng=RNG)  # the real rule passes
    with swapped_rule(op_class, bug):
        with pytest.raises(GradientMismatch):
            check_vjp(module, inputs, rng=RNG)
    check_vjp(module, inputs, rng=RNG)  # and is restored
