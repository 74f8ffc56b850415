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
from graphopt.lowering import parallel_split
from graphopt.runtime.executable import default_num_threads
from test_conv_gemm import CASES, DEPTHWISE, check, conv_ref
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


# The conv schedule's shapes (remainder tiles and panels, strides, dilation,
# groups, input weights), a 7x7 image with 136 output channels (its panels
# are split, the tail panel's rows too) and the depthwise kernels, with every
# loop the schedule can split running in parallel (the padded input copy
# included): bitwise equal at 1 and 2 threads and equal to the reference.
CONV_CASES = [*CASES, (1, 16, 7, 7, 136, 3, 1, (1, 1, 1, 1), 1, 1, "constant")]


@pytest.mark.parametrize("n,c,h,w,o,k,s,pads,d,g,weights", CONV_CASES)
def test_conv_schedule_at_1_and_2_threads(n, c, h, w, o, k, s, pads, d, g, weights) -> None:
    rng = np.random.default_rng(o)
    xs, ws = (rng.standard_normal(t).astype(np.float32) for t in ((n, c, h, w), (o, c // g, k, k)))
    b = GraphBuilder("f")
    x = b.input(xs.shape, name="x")
    wv = b.constant(ws) if weights == "constant" else b.input(ws.shape, name="w")
    module = b.build(b.relu(b.conv2d(x, wv, (s, s), pads, (d, d), g)))
    cm = compile_threaded(module, opt_level=2)
    assert "GOMP_parallel" in cm.llvm_ir
    got = call_threaded(cm, [xs] if weights == "constant" else [xs, ws])[0]
    check(got, np.maximum(conv_ref(xs, ws, (s, s), pads, (d, d), g), 0))


@pytest.mark.parametrize("c, o, hw", [(32, 256, 14)])
def test_pointwise_conv_tail_panel_rows_at_1_and_2_threads(c, o, hw) -> None:
    """A 1x1 conv is a GEMM over the pixels: 196 = 6 panels of 32 + a tail
    of 4, whose rows of tiles run in parallel after the parallel panel loop
    (more output channels than pixels: no pixel blocks)."""
    rng = np.random.default_rng(c)
    xs, ws = rng.standard_normal((1, c, hw, hw)).astype(np.float32), rng.standard_normal((o, c, 1, 1)).astype(np.float32)
    b = GraphBuilder("f")
    module = b.build(b.relu(b.conv2d(b.input(xs.shape, name="x"), b.constant(ws), (1, 1), (0, 0, 0, 0), (1, 1), 1)))
    cm = compile_threaded(module, opt_level=2)
    assert cm.llvm_ir.count('call void @"GOMP_parallel"(') >= 2  # the panels, then the tail's rows
    check(call_threaded(cm, [xs])[0], np.maximum(conv_ref(xs, ws, (1, 1), (0, 0, 0, 0), (1, 1), 1), 0))


@pytest.mark.parametrize(
    "c, o, hw",
    [
        (8, 20, 24),  # 18 panels of 32 pixels: 2 blocks of 9; 20 channels: 2 row tiles and 4 rows
        (12, 40, 23),  # 16 full panels in 4 blocks, then a partial one of 17 pixels on the caller
        (8, 24, 18),  # 10 full panels in 2 blocks, then a partial one on the caller
        (16, 40, 13),  # 5 full panels: 2 blocks of 2, the fifth and the partial one on the caller
    ],
)
def test_pointwise_conv_pixel_blocks_at_1_and_2_threads(c, o, hw) -> None:
    """A rows-outer pointwise conv with fewer output channels than pixels
    splits its panels (pixels) in blocks, each copied and run by one thread
    in one region."""
    rng = np.random.default_rng(o)
    xs, ws = rng.standard_normal((1, c, hw, hw)).astype(np.float32), rng.standard_normal((o, c, 1, 1)).astype(np.float32)
    res = rng.standard_normal((1, o, hw, hw)).astype(np.float32)
    b = GraphBuilder("f")
    y = b.conv2d(b.input(xs.shape, name="x"), b.constant(ws), (1, 1), (0, 0, 0, 0), (1, 1), 1)
    module = b.build(b.relu(b.add(y, b.input(res.shape, name="r"))))
    cm = compile_threaded(module, opt_level=2)
    assert parallel_split.pixel_blocks(hw * hw // 32, o, hw * hw) > 0
    assert cm.llvm_ir.count('call void @"GOMP_parallel"(') == 1
    got = call_threaded(cm, [xs, res])[0]
    check(got, np.maximum(conv_ref(xs, ws, (1, 1), (0, 0, 0, 0), (1, 1), 1) + res, 0))


@pytest.mark.parametrize(
    "panels, m, n, blocks",
    [
        (98, 256, 3136, 2),
        (392, 96, 12544, 4),
        (24, 512, 784, 4),
        (6, 256, 196, 0),  # more output channels than pixels: the row tiles
        (98, 4096, 3136, 0),
        (5, 64, 169, 2),  # SqueezeNet's 1x1 512->64 @13: 118 us at 1 thread, 270 over row tiles, 93 in 2 blocks
        (1, 40, 49, 0),  # one panel: the row tiles
    ],
)
def test_pointwise_pixel_blocks_choice(panels, m, n, blocks) -> None:
    assert parallel_split.pixel_blocks(panels, m, n) == blocks


@pytest.mark.parametrize(
    "m, k, split",
    [(256, 1024, True), (1024, 256, True), (512, 128, False), (128, 512, False), (2000, 600, True)],
)
def test_gemm_panel_rows_split_choice(m, k, split) -> None:
    assert parallel_split.split_panel_rows(m, k) is split


@pytest.mark.parametrize("c,h,w,k,pads,d", DEPTHWISE)
def test_depthwise_at_1_and_2_threads(c, h, w, k, pads, d) -> None:
    rng = np.random.default_rng(c)
    xs, ws = rng.standard_normal((1, c, h, w)).astype(np.float32), rng.standard_normal((c, 1, k, k)).astype(np.float32)
    b = GraphBuilder("f")
    module = b.build(b.conv2d(b.input(xs.shape, name="x"), b.constant(ws), (1, 1), pads, (d, d), c))
    cm = compile_threaded(module, opt_level=2)
    # Each channel's iteration copies its own padded plane: one region, even
    # with every copy made parallel.
    assert cm.llvm_ir.count('call void @"GOMP_parallel"(') == 1
    check(call_threaded(cm, [xs])[0], conv_ref(xs, ws, (1, 1), pads, (d, d), c))


@pytest.mark.parametrize(
    "rows, panels, weights, inputs, by_panels",
    [
        (56, 2, 64 * 576, 64 * 58 * 58, False),  # 3x3 64->64 @56: rows (the input is the bigger operand)
        (112, 2, 64 * 147, 12 * 115 * 115, False),  # the 7x7 stem
        (14, 8, 256 * 2304, 256 * 16 * 16, True),  # 3x3 256->256 @14: panels (megabytes of weights)
        (7, 16, 512 * 4608, 512 * 9 * 9, True),  # 3x3 512->512 @7: 7 rows split 4 + 3, 16 panels 8 + 8
        (7, 1, 10, 10**6, False),  # one panel: rows
        (1, 4, 10, 10**6, True),  # one row: panels
    ],
)
def test_conv_split_choice(rows, panels, weights, inputs, by_panels) -> None:
    assert parallel_split.split_panels(rows, panels, weights, inputs) is by_panels


LIBRARY_CALL = """
import ctypes, os, sys
import numpy as np
lib = ctypes.CDLL(sys.argv[1])
count = ctypes.c_int32.in_dll(lib, "graphopt_num_threads")
assert count.value == 0  # the library's initial value: libgomp's default team
if sys.argv[2] != "default":
    count.value = int(sys.argv[2])
rng = np.random.default_rng(0)
x, w = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))
y = np.zeros((256, 256), np.float32)
ws = np.zeros(int(sys.argv[3]) + 64, np.uint8)
before = len(os.listdir("/proc/self/task"))  # numpy's own (OpenBLAS) threads included
lib.f(*(ctypes.c_void_p(a.ctypes.data) for a in (x, w, y, ws)))
z = np.tanh(x.astype(np.float64) @ w)
want = np.exp(z - z.max(-1, keepdims=True))
assert np.allclose(y, want / want.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
print(len(os.listdir("/proc/self/task")) - before)
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc to count threads")
def test_library_default_count_runs_libgomps_team(tmp_path) -> None:
    """A shared library's ``graphopt_num_threads`` starts at 0, libgomp's
    default team (here ``OMP_NUM_THREADS=2``), which runs the pool; 1 runs
    every loop on the caller."""
    import subprocess
    import sys

    from graphopt.runtime.aot import c_compiler, compile_library

    if c_compiler() is None:
        pytest.skip("no C compiler to link the library")
    lib, header = tmp_path / "libf.so", tmp_path / "libf.h"
    compile_library(big_model(), lib, header)
    ws = header.read_text().split("#define F_WORKSPACE_BYTES ")[1].split()[0]
    env = {**os.environ, "OMP_NUM_THREADS": "2"}

    def threads_started_by_a_call(count: str) -> int:
        argv = [sys.executable, "-c", LIBRARY_CALL, str(lib), count, ws]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        return int(done.stdout.split()[-1])

    assert threads_started_by_a_call("default") == 1  # the pool's worker
    assert threads_started_by_a_call("1") == 0


STRIDED_LOOP = """
builtin.module {
  func.func @main(%x: memref<50xf32>, %y: memref<50xf32>, %ws: memref<0xi8>) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<50xf32>], outputs = ["y" : tensor<50xf32>], workspace = 0>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c50 = arith.constant 50 : index
    %z = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c50 step %c1 {
      memref.store %z, %y[%i] : memref<50xf32>
    }
    "scf.parallel"(%c3, %c50, %c4) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %v = memref.load %x[%i] : memref<50xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%i] : memref<50xf32>
      scf.reduce
    }) : (index, index, index) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("threads", [1, 2, 3, 5, 12, 13])
def test_strided_parallel_loop_any_team(threads: int) -> None:
    """Lower bound 3, step 4: 12 iterations, split into chunks for teams
    smaller and larger than the trip count (capped at it)."""
    from xdsl.context import Context
    from xdsl.dialects import arith, builtin, func, memref, scf
    from xdsl.parser import Parser

    from graphopt.dialects.loop import Loop
    from graphopt.runtime.executable import compile_loop_module

    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, scf.Scf, Loop):
        ctx.load_dialect(d)
    cm = compile_loop_module(Parser(ctx, STRIDED_LOOP).parse_module(), num_threads=threads)
    x = np.arange(50, dtype=np.float32)
    want = np.zeros(50, np.float32)
    want[3::4] = 2 * x[3::4]
    np.testing.assert_array_equal(cm.main(x), want)


