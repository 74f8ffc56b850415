"""Run-time boundary reliability (issue 15, items 3 and 10)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret


def _bool_module():
    b = GraphBuilder("f")
    c, x, y = b.input((2, 4), np.bool_), b.input((2, 4), np.float32), b.input((2, 4), np.float32)
    return b.build(b.where(c, x, y), b.cast(c, np.float32), b.cast(c, np.int64), b.cast(c, np.bool_))


@pytest.mark.parametrize("level", [0, 2])
def test_bool_inputs_with_bytes_other_than_0_and_1(level) -> None:
    """numpy reads any nonzero byte as True; the compiled code must too."""
    raw = bytes([0, 1, 2, 3, 4, 254, 255, 128])
    c = np.frombuffer(raw, dtype=np.bool_).reshape(2, 4)
    views = [c, np.frombuffer(raw, np.uint8).view(np.bool_).reshape(2, 4), c[:, ::-1]]
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    module = _bool_module()
    fn = graphopt.compile(module, opt_level=level)["f"]
    for cond in views:
        want = interpret(module, cond, x, -x)
        got = fn(cond, x, -x)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    assert np.frombuffer(raw, np.uint8)[2] == 2  # the caller's buffer is left alone


def _rss_kib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_compiles_do_not_grow_native_memory() -> None:
    """200 optimised compiles: RSS stays bounded.  The LLVM pipeline run
    leaked ~70 KiB per compile of this module (300-500 KiB for the examples)
    before it moved out of long-running processes (runtime/llvm_optimizer)."""
    import ctypes
    import gc

    from graphopt.runtime.jit import compile_llvm_ir

    b = GraphBuilder("f")
    x = b.input((64,), np.float32)
    ir = graphopt.compile(b.build(b.tanh(b.exp(x)))).llvm_ir
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)

    def settle() -> float:
        gc.collect()
        if trim is not None:
            trim(0)
        return _rss_kib()

    for _ in range(20):  # past the in-process runs, the worker started
        compile_llvm_ir(ir, 3)
    before = settle()
    for _ in range(200):
        jm = compile_llvm_ir(ir, 3)
    assert jm.function_address("f")
    grown = settle() - before
    assert grown < 4096, f"RSS grew by {grown:.0f} KiB over 200 compiles"


def test_one_math_function_at_two_float_types() -> None:
    """sqrt/cos/pow/maximum of f32 and of f64 in one module: each LLVM
    intrinsic is declared per type (llvm.sqrt.f32, llvm.sqrt.f64), not once
    under an unmangled name that the second type then contradicts.  (Found by
    the differential suite.)"""
    b = GraphBuilder("f")
    x, y = b.input((2, 9), np.float32), b.input((2, 9), np.float64)
    outs = []
    for v in (x, y):
        s = b.sqrt(b.abs(v))
        outs.append(b.maximum(b.pow(b.cos(s), s), b.rsqrt(b.add(s, b.exp(v)))))
    module = b.build(*outs)
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((2, 9)).astype(np.float32), rng.standard_normal((2, 9))]
    want = interpret(module, *xs)
    for level in (0, 2):
        got = graphopt.compile(module, opt_level=level)["f"](*xs)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5)
