"""The GEMM schedule (lowering/gemm.py): compiled matmuls against numpy, at
shapes with remainders in M, N and K, one row, batched, with and without a
constant (compile-time packed) B, with fused epilogues; the matrix-vector
form; and the decision.  Compiled for the default target (the host, or what
GRAPHOPT_TARGET_* say); test_gemm_targets.py builds the tiles of every ISA."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, vector

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.lowering.register_tile import GemmTile
from graphopt.runtime.compile import run_pipeline
from graphopt.target import Target

RNG = np.random.default_rng(12)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def check(got: np.ndarray, want: np.ndarray, k: int) -> None:
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * max(1, k) ** 0.5 * 4)


def uses_micro_kernel(module) -> bool:
    m = module.clone()
    run_pipeline(m, "O2")
    lower_graph_to_loop(m)
    return any(isinstance(op, vector.FMAOp) for op in m.walk())


# (M, K, N): full tiles, remainders in every dim, one row, N % 16 != 0,
# several cache blocks of rows plus a shorter last one (267 rows at K=512).
SHAPES = [(64, 64, 64), (37, 40, 70), (1, 256, 128), (9, 300, 47), (130, 17, 200), (8, 16, 1000), (16, 512, 33), (267, 512, 40)]


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_bias_relu_epilogue(m: int, k: int, n: int) -> None:
    b = GraphBuilder("f")
    x, w, c = b.input((m, k), name="x"), b.input((k, n), name="w"), b.input((n,), name="c")
    module = b.build(b.relu(b.add(b.matmul(x, w), c)))
    assert uses_micro_kernel(module)
    xs, ws, cs = rand(m, k), rand(k, n), rand(n)
    check(graphopt.compile(module, opt_level=2)["f"](xs, ws, cs), np.maximum(xs @ ws + cs, 0), k)


@pytest.mark.parametrize("m,k,n", [(37, 40, 70), (5, 256, 160), (24, 100, 96), (13, 200, 17)])
def test_constant_b_is_packed(m: int, k: int, n: int) -> None:
    ws, cs = rand(k, n), rand(m, n)
    b = GraphBuilder("f")
    x, r = b.input((m, k), name="x"), b.input((m, n), name="r")
    module = b.build(b.sub(b.matmul(x, b.constant(ws)), r))  # a residual-like epilogue
    assert uses_micro_kernel(module)
    lowered = module.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    nr = GemmTile.for_target(Target.default()).cols
    packed = [op for op in lowered.ops if getattr(op, "sym_name", None) and "packed" in op.sym_name.data]
    assert len(packed) == 1 and packed[0].type.get_shape() == (-(-n // nr), k, nr)
    xs = rand(m, k)
    check(graphopt.compile(module, opt_level=2)["f"](xs, cs), xs @ ws - cs, k)


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3, 20, 40), (40, 48)), ((3, 17, 64), (3, 64, 50)), ((2, 1, 9, 64), (4, 64, 64))])
def test_batched(a_shape, b_shape) -> None:
    b = GraphBuilder("f")
    x, w = b.input(a_shape, name="x"), b.input(b_shape, name="w")
    module = b.build(b.tanh(b.matmul(x, w)))
    assert uses_micro_kernel(module)
    xs, ws = rand(*a_shape), rand(*b_shape)
    check(graphopt.compile(module, opt_level=2)["f"](xs, ws), np.tanh(xs @ ws), a_shape[-1])


def test_epilogue_reading_other_indices_stays_correct() -> None:
    """``m + transpose(m)`` reads the matmul off the tile: never wrong."""
    b = GraphBuilder("f")
    x, w = b.input((48, 40), name="x"), b.input((40, 48), name="w")
    m = b.matmul(x, w)
    module = b.build(b.add(m, b.transpose(m)))
    xs, ws = rand(48, 40), rand(40, 48)
    mm = xs @ ws
    check(graphopt.compile(module, opt_level=2)["f"](xs, ws), mm + mm.T, 40)


# N = 3: narrower than a vector of any target with micro-kernels.
@pytest.mark.parametrize("m,k,n,dtype", [(8, 4, 4, np.float32), (4, 4, 64, np.float32), (64, 64, 3, np.float32), (64, 64, 64, np.float64)])
def test_small_or_other_shapes_keep_the_row_path(m: int, k: int, n: int, dtype) -> None:
    b = GraphBuilder("f")
    x, w = b.input((m, k), dtype, name="x"), b.input((k, n), dtype, name="w")
    module = b.build(b.matmul(x, w))
    assert not uses_micro_kernel(module)
    xs, ws = rand(m, k).astype(dtype), rand(k, n).astype(dtype)
    check(graphopt.compile(module, opt_level=2)["f"](xs, ws), xs @ ws, k)


# (N, C, H, W, O): pixels a multiple of 16, with a remainder, one row of pixels.
CONV_SHAPES = [(1, 64, 8, 8, 32), (2, 24, 7, 7, 40), (1, 32, 14, 14, 20), (1, 64, 1, 40, 16)]


@pytest.mark.parametrize("n,c,h,w,o", CONV_SHAPES)
@pytest.mark.parametrize("weights", ["input", "constant"])
def test_pointwise_conv_as_gemm(n: int, c: int, h: int, w: int, o: int, weights: str) -> None:
    xs, ws, bias = rand(n, c, h, w), rand(o, c, 1, 1), rand(o, 1, 1)
    b = GraphBuilder("f")
    x = b.input((n, c, h, w), name="x")
    wv = b.input((o, c, 1, 1), name="w") if weights == "input" else b.constant(ws)
    y = b.conv2d(x, wv, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    module = b.build(b.relu(b.add(y, b.constant(bias))))
    assert uses_micro_kernel(module)
    want = np.maximum(np.einsum("oc,nchw->nohw", ws[:, :, 0, 0], xs) + bias, 0)
    args = (xs, ws) if weights == "input" else (xs,)
    check(graphopt.compile(module, opt_level=2)["f"](*args), want, c)


def test_strided_depthwise_conv_keeps_its_path() -> None:
    """A stride-2 depthwise conv keeps the direct loops (see conv_gemm.plan_depthwise)."""
    b = GraphBuilder("f")
    x, wv = b.input((1, 32, 32, 32), name="x"), b.input((32, 1, 3, 3), name="w")
    module = b.build(b.conv2d(x, wv, (2, 2), (1, 1, 1, 1), (1, 1), 32))
    assert not uses_micro_kernel(module)


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("const_b", [False, True])
def test_equal_columns_of_b_give_bitwise_equal_columns(const_b: bool, m: int) -> None:
    """Every column of C is summed in the same order, the remainder panel's
    too (N = 1000 = 31 x 32 + 8, K = 1024 blocked), and in the matrix-vector
    form (one row) the short last vector's: a softmax over such logits stays
    uniform, as the float64 reference is."""
    k, n = 1024, 1000
    x = rand(m, k)
    w = np.repeat(rand(k, 1), n, axis=1)
    b = GraphBuilder("f")
    xv = b.input((m, k))
    wv = b.constant(w) if const_b else b.input((k, n))
    fn = graphopt.compile(b.build(b.matmul(xv, wv)), opt_level=2)["f"]
    got = fn(x) if const_b else fn(x, w)
    assert (got == got[:, :1]).all()
    check(got, x @ w, k)


def test_splat_b_is_packed() -> None:
    """A splat (uniform) B is packed at compile time like a dense one."""
    a = RNG.standard_normal((40, 64)).astype(np.float32)
    b = GraphBuilder("f")
    x = b.input(a.shape, name="a")
    module = b.build(b.matmul(x, b.splat((64, 48), 0.5)))
    assert uses_micro_kernel(module)
    np.testing.assert_allclose(graphopt.compile(module, opt_level=2)["f"](a), a @ np.full((64, 48), 0.5, np.float32), rtol=1e-5, atol=1e-5)


def test_k_chunks_with_a_partial_last_panel() -> None:
    """K chunks when N is not a multiple of 32: the last panel of each chunk
    is copied zero-padded and only its valid columns are stored."""
    m, k, n = 300, 1200, 70
    b = GraphBuilder("f")
    x, w = b.input((m, k), name="x"), b.input((k, n), name="w")
    module = b.build(b.matmul(x, w))
    xs, ws = rand(m, k), rand(k, n)
    check(graphopt.compile(module, opt_level=2)["f"](xs, ws), xs.astype(np.float64) @ ws.astype(np.float64), k)


def _vector_epilogue_ops(module) -> int:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import VectorType

    m = module.clone()
    run_pipeline(m, "O2")
    lower_graph_to_loop(m)
    return sum(isinstance(op, arith.AddfOp | arith.MaximumfOp | arith.MinimumfOp) and isinstance(op.results[0].type, VectorType) for op in m.walk())


def _both_epilogues(module, *args):
    """The kernel compiled with the vector epilogue and with the scalar one."""
    from graphopt.lowering import gemm

    vec = graphopt.compile(module, opt_level=2)["f"](*args)
    gemm.VECTOR_EPILOGUE = False
    try:
        scalar = graphopt.compile(module, opt_level=2)["f"](*args)
    finally:
        gemm.VECTOR_EPILOGUE = True
    return vec, scalar


@pytest.mark.parametrize("n,c,h,w,o", [(1, 24, 7, 7, 40), (2, 16, 5, 13, 64), (1, 32, 1, 48, 33)])
def test_vector_epilogue_of_a_pointwise_conv(n: int, c: int, h: int, w: int, o: int) -> None:
    """Bias, residual add and clip on vectors of 16 pixels (running across
    rows of the image): bitwise equal to the scalar epilogue; a partial last
    panel of pixels keeps the scalar one."""
    xs, ws, bias, res = rand(n, c, h, w), rand(o, c, 1, 1), rand(o, 1, 1), rand(n, o, h, w)
    b = GraphBuilder("f")
    x, r = b.input((n, c, h, w), name="x"), b.input((n, o, h, w), name="r")
    y = b.conv2d(x, b.constant(ws), (1, 1), (0, 0, 0, 0), (1, 1), 1)
    module = b.build(b.clip(b.add(b.add(y, b.constant(bias)), r), 0.0, 6.0))
    assert _vector_epilogue_ops(module) >= 3
    vec, scalar = _both_epilogues(module, xs, res)
    assert np.array_equal(vec, scalar)
    want = np.clip(np.einsum("oc,nchw->nohw", ws[:, :, 0, 0], xs) + bias + res, 0, 6)
    check(vec, want, c)


def test_vector_epilogue_of_a_matmul() -> None:
    """A column bias (a vector load), a row scale (a broadcast scalar) and relu."""
    m, k, n = 37, 200, 96
    xs, ws, bias, scale = rand(m, k), rand(k, n), rand(n), rand(m, 1)
    b = GraphBuilder("f")
    x, wv, bv, sv = b.input((m, k)), b.input((k, n)), b.input((n,)), b.input((m, 1))
    module = b.build(b.relu(b.mul(b.add(b.matmul(x, wv), bv), sv)))
    assert _vector_epilogue_ops(module) >= 2
    vec, scalar = _both_epilogues(module, xs, ws, bias, scale)
    assert np.array_equal(vec, scalar)
    check(vec, np.maximum((xs @ ws + bias) * scale, 0), k)


def test_epilogue_that_cannot_run_on_vectors_stays_scalar() -> None:
    """An epilogue op without a vector form (exp) keeps the scalar epilogue."""
    b = GraphBuilder("f")
    x, wv = b.input((40, 64)), b.input((64, 64))
    module = b.build(b.exp(b.matmul(x, wv)))
    assert _vector_epilogue_ops(module) == 0
    xs, ws = rand(40, 64) * 0.1, rand(64, 64) * 0.1
    check(graphopt.compile(module, opt_level=2)["f"](xs, ws), np.exp(xs @ ws), 64)


@pytest.mark.parametrize("n,c,h,w,o", [(1, 24, 9, 9, 44), (2, 32, 8, 8, 64)])
def test_pointwise_conv_row_tiles_outermost(n: int, c: int, h: int, w: int, o: int) -> None:
    """The pointwise schedule that copies all of B and runs the row tiles
    outermost (a partial last panel of pixels, a remainder row tile; both
    loops split over 2 threads) gives the same bits as the panels-outermost one."""
    from threads_check import call_threaded, compile_threaded

    from graphopt.lowering import gemm

    xs, ws, res = rand(n, c, h, w), rand(o, c, 1, 1), rand(n, o, h, w)
    b = GraphBuilder("f")
    x, r = b.input((n, c, h, w), name="x"), b.input((n, o, h, w), name="r")
    module = b.build(b.relu(b.add(b.conv2d(x, b.constant(ws), (1, 1), (0, 0, 0, 0), (1, 1), 1), r)))
    outer = call_threaded(compile_threaded(module, opt_level=2), [xs, res])[0]
    saved, gemm.ROWS_OUTER = gemm.ROWS_OUTER, False
    try:
        inner = call_threaded(compile_threaded(module, opt_level=2), [xs, res])[0]
    finally:
        gemm.ROWS_OUTER = saved
    assert np.array_equal(outer, inner)
    check(outer, np.maximum(np.einsum("oc,nchw->nohw", ws[:, :, 0, 0], xs) + res, 0), c)


def _gemv_kernel_ops(module) -> list:
    lowered = module.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    return list(lowered.walk())


# (batch, M, K, N): one row and two, K not a multiple of the 8 rows read at
# once nor of the 128-row blocks, N not a multiple of any vector, batched.
GEMV_SHAPES = [((), 1, 1100, 1003), ((), 2, 300, 77), ((3,), 1, 256, 200), ((2,), 2, 129, 140)]


@pytest.mark.parametrize("batch,m,k,n", GEMV_SHAPES)
@pytest.mark.parametrize("weights", ["input", "constant"])
def test_matrix_vector_products_stream_b_in_place(batch, m, k, n, weights) -> None:
    """One or two rows of A: B is read in place, row by row, with a prefetch
    of the next rows, never packed (a constant B is passed as it is); a
    vector epilogue (bias, relu) and a scalar one (tanh)."""
    xs, ws, cs = rand(*batch, m, k), rand(*batch, k, n), rand(n)
    want = np.einsum("...mk,...kn->...mn", xs.astype(np.float64), ws.astype(np.float64))
    for epilogue in ("bias_relu", "tanh"):
        b = GraphBuilder("f")
        x = b.input(xs.shape, name="x")
        w = b.constant(ws) if weights == "constant" else b.input(ws.shape, name="w")
        y = b.matmul(x, w)
        module = b.build(b.relu(b.add(y, b.constant(cs))) if epilogue == "bias_relu" else b.tanh(y))
        ops = _gemv_kernel_ops(module)
        assert any(op.name == "loop.prefetch" for op in ops)
        assert not any(getattr(op, "sym_name", None) and "packed" in op.sym_name.data for op in ops)
        args = (xs,) if weights == "constant" else (xs, ws)
        ref = np.maximum(want + cs, 0) if epilogue == "bias_relu" else np.tanh(want)
        check(graphopt.compile(module, opt_level=2)["f"](*args), ref, k)


def test_matrix_vector_chunks_split_over_threads() -> None:
    """More columns than a chunk (4096): the chunks run split over 2 threads,
    with the same bits as on one; the last chunk is 8 columns."""
    from threads_check import call_threaded, compile_threaded

    k, n = 40, 4104
    xs, ws = rand(1, k), rand(k, n)
    b = GraphBuilder("f")
    module = b.build(b.relu(b.matmul(b.input((1, k)), b.input((k, n)))))
    (got,) = call_threaded(compile_threaded(module, opt_level=2), [xs, ws])
    check(got, np.maximum(xs.astype(np.float64) @ ws, 0), k)