def _work(seconds: float = 0.0, outputs: float = 0.0) -> parallel_split.LoopWork:
    return parallel_split.LoopWork(instructions=seconds / parallel_split.VECTOR_OP_SECONDS, outputs=outputs)


@pytest.mark.parametrize(
    "seconds, outputs, trips, parallel",
    [
        (150e-6, 0, 64, True),  # the second thread saves 75 us
        (2e-6, 0, 64, False),  # a few vector instructions: 1 us saved, no region
        (150e-6, 0, 1, False),  # one iteration: nothing to split
        (5e-6, 0, 3, False),  # split 2 + 1: the other thread saves 1.7 us
        (5e-6, 0, 4, True),  # split 2 + 2: 2.5 us
        (150e-6, 4 << 20, 64, False),  # reading back 2 MB across dies (80 us) costs more
        (150e-6, 512 << 10, 64, True),  # 256 KB: 10 us
    ],
)
def test_worth_a_region(seconds, outputs, trips, parallel) -> None:
    assert parallel_split.worth_a_region(_work(seconds, outputs), trips) is parallel


LOOP_NEST = """
builtin.module {
  func.func @k(%a: memref<64x256xf32>, %o: memref<64x256xf32>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %tile = memref.alloca() : memref<16xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %x = memref.load %a[%i, %j] : memref<64x256xf32>
        %y = arith.mulf %x, %s : f32
        memref.store %y, %o[%i, %j] : memref<64x256xf32>
      }
      scf.for %j = %c0 to %c256 step %c16 {
        %v = vector.load %a[%i, %j] : memref<64x256xf32>, vector<16xf32>
        %q = arith.divui %j, %c16 : index
        vector.store %v, %tile[%c0] : memref<16xf32>, vector<16xf32>
      }
    }
    func.return
  }
}
"""


