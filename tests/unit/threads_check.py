"""Compiled-vs-reference checks at 1 and 2 threads.

``compile_threaded`` compiles with every loop nest the schedule can split
made parallel (the cost of a region, and the small-copy and panel-row
thresholds, lowered to nothing), so the tiny shapes of the op tests run the
parallel code; ``call_threaded`` calls at 2 threads and at 1 and asserts
that both are bitwise equal before the caller compares them with the
reference."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import graphopt
from graphopt.lowering import parallel_split


def compile_threaded(module, **kwargs):
    names = ("FORK_JOIN_SECONDS", "CROSS_CORE_BYTES_PER_SECOND", "MIN_PARALLEL_COPY_ELEMENTS", "MIN_PARALLEL_PANEL_MK")
    saved = {n: getattr(parallel_split, n) for n in names}
    # A region costs nothing and moving data is free: every split pays.
    parallel_split.FORK_JOIN_SECONDS, parallel_split.CROSS_CORE_BYTES_PER_SECOND = 0.0, float("inf")
    parallel_split.MIN_PARALLEL_COPY_ELEMENTS = parallel_split.MIN_PARALLEL_PANEL_MK = 0
    try:
        return graphopt.compile(module, **kwargs)
    finally:
        for n, v in saved.items():
            setattr(parallel_split, n, v)


def call_threaded(compiled, inputs: Sequence[np.ndarray], entry: str = "f") -> list[np.ndarray]:
    """The outputs at 1 thread, after checking they equal those at 2 bit for bit."""
    results = []
    for n in (2, 1):
        compiled.num_threads = n
        out = compiled[entry](*inputs)
        results.append(list(out) if isinstance(out, tuple) else [out])
    for two, one in zip(*results):
        assert two.dtype == one.dtype and two.shape == one.shape
        np.testing.assert_array_equal(two.reshape(-1).view(np.uint8), one.reshape(-1).view(np.uint8))
    return results[1]
