"""Train a small CNN with one compiled SGD step per iteration.

    python examples/train_cnn.py [--steps 100] [--seed 0] [--lr 0.05]

16 images of 1x12x12 -> conv2d 3x3 (4 filters, pad 1) + bias -> relu ->
max_pool2d 2x2 -> flatten -> matmul + bias -> 4 classes, mean softmax
cross-entropy (log_softmax, times the one-hot labels, summed).  The training
step ``@cnn_train`` (forward, backward, ``p - lr*g``) is one compiled function.

Labels are the argmax of a fixed random linear teacher over the pixels, so
the rule is learnable.  Exits non-zero when the loss does not halve.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from graphopt.frontends.builder import GraphBuilder
from graphopt.transforms.autodiff import add_training_step

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sgd_training.py sits beside this script
import sgd_training  # noqa: E402

N, S, F, C = 16, 12, 4, 4  # batch, image side, conv filters, classes
LR = 0.05
PARAMS = ("w", "bc", "v", "bv")


def build_module(dtype=np.float32, lr: float = LR, dims=(N, S, F, C)):
    """``@cnn(x, y, w, bc, v, bv) -> loss`` plus its training step ``@cnn_train``."""
    n, s, f, c = dims
    b = GraphBuilder("cnn")
    x = b.input((n, 1, s, s), dtype, name="x")
    y = b.input((n, c), dtype, name="y")  # one-hot labels
    w = b.input((f, 1, 3, 3), dtype, name="w")
    bc = b.input((f, 1, 1), dtype, name="bc")  # per-channel bias, broadcast over H, W
    v = b.input((f * (s // 2) ** 2, c), dtype, name="v")
    bv = b.input((c,), dtype, name="bv")
    conv = b.add(b.conv2d(x, w, (1, 1), (1, 1, 1, 1)), bc)
    pooled = b.max_pool2d(b.relu(conv), (2, 2), (2, 2))
    logits = b.add(b.matmul(b.flatten(pooled, 1), v), bv)
    logp = b.log_softmax(logits, -1)
    nll = b.neg(b.reduce_sum(b.mul(y, logp), [-1]))
    module = b.build(b.reduce_mean(nll))
    add_training_step(module, "cnn", list(PARAMS), lr=lr)
    return module


def make_data(seed: int = 0, dtype=np.float32, dims=(N, S, F, C)):
    """Images, one-hot labels from a random linear teacher, initial parameters."""
    n, s, f, c = dims
    flat = f * (s // 2) ** 2
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 1, s, s))
    teacher = rng.standard_normal((s * s, c))
    y = np.eye(c)[np.argmax(x.reshape(n, -1) @ teacher, axis=1)]
    params = [
        rng.standard_normal((f, 1, 3, 3)) * np.sqrt(2.0 / 9),
        np.zeros((f, 1, 1)),
        rng.standard_normal((flat, c)) * np.sqrt(1.0 / flat),
        np.zeros(c),
    ]
    cast = lambda a: np.ascontiguousarray(a, dtype=dtype)  # noqa: E731
    return cast(x), cast(y), [cast(p) for p in params]


EXAMPLE = sgd_training.Example(__doc__, "cnn_train", build_module, make_data, LR)
train, main = EXAMPLE.train, EXAMPLE.main


if __name__ == "__main__":
    sys.exit(main())