def test_nest_work_counts_instructions_stores_and_loads() -> None:
    """A scalar op counts 1 / lanes (LLVM vectorises it), a vector op 1, a
    division 2; stores into an L1-sized stack buffer count no bytes; a
    buffer loaded several times counts its bytes once."""
    from xdsl.context import Context
    from xdsl.dialects import arith, builtin, func, memref, scf, vector
    from xdsl.parser import Parser

    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, scf.Scf, vector.Vector):
        ctx.load_dialect(d)
    nest = next(op for op in Parser(ctx, LOOP_NEST).parse_module().walk() if isinstance(op, scf.ForOp))
    work = parallel_split.nest_work(nest, lanes=16, l1_bytes=32 << 10)
    scalar = 64 * 256 * 3 / 16  # load, multiply, store
    vector_ops = 64 * 16 * (2 + parallel_split.DIVISION_INSTRUCTIONS)  # load and store; the division
    assert work.instructions == scalar + vector_ops
    assert work.stored == work.outputs == 64 * 256 * 4
    assert work.seconds == pytest.approx(max(work.instructions * parallel_split.VECTOR_OP_SECONDS,
                                             work.stored / parallel_split.STORED_BYTES_PER_SECOND,
                                             64 * 256 * 4 / parallel_split.LOADED_BYTES_PER_SECOND))  # fmt: skip
    avx2 = parallel_split.nest_work(nest, lanes=8, l1_bytes=32 << 10)
    assert avx2.instructions == 2 * scalar + vector_ops  # twice the scalar ops' vectors at 8 lanes
    assert parallel_split.nest_work(nest, lanes=16, l1_bytes=0).stored == work.stored + 64 * 16 * 64  # the tile


