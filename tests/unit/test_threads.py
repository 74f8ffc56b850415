"""Parallel loops: thread-count handling, bitwise equality across thread
counts, and concurrent calls from several Python threads."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.executable import default_num_threads
from threads_check import call_threaded, compile_threaded

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def random_inputs(fn, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for spec in fn.inputs:
        if spec.dtype.kind == "f":
            out.append(rng.standard_normal(spec.shape).astype(spec.dtype))
        elif spec.dtype == np.bool_:
            out.append(rng.integers(0, 2, spec.shape).astype(np.bool_))
        else:
            out.append(rng.integers(0, 4, spec.shape).astype(spec.dtype))
    return out


def big_model():
    """An elementwise kernel, a row softmax and a GEMM, each big enough to
    run in parallel at the default threshold."""
    b = GraphBuilder("f")
    x = b.input((256, 256), np.float32)
    w = b.input((256, 256), np.float32)
    y = b.softmax(b.tanh(b.matmul(x, w)), axis=-1)
    return b.build(y)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_bad_thread_counts_are_one_argument_error(bad) -> None:
    with pytest.raises(graphopt.ArgumentError, match="num_threads must be an integer >= 1"):
        graphopt.compile(big_model(), num_threads=bad)


def test_default_is_the_cores_available() -> None:
    cm = graphopt.compile(big_model())
    assert cm.num_threads == default_num_threads() == len(os.sched_getaffinity(0))
    with pytest.raises(graphopt.ArgumentError):
        cm.num_threads = 0
    assert "GOMP_parallel" in cm.llvm_ir


@pytest.mark.parametrize(
    "name", ["mlp.mlir", "cnn.mlir", "resnet_block.mlir", "transformer_block.mlir", "elementwise.mlir"]
)
def test_examples_bitwise_equal_at_1_and_2_threads(name: str) -> None:
    cm = compile_threaded(EXAMPLES / name)
    assert "GOMP_parallel" in cm.llvm_ir
    for entry, fn in cm.functions.items():
        call_threaded(cm, random_inputs(fn), entry)


def test_big_kernels_match_numpy_at_1_and_2_threads() -> None:
    cm = graphopt.compile(big_model(), num_threads=2)
    x, w = random_inputs(cm.f)
    got = call_threaded(cm, [x, w])[0]
    z = np.tanh(x.astype(np.float64) @ w)
    want = np.exp(z - z.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("m, k, n", [(300, 64, 96), (1000, 200, 64), (49, 300, 512), (2000, 600, 48)])
def test_gemm_panels_in_parallel(m: int, k: int, n: int) -> None:
    """Row blocks (many rows) or column panels (few rows) are split."""
    b = GraphBuilder("f")
    y = b.relu(b.matmul(b.input((m, k), np.float32), b.input((k, n), np.float32)))
    cm = graphopt.compile(b.build(y))
    x, w = random_inputs(cm.f, seed=m)
    got = call_threaded(cm, [x, w])[0]
    np.testing.assert_allclose(got, np.maximum(x.astype(np.float64) @ w, 0), rtol=1e-4, atol=1e-4)


def test_concurrent_calls_from_python_threads() -> None:
    """Each Python thread runs its own libgomp team and its own workspace."""
    cm = graphopt.compile(big_model(), num_threads=2)
    inputs = [random_inputs(cm.f, seed=s) for s in range(4)]
    cm.num_threads = 1
    want = [cm.f(*i) for i in inputs]
    cm.num_threads = 2
    errors: list[str] = []

    def worker(t: int) -> None:
        for r in range(20):
            s = (t + r) % len(inputs)
            if not np.array_equal(cm.f(*inputs[s]), want[s]):
                errors.append(f"thread {t}, call {r}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_two_modules_keep_their_own_thread_count() -> None:
    one = graphopt.compile(big_model(), num_threads=1)
    two = graphopt.compile(big_model(), num_threads=2)
    assert (one.num_threads, two.num_threads) == (1, 2)
    x, w = random_inputs(one.f)
    assert np.array_equal(one.f(x, w), two.f(x, w))
