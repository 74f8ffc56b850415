"""The f32 polynomial expansions of ``expand-math``, compiled, measured in ulps
against float64 results rounded to f32 on a dense sweep.

The sweep: every 4096-th f32 bit pattern (all exponents, both signs,
denormals, infs, NaNs), dense grids over the branch points and the
overflow/underflow edges, and the f32 neighbours of each edge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.expand_math import MAX_ULP, gelu_ulp_bound

F32 = np.float32
TINY = float(np.finfo(F32).smallest_subnormal)
BIG = float(np.finfo(F32).max)


def neighbours(points: list[float], n: int = 64) -> np.ndarray:
    """The ``n`` f32 values on each side of every point."""
    out = []
    for p in points:
        bits = np.array([p], F32).view(np.int32)[0]
        out.append((bits + np.arange(-n, n + 1, dtype=np.int64)).astype(np.int32).view(F32))
    return np.concatenate(out)


def sweep(edges: list[float], grids: list[tuple[float, float]]) -> np.ndarray:
    patterns = (np.arange(0, 1 << 32, 4096, dtype=np.int64) + 1).astype(np.uint32).view(F32)
    specials = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, BIG, -BIG, 1.0, -1.0], F32
    )
    parts = [patterns, specials, neighbours([TINY, float(np.finfo(F32).tiny), *edges])]
    parts += [np.linspace(lo, hi, 200_001, dtype=np.float64).astype(F32) for lo, hi in grids]
    return np.concatenate(parts)


def ordered(x: np.ndarray) -> np.ndarray:
    """f32 bit patterns mapped to integers that count ulps across zero."""
    i = x.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def ulp_error(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Ulps between ``got`` and ``want``; NaN against NaN is 0, NaN against a
    number is huge."""
    both_nan = np.isnan(got) & np.isnan(want)
    one_nan = np.isnan(got) ^ np.isnan(want)
    err = np.abs(ordered(got) - ordered(want))
    return np.where(both_nan, 0, np.where(one_nan, 1 << 40, err))


def compiled(build, n: int):
    b = GraphBuilder("f")
    x = b.input((n,), np.float32)
    return graphopt.compile(b.build(build(b, x)))["f"]


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _gelu(x: np.ndarray) -> np.ndarray:
    """``0.5 x (1 + erf(x / sqrt 2))`` written with erfc, which does not cancel."""
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


