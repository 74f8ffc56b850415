"""Streamed elementwise kernels (``lowering/stream_prefetch.py``): arrays of
4 MB and more run in chunks of one line with a prefetch of each large input
and a write prefetch of the output ahead; the results equal numpy's, bounds-checked (every prefetch inside its
array) and at 1 and 2 threads."""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt.dialects.loop import PrefetchOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import run_pipeline

RNG = np.random.default_rng(5)


@pytest.mark.parametrize(
    "shape,dtype,streamed",
    [
        ((1024, 1024), np.float32, 1),  # 4 MB: the input streams, the row does not
        ((8, 128, 1024), np.float64, 1),  # 8 MB, rank 3: the outer indices linearised
        ((512, 1024), np.int64, 1),  # 4 MB of integers, 8 a line
        ((1024, 1000), np.float32, 0),  # rows not a whole number of lines
        ((512, 1024), np.float32, 0),  # 2 MB: not streamed
    ],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_streamed_kernel_matches_numpy(shape, dtype, streamed, threads) -> None:
    x = (RNG.standard_normal(shape) * 50).astype(dtype)
    row = (RNG.standard_normal(shape[-1:]) * 50).astype(dtype)
    b = GraphBuilder("f")
    xi, ri = b.input(shape, dtype), b.input(row.shape, dtype)
    m = b.build(b.maximum(b.sub(xi, ri), xi))
    lowered = m.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    prefetches = [op for op in lowered.walk() if isinstance(op, PrefetchOp)]
    assert sum(op.write is None for op in prefetches) == streamed  # the input x
    assert sum(op.write is not None for op in prefetches) == streamed  # the output
    with np.errstate(over="ignore"):
        want = np.maximum(x - row, x)
    got = graphopt.compile(m, opt_level=2, num_threads=threads, bounds_check=True)["f"](x, row)
    np.testing.assert_array_equal(got, want)
