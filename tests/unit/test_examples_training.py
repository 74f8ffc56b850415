"""The training examples: they learn, and the MLP step matches numpy exactly.

``examples/train_mlp.py`` and ``examples/train_cnn.py`` are scripts, not a
package, so they are loaded from their files.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name: str):
    module_name = f"_example_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["train_mlp", "train_cnn"])
def test_example_halves_the_loss_within_100_steps(name: str, capsys) -> None:
    # 40 steps are enough for both (the scripts default to 100).
    assert load_example(name).main(["--steps", "40"]) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-2]
    assert last.startswith("loss: ") and "%)" in last
    first, final = (float(t) for t in last.split()[1:4:2])
    assert final <= 0.5 * first


@pytest.mark.parametrize("name", ["train_mlp", "train_cnn"])
def test_example_fails_when_the_loss_does_not_drop(name: str, capsys) -> None:
    # lr=0: the parameters never move, so the loss stays put and the script says so.
    assert load_example(name).main(["--steps", "2", "--lr", "0"]) == 1
    assert "did not drop by at least 50%" in capsys.readouterr().err


def numpy_mlp_step(x, y, params, lr):
    """Relu MLP, log_softmax cross-entropy, SGD: forward and backward by hand."""
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0.0)
    z = h @ w2 + b2
    shifted = z - z.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -np.mean(np.sum(y * logp, axis=1))
    # d loss / d z = (softmax(z) * sum(y) - y) / n; each row of y sums to 1.
    dz = (np.exp(logp) * y.sum(axis=1, keepdims=True) - y) / len(x)
    dw2, db2 = h.T @ dz, dz.sum(axis=0)
    dpre = (dz @ w2.T) * (pre > 0)
    dw1, db1 = x.T @ dpre, dpre.sum(axis=0)
    grads = (dw1, db1, dw2, db2)
    return loss, [p - lr * g for p, g in zip(params, grads)]


def test_mlp_matches_numpy_reference_after_10_steps_in_float64() -> None:
    mlp = load_example("train_mlp")
    lr = 0.2
    losses, params = mlp.train(10, seed=0, dtype=np.float64, lr=lr)
    assert all(p.dtype == np.float64 for p in params)

    x, y, ref = mlp.make_data(0, np.float64)
    ref_losses = []
    for _ in range(10):
        loss, ref = numpy_mlp_step(x, y, ref, lr)
        ref_losses.append(loss)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-6)
    for name, got, want in zip(mlp.PARAMS, params, ref):
        assert got.shape == want.shape, name
        scale = np.max(np.abs(want))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * scale, err_msg=name)
    # The parameters really moved, so the comparison is not trivial.
    _, _, init = mlp.make_data(0, np.float64)
    assert all(np.max(np.abs(p - q)) > 1e-3 for p, q in zip(ref, init))


def test_mlp_loss_example_training_step_matches_numpy() -> None:
    """examples/mlp_loss.mlir through the ``autodiff{train=true}`` pass, compiled at -O2."""
    import graphopt
    from graphopt.runtime.compile import parse_file, run_pipeline

    module = parse_file(EXAMPLES / "mlp_loss.mlir")
    run_pipeline(module, "autodiff{func=mlp wrt=w1,b1,w2,b2 train=true lr=0.5}")
    step = graphopt.compile(module, opt_level=2)["mlp_train"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = np.eye(2, dtype=np.float32)[[0, 1, 1, 0]]
    params = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (4,), (4, 2), (2,))]
    loss, *new = step(x, y, *params)
    ref_loss, ref = numpy_mlp_step(x, y, params, np.float32(0.5))
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    for got, want in zip(new, ref):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
