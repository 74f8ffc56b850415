"""What the per-op tests share: seeded random inputs, a one-function module
built from a builder callback, and "the compiled code matches the numpy
reference" (at 1 and 2 threads), so that each op test file states only its
cases and its tolerances."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from threads_check import call_threaded, compile_threaded

#: ``build(b, args)``: the outputs (one value or a tuple) of a function of ``args``.
Build = Callable[[GraphBuilder, list], object]


class RandomArrays:
    """``rand(shape, dtype)``: N(0,1) floats, fair booleans, integers in
    [-9, 9), all drawn from one generator seeded once per test module."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, shape: Sequence[int], dtype=np.float32) -> np.ndarray:
        dtype = np.dtype(dtype)
        if dtype.kind == "f":
            return self.rng.standard_normal(shape).astype(dtype)
        if dtype.kind == "b":
            return self.rng.integers(0, 2, size=shape).astype(bool)
        return self.rng.integers(-9, 9, size=shape).astype(dtype)


def build_module(build: Build, inputs: Sequence[np.ndarray]) -> ModuleOp:
    """``@f`` over arguments shaped and typed like ``inputs``."""
    b = GraphBuilder("f")
    args = [b.input(a.shape, a.dtype) for a in inputs]
    out = build(b, args)
    outs = out if isinstance(out, tuple) else (out,)
    return b.build(*outs)


def assert_matches(got: np.ndarray, want, rtol: float, atol: float, exact: bool = False) -> None:
    """Same shape and dtype; floats to ``rtol``/``atol`` unless ``exact``,
    everything else bit for bit."""
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind == "f" and not exact:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got, want)


def compiled_matches_reference(
    build: Build,
    inputs: Sequence[np.ndarray],
    rtol: float = 1e-5,
    atol: float = 1e-6,
    exact: bool = False,
    opt_level: int | None = None,
) -> list[np.ndarray]:
    """Compile ``build`` over ``inputs``, call it at 2 threads and at 1, and
    compare with the reference interpreter; returns the reference outputs."""
    module = build_module(build, inputs)
    want = interpret(module, *inputs)
    got = call_threaded(compile_threaded(module, opt_level=opt_level), inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_matches(g, w, rtol, atol, exact)
    return want
