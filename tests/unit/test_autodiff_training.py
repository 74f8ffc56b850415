"""Compiled training steps: forward + backward + SGD in one function."""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from graphopt.transforms.autodiff import GradientError, add_training_step

# The normal pipeline (fold, simplify, fuse, clean up, plan memory), then lowering.
PIPELINE = "default"
N, D, H, C = 16, 4, 8, 3


def mlp_loss_module(dtype) -> object:
    """Mean softmax cross-entropy of a 2-layer tanh MLP."""
    b = GraphBuilder("loss")
    x = b.input((N, D), dtype, name="x")
    y = b.input((N, C), dtype, name="y")
    w1 = b.input((D, H), dtype, name="w1")
    b1 = b.input((H,), dtype, name="b1")
    w2 = b.input((H, C), dtype, name="w2")
    b2 = b.input((C,), dtype, name="b2")
    h = b.tanh(b.add(b.matmul(x, w1), b1))
    p = b.softmax(b.add(b.matmul(h, w2), b2), -1)
    nll = b.reduce_sum(b.mul(y, b.log(p)), [-1])
    return b.build(b.neg(b.reduce_mean(nll)))


def numpy_step(x, y, params, lr):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    z = z - z.max(-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    loss = -np.mean(np.sum(y * np.log(p), -1))
    dz = (p - y) / len(x)
    dw2, db2 = h.T @ dz, dz.sum(0)
    dpre = (dz @ w2.T) * (1 - h * h)
    dw1, db1 = x.T @ dpre, dpre.sum(0)
    grads = (dw1, db1, dw2, db2)
    return loss, [p_ - lr * g for p_, g in zip(params, grads)]


def data(dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((N, D))
    labels = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5).astype(int)
    y = np.eye(C)[labels]
    params = [rng.standard_normal((D, H)) * 0.5, np.zeros(H), rng.standard_normal((H, C)) * 0.5, np.zeros(C)]
    cast = lambda a: np.asarray(a, dtype)  # noqa: E731
    return cast(x), cast(y), [cast(p) for p in params]


def test_training_step_is_one_compiled_function_and_learns() -> None:
    module = mlp_loss_module(np.float32)
    step = add_training_step(module, "loss", ["w1", "b1", "w2", "b2"], lr=0.5)
    assert step.sym_name.data == "loss_train"
    cm = graphopt.compile(module, pipeline=PIPELINE)
    x, y, params = data(np.float32)
    losses = []
    for _ in range(100):
        loss, *params = cm["loss_train"](x, y, *params)
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    assert all(b <= a + 1e-6 for a, b in zip(losses[:5], losses[1:6]))  # decreasing early on


def test_training_matches_numpy_in_float64() -> None:
    module = mlp_loss_module(np.float64)
    add_training_step(module, "loss", ["w1", "b1", "w2", "b2"], lr=0.3)
    cm = graphopt.compile(module, pipeline=PIPELINE)
    x, y, params = data(np.float64)
    ref = [p.copy() for p in params]
    for _ in range(10):
        loss, *params = cm["loss_train"](x, y, *params)
        ref_loss, ref = numpy_step(x, y, ref, 0.3)
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-6)
    for got, want in zip(params, ref):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)


def test_training_step_via_the_pass_option() -> None:
    from graphopt.runtime.compile import run_pipeline

    module = mlp_loss_module(np.float64)
    run_pipeline(module, "autodiff{func=loss wrt=w1,b1,w2,b2 train=true lr=0.3}")
    x, y, params = data(np.float64)
    loss, *new = interpret(module, x, y, *params, entry="loss_train")
    ref_loss, ref = numpy_step(x, y, params, 0.3)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-9)
    for got, want in zip(new, ref):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_training_step_needs_a_scalar_loss() -> None:
    b = GraphBuilder("f")
    x = b.input((3,), np.float32, name="x")
    module = b.build(b.exp(x))
    with pytest.raises(GradientError, match="one float loss with one element"):
        add_training_step(module, "f")


def test_small_cnn_training_step() -> None:
    """conv -> relu -> global pool -> dense -> log_softmax cross-entropy."""
    n, c, k = 8, 2, 3
    b = GraphBuilder("loss")
    x = b.input((n, 1, 6, 6), np.float32, name="x")
    y = b.input((n, c), np.float32, name="y")
    w = b.input((4, 1, 3, 3), np.float32, name="w")
    v = b.input((4, c), np.float32, name="v")
    h = b.relu(b.conv2d(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1))
    feats = b.reshape(b.global_avg_pool(h), (n, 4))
    logp = b.log_softmax(b.matmul(feats, v), -1)
    module = b.build(b.neg(b.reduce_mean(b.reduce_sum(b.mul(y, logp), [-1]))))
    add_training_step(module, "loss", ["w", "v"], lr=1.0)
    cm = graphopt.compile(module, pipeline=PIPELINE)

    rng = np.random.default_rng(k)
    labels = np.arange(n) % c
    xs = rng.standard_normal((n, 1, 6, 6)).astype(np.float32)
    xs[labels == 1, :, :3] += 2.0  # class 1: a bright top half
    ys = np.eye(c, dtype=np.float32)[labels]
    params = [rng.standard_normal((4, 1, 3, 3)).astype(np.float32) * 0.5,
              rng.standard_normal((4, c)).astype(np.float32) * 0.5]
    losses = []
    for _ in range(100):
        loss, *params = cm["loss_train"](xs, ys, *params)
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