def _conv(c: int, o: int, hw: int, k: int, groups: int = 1):
    rng = np.random.default_rng(c + o)
    w = rng.standard_normal((o, c // groups, k, k)).astype(np.float32)
    b = GraphBuilder("f")
    y = b.relu(b.conv2d(b.input((1, c, hw, hw), name="x"), b.constant(w), (1, 1), (k // 2,) * 4, (1, 1), groups))
    return b.build(y), w


@pytest.mark.parametrize("target", [None, "haswell"])
@pytest.mark.parametrize(
    "c, o, hw, k, groups, parallel",
    [
        (16, 16, 8, 1, 1, False),  # a 1x1 16->16 @8: well under a microsecond of work
        (8, 8, 6, 3, 8, False),  # a depthwise 3x3 8 @6: the same
        (272, 272, 14, 1, 4, True),  # ShuffleNet's grouped 1x1 @14: a region per group of 15-20 us
        (136, 136, 28, 3, 136, True),  # its depthwise 3x3 @28: 54 us on one core, 1.4 MB in and out
        (64, 256, 13, 3, 1, True),  # SqueezeNet's 3x3 64->256 @13: 0.47 ms, 170 KB out
        (512, 1000, 13, 1, 1, True),  # its 1x1 512->1000 @13: 1.8 ms
    ],
)
def test_parallel_rule_keeps_the_loops_that_pay(c, o, hw, k, groups, parallel, target) -> None:
    """In the loop-level IR a conv too small to pay for a region has no
    scf.parallel, a big one has; the same for AVX2; bitwise equal at 1 and 2
    threads with the default rule."""
    from xdsl.dialects import scf

    from graphopt.runtime.compile import run_pipeline, set_target

    module, w = _conv(c, o, hw, k, groups)
    loops = module.clone()
    set_target(loops, target)
    run_pipeline(loops, "O2,lower-graph-to-loop")
    assert any(isinstance(op, scf.ParallelOp) for op in loops.walk()) is parallel
    if target is None:
        cm = graphopt.compile(module, opt_level=2, num_threads=2)
        assert ('call void @"GOMP_parallel"(' in cm.llvm_ir) is parallel
        xs = np.random.default_rng(1).standard_normal((1, c, hw, hw)).astype(np.float32)
        check(call_threaded(cm, [xs])[0], np.maximum(conv_ref(xs, w, (1, 1), (k // 2,) * 4, (1, 1), groups), 0))


def test_parallel_outlined_loop_keeps_its_constant_range() -> None:
    """The outlined body runs over the whole constant range and skips the
    other threads' iterations (``convert-parallel-to-llvm/parallel.mlir``
    checks the form): a channel shuffle (a reshape, transpose and reshape:
    divisions by constants that LLVM folds knowing the range) is outlined
    and right at 1 and 2 threads."""
    b = GraphBuilder("f")
    x = b.input((1, 112, 56, 56), np.float32)
    y = b.reshape(b.transpose(b.reshape(x, (1, 4, 28, 56, 56)), (0, 2, 1, 3, 4)), (1, 112, 56, 56))
    cm = compile_threaded(b.build(y), opt_level=2)
    outlined = cm.llvm_ir.split('define internal void @"f_k')[1]
    assert "_par0" in outlined.split("(", 1)[0]
    xs = np.random.default_rng(0).standard_normal((1, 112, 56, 56)).astype(np.float32)
    got = call_threaded(cm, [xs])[0]
    np.testing.assert_array_equal(got, xs.reshape(1, 4, 28, 56, 56).transpose(0, 2, 1, 3, 4).reshape(1, 112, 56, 56))


def test_idle_threads_spin_a_bounded_time_unless_the_user_chose() -> None:
    """libgomp's idle threads spin ``SPIN_COUNT`` times before they sleep;
    a user's ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is left as it is."""
    from graphopt.runtime.thread_pool import SPIN_COUNT, configure_libgomp

    env: dict[str, str] = {"PATH": "/bin"}
    configure_libgomp(env)
    assert env == {"PATH": "/bin", "GOMP_SPINCOUNT": str(SPIN_COUNT)}
    for chosen in ({"OMP_WAIT_POLICY": "passive"}, {"GOMP_SPINCOUNT": "0"}, {"OMP_WAIT_POLICY": "active"}):
        env = dict(chosen)
        configure_libgomp(env)
        assert env == chosen


def test_the_jit_sets_the_spin_before_libgomp_loads() -> None:
    """A fresh process that compiles a model has set the spin by then."""
    import subprocess
    import sys

    from graphopt.runtime.thread_pool import SPIN_COUNT

    code = ("import os, numpy as np, graphopt\n"
            "from graphopt.frontends.builder import GraphBuilder\n"
            "b = GraphBuilder('f'); x = b.input((4,), np.float32); graphopt.compile(b.build(b.tanh(x)))\n"
            "print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))\n")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(SPIN_COUNT), "None"]
