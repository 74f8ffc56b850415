"""The part the training examples share: run a compiled SGD step for a
number of steps, judge the loss curve, and the command line around it.

``train_mlp.py`` and ``train_cnn.py`` each define their model
(``build_module``) and data (``make_data``) and make an :class:`Example`
of them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import graphopt


@dataclass(frozen=True)
class Example:
    """One training example: its model, its data and the name of its
    compiled step; ``train`` and ``main`` are what the script offers."""

    doc: str
    entry: str  # the training step ``add_training_step`` adds: (x, y, *params) -> (loss, *params)
    build_module: Callable[..., ModuleOp]  # (dtype, lr=) -> module
    make_data: Callable[..., tuple[np.ndarray, np.ndarray, list[np.ndarray]]]  # (seed, dtype) -> x, y, params
    lr: float

    def train(self, steps: int = 100, seed: int = 0, dtype=np.float32, lr: float | None = None,
              opt_level: int = 2, log=None) -> tuple[list[float], list[np.ndarray]]:
        """Run ``steps`` compiled SGD steps; return (losses, final parameters)."""
        lr = self.lr if lr is None else lr
        step = graphopt.compile(self.build_module(dtype, lr=lr), opt_level=opt_level)[self.entry]
        x, y, params = self.make_data(seed, dtype)
        losses = []
        for i in range(steps):
            loss, *params = step(x, y, *params)
            losses.append(float(loss))
            if log is not None and (i % 10 == 0 or i == steps - 1):
                log(f"step {i:4d}  loss {losses[-1]:.4f}")
        return losses, params

    def main(self, argv: list[str] | None = None) -> int:
        """``--steps/--seed/--lr``; exits 1 when the loss does not halve."""
        parser = argparse.ArgumentParser(description=self.doc.splitlines()[0])
        parser.add_argument("--steps", type=int, default=100)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--lr", type=float, default=self.lr)
        args = parser.parse_args(argv)
        if args.steps < 1:
            parser.error("--steps must be at least 1")
        start = time.perf_counter()
        losses, _ = self.train(args.steps, args.seed, lr=args.lr, log=print)
        line, ok = summary(losses)
        print(line)
        print(f"({time.perf_counter() - start:.1f} s including compilation)")
        if not ok:
            print("error: the loss did not drop by at least 50%", file=sys.stderr)
            return 1
        return 0


def summary(losses: list[float]) -> tuple[str, bool]:
    """The final line, and whether the loss dropped by at least half."""
    first, last = losses[0], losses[-1]
    change = 100.0 * (last - first) / first
    return f"loss: {first:.4f} -> {last:.4f} ({change:+.1f}%)", last <= 0.5 * first
