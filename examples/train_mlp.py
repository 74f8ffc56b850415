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

import sys
from pathlib import Path

import numpy as np

from graphopt.frontends.builder import GraphBuilder
from graphopt.transforms.autodiff import add_training_step

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sgd_training.py sits beside this script
import sgd_training  # noqa: E402

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


EXAMPLE = sgd_training.Example(__doc__, "mlp_train", build_module, make_data, LR)
train, main = EXAMPLE.train, EXAMPLE.main


if __name__ == "__main__":
    sys.exit(main())
