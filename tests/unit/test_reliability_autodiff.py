"""Second-order gradients through batch_norm_train (issue 15, item 7): the
backward graph must depend on x through the batch statistics, so that
differentiating it again agrees with finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from graphopt.transforms.autodiff import add_gradient
from graphopt.testing.gradcheck import build_module, check_vjp

RNG = np.random.default_rng(15)


def _loss(b, a):
    y = b.batch_norm_train(a[0], a[1], a[2], eps=1e-3)[0]
    return b.reduce_sum(b.mul(b.tanh(y), a[3]))


@pytest.mark.parametrize("shape", [(3, 2, 2, 2), (4, 3)])
def test_second_order_batch_norm_train(shape) -> None:
    c = shape[1]
    x, s, bias = RNG.standard_normal(shape), RNG.standard_normal(c), RNG.standard_normal(c)
    w = RNG.standard_normal(shape)
    module = build_module(_loss, [x, s, bias, w])
    add_gradient(module, "f", [0, 1, 2], "ones")
    # Differentiate @f_grad (value, dx, dscale, dbias) once more, w.r.t. x and scale.
    check_vjp(module, [x, s, bias, w], func="f_grad", wrt=[0, 1], rng=RNG, atol=1e-4, rtol=2e-3)


def test_first_order_batch_norm_train_still_matches() -> None:
    x, s, bias, w = (RNG.standard_normal(t) for t in [(3, 2, 2, 2), 2, 2, (3, 2, 2, 2)])
    check_vjp(build_module(_loss, [x, s, bias, w]), [x, s, bias, w], wrt=[0, 1, 2], rng=RNG)


def test_second_order_batch_norm_train_compiled() -> None:
    shape = (3, 2, 2, 2)
    x, s, bias, w = (RNG.standard_normal(t) for t in [shape, 2, 2, shape])
    module = build_module(_loss, [x, s, bias, w])
    add_gradient(module, "f", [0], "ones")
    check_vjp(
        module, [x, s, bias, w], func="f_grad", wrt=[0], rng=RNG, atol=1e-4, rtol=2e-3,
        compiled=True, pipeline="default",
    )