CASES = {
    # name: (builder, float64 reference, edges, grids)
    "exp": (lambda b, x: b.exp(x), np.exp,
            [88.72283935546875, -87.33654022216797, -103.97207641601562, 0.34657359],
            [(-105.0, -85.0), (85.0, 90.0), (-1.0, 1.0)]),
    "log": (lambda b, x: b.log(x), np.log,
            [1.0, math.sqrt(0.5), math.sqrt(2.0), 2.0, 0.5],
            [(0.5, 2.0), (0.999, 1.001), (0.0, 1e-3)]),
    "tanh": (lambda b, x: b.tanh(x), np.tanh,
             [1.0, -1.0, 9.0, -9.0], [(-1.2, 1.2), (-10.0, 10.0)]),
    "erf": (lambda b, x: b.erf(x), _erf,
            [1.0, -1.0, 4.0, 3.92, -3.92], [(-1.2, 1.2), (-5.0, 5.0)]),
    "sigmoid": (lambda b, x: b.sigmoid(x), lambda v: 1.0 / (1.0 + np.exp(-v)),
                [0.0, 88.7, -88.7, 103.9], [(-20.0, 20.0), (-110.0, -80.0)]),
    "gelu": (lambda b, x: b.gelu(x), _gelu, [0.0, 1.414, -1.414, 5.66, -13.0],
             [(-3.0, 10.0), (-14.5, -3.0)]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_max_ulp_error(name: str) -> None:
    build, reference, edges, grids = CASES[name]
    x = sweep(edges, grids)
    with np.errstate(all="ignore"):
        want = reference(x.astype(np.float64)).astype(F32)
    got = compiled(build, x.size)(x)
    err = ulp_error(got, want)
    if name == "gelu":
        finite = np.where(np.isfinite(x), x, 0.0)
        bound = np.vectorize(gelu_ulp_bound, otypes=[np.float64])(finite)
    else:
        bound = np.full(x.shape, MAX_ULP[name])
    bad = err > np.where(np.isnan(x), 0, bound)
    i = int(np.argmax(err - bound))
    assert not bad.any(), (
        f"{name}: {int(err[i])} ulp at x={x[i]!r}: got {got[i]!r}, want {want[i]!r}"
    )


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid", "gelu"])
def test_expanded_loops_vectorise_without_calls(name: str) -> None:
    """The optimised LLVM IR has vector code and no libm call left."""
    build = CASES[name][0]
    b = GraphBuilder("f")
    x = b.input((1024,), np.float32)
    ir = graphopt.compile(b.build(build(b, x))).optimized_llvm_ir
    calls = {line.split("@")[1].split("(")[0] for line in ir.splitlines() if " call " in line}
    kernels = {line.split("@")[1].split("(")[0] for line in ir.splitlines() if line.startswith("define ")}
    assert all(c.startswith("llvm.") for c in calls - kernels), calls
    assert "x float>" in ir


def test_f64_keeps_libm() -> None:
    b = GraphBuilder("f")
    x = b.input((64,), np.float64)
    fn = graphopt.compile(b.build(b.tanh(b.exp(x))))
    assert "@tanh(" in fn.optimized_llvm_ir
    a = np.linspace(-3, 3, 64)
    np.testing.assert_allclose(fn["f"](a), np.tanh(np.exp(a)), rtol=1e-15)


def _exp_loop(n: int, nonpositive: bool):
    """A loop-level ``o[i] = exp(a[i])`` over ``n`` f32, its exp expanded by
    ``emit_exp_nonpositive`` when ``nonpositive`` (else by expand-math)."""
    from xdsl.context import Context
    from xdsl.dialects import arith, builtin, func, memref, scf
    from xdsl.dialects import math as mathd
    from xdsl.parser import Parser
    from xdsl.rewriter import InsertPoint, Rewriter

    from graphopt.dialects.loop import Loop
    from graphopt.lowering.expand_math import emit_exp_nonpositive
    from graphopt.runtime.executable import compile_loop_module

    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, scf.Scf, mathd.Math, Loop):
        ctx.load_dialect(d)
    abi = f'#loop.abi<inputs = ["a" : tensor<{n}xf32>], outputs = ["o" : tensor<{n}xf32>], workspace = 0>'
    module = Parser(ctx, f"""builtin.module {{
  func.func @main(%a: memref<{n}xf32>, %o: memref<{n}xf32>, %ws: memref<0xi8>) attributes {{loop.abi = {abi}}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cn = arith.constant {n} : index
    scf.for %i = %c0 to %cn step %c1 {{
      %x = memref.load %a[%i] : memref<{n}xf32>
      %y = math.exp %x : f32
      memref.store %y, %o[%i] : memref<{n}xf32>
    }}
    func.return
  }}
}}""").parse_module()
    if nonpositive:
        (exp,) = [op for op in module.walk() if isinstance(op, mathd.ExpOp)]

        def place(op):
            Rewriter.insert_op(op, InsertPoint.before(exp))
            return op

        Rewriter.replace_op(exp, [], [emit_exp_nonpositive(place, exp.operand)])
    return compile_loop_module(module).main


def test_exp_of_nonpositive_is_bitwise_the_expansion() -> None:
    """Softmax's ``exp(x - max)`` (``x <= 0`` or NaN) equals expand-math's exp
    bit for bit: every 61st pattern from -0 to -inf, the neighbours of the
    scaling edges, 0 and NaN."""
    patterns = np.arange(0x80000000, 0xFF800001, 61, dtype=np.int64).astype(np.uint32).view(F32)
    edges = neighbours([-87.33654022216797, -103.97207641601562, -104.0, -0.34657359], 256)
    x = np.concatenate([patterns, edges[edges <= 0], np.array([0.0, -0.0, -np.inf, np.nan], F32)])
    want = _exp_loop(x.size, nonpositive=False)(x)
    got = _exp_loop(x.size, nonpositive=True)(x)
    np.testing.assert_array_equal(got.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert np.isnan(got[np.isnan(want)]).all()
