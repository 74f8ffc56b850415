"""Train a 2-layer MLP with one compiled SGD step per iteration.

    python examples/train_mlp.py [--steps 100] [--seed 0] [--lr 0.2]

The loss (mean softmax cross-entropy, written with graph ops) is built with
``GraphBuilder``; ``add_training_step`` adds ``@mlp_train``: forward, backward
and ``p - lr*g`` in one function returning the loss and the new parameters.
``graphopt.compile(..., opt_level=2)`` turns it into one native function.

Data: 64 samples of 32 N(0,1) features; the labels are the argmax of a fixed
random linear teacher, so the rule is learnable.  The script exits non-zero
when the loss does not drop by at least half.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.transforms.autodiff import add_training_step

N, D, H, C = 64, 32, 64, 10  # samples, features, hidden units, classes
LR = 0.2
PARAMS = ("w1", "b1", "w2", "b2")


def build_module(dtype=np.float32, lr: float = LR, dims=(N, D, H, C)):
    """``@mlp(x, y, w1, b1, w2, b2) -> loss`` plus its training step ``@mlp_train``."""
    n, d, h, c = dims
    b = GraphBuilder("mlp")
    x = b.input((n, d), dtype, name="x")
    y = b.input((n, c), dtype, name="y")  # one-hot labels
    w1 = b.input((d, h), dtype, name="w1")
    b1 = b.input((h,), dtype, name="b1")
    w2 = b.input((h, c), dtype, name="w2")
    b2 = b.input((c,), dtype, name="b2")
    hidden = b.relu(b.add(b.matmul(x, w1), b1))
    logp = b.log_softmax(b.add(b.matmul(hidden, w2), b2), -1)
    nll = b.neg(b.reduce_sum(b.mul(y, logp), [-1]))
    module = b.build(b.reduce_mean(nll))
    add_training_step(module, "mlp", list(PARAMS), lr=lr)
    return module


def make_data(seed: int = 0, dtype=np.float32, dims=(N, D, H, C)):
    """Inputs, one-hot labels from a random linear teacher, initial parameters."""
    n, d, h, c = dims
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    teacher = rng.standard_normal((d, c))
    y = np.eye(c)[np.argmax(x @ teacher, axis=1)]
    params = [
        rng.standard_normal((d, h)) * np.sqrt(2.0 / d),  # He init for the relu layer
        np.zeros(h),
        rng.standard_normal((h, c)) * np.sqrt(1.0 / h),
        np.zeros(c),
    ]
    cast = lambda a: np.ascontiguousarray(a, dtype=dtype)  # noqa: E731
    return cast(x), cast(y), [cast(p) for p in params]


def train(steps: int = 100, seed: int = 0, dtype=np.float32, lr: float = LR,
          opt_level: int = 2, log=None):
    """Run ``steps`` compiled SGD steps; return (losses, final parameters)."""
    step = graphopt.compile(build_module(dtype, lr=lr), opt_level=opt_level)["mlp_train"]
    x, y, params = make_data(seed, dtype)
    losses = []
    for i in range(steps):
        loss, *params = step(x, y, *params)
        losses.append(float(loss))
        if log is not None and (i % 10 == 0 or i == steps - 1):
            log(f"step {i:4d}  loss {losses[-1]:.4f}")
    return losses, params


def summary(losses: list[float]) -> tuple[str, bool]:
    """The final line, and whether the loss dropped by at least half."""
    first, last = losses[0], losses[-1]
    change = 100.0 * (last - first) / first
    return f"loss: {first:.4f} -> {last:.4f} ({change:+.1f}%)", last <= 0.5 * first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=LR)
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    start = time.perf_counter()
    losses, _ = train(args.steps, args.seed, lr=args.lr, log=print)
    line, ok = summary(losses)
    print(line)
    print(f"({time.perf_counter() - start:.1f} s including compilation)")
    if not ok:
        print("error: the loss did not drop by at least 50%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
