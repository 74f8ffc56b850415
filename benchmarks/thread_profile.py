"""Where the second thread's time goes: every kernel of a model (and the
whole model) at 1 and 2 threads, with the calling thread's and the pool's
CPU time apart, and the cost of one empty parallel region.

The model (``models.py``, dense random weights as in ``resnet50.py``; or
``light_<name>``, one of the onnx package's light models with dense weights,
``light_models.with_random_weights``, fed what onnx's runner feeds) is cut
into one function per kernel as ``kernel_profile.py`` does, all compiled into
one module; one sample calls every kernel once, in model order, on the
arrays its producers wrote, first at 1 thread and then at 2 (the thread count
is switched between the passes), interleaved with whole-model calls (-O3) at
1 and 2 threads; medians.  Every timed pass or call follows an untimed one at
the same thread count: steady state, as ``harness.py`` times (after a pause,
the pool's worker sleeps and its core is cold: ``--first-call``).  Per call: the calling thread's CPU time at 1
thread; at 2 threads the wall time and the CPU time of the calling thread
and of the pool's worker, each from its own thread CPU clock, and the time
both waited in the run queue (``/proc/self/task/*/schedstat``).  On a shared
machine the wall time mostly measures the other processes; the per-thread
CPU times do not, so the table derives from them:

* extra = caller + pool - 1-thread CPU: work the split adds (cache lines
  fetched from the other core, wake-ups, duplicated copies) and the waits
  spent spinning (``runtime.thread_pool``: about 50 us after each region
  before a thread sleeps, so a kernel called alone, as in the per-kernel
  rows, pays it once per call; inside a model call it bridges the gaps);
* imbal = |caller - pool|: the serial parts and the uneven chunks;
* est = 1-thread CPU / max(caller, pool): the speedup if neither thread ever
  waited for the other;
* qwall: the wall time of the samples in which neither thread waited for a
  CPU.  ``--realtime`` runs the timing at ``SCHED_FIFO`` priority, so that
  other processes cannot take a CPU from ours (needs root).

Run: ``python benchmarks/thread_profile.py [--model resnet50|light_shufflenet] [--repeats 7] [--top 30] [--kernels] [--realtime]``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402

import numpy as np  # noqa: E402
from kernel_profile import GRAPH_PASSES, chained_calls, kernel_module  # noqa: E402
from models import MODELS  # noqa: E402
from resnet50 import dense_weights  # noqa: E402
from xdsl.dialects import arith, func, scf  # noqa: E402
from xdsl.dialects.builtin import IntegerAttr, ModuleOp  # noqa: E402

import graphopt  # noqa: E402
from graphopt.lowering.to_llvm.loop import ConvertLoopToLLVMPass  # noqa: E402
from graphopt.lowering.to_llvm.parallel import region_root  # noqa: E402
from graphopt.runtime.compile import run_pipeline  # noqa: E402

RNG = np.random.default_rng(1)
LIGHT_PREFIX = "light_"
#: A 2-thread sample counts as quiet when our threads waited less than this for a CPU.
QUIET_S = 20e-6


def regions_per_call(kmod) -> dict[str, int]:
    """Per kernel function: the parallel regions one call opens, from its
    loop-level IR (each ``scf.parallel`` times the trips of the loops around
    its region, through the kernel functions it calls)."""
    loops = kmod.clone()
    run_pipeline(loops, "plan-memory,lower-graph-to-loop")
    # As convert-parallel-to-llvm sees them: a parallel loop's region takes
    # in the serial loops around it that it hoists (``region_root``).
    ConvertLoopToLLVMPass().convert(loops)

    def const(v) -> int | None:
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data
        return None

    own: dict[str, int] = {}
    callees: dict[str, list[str]] = {}
    for fn in loops.ops:
        if not isinstance(fn, func.FuncOp):
            continue
        n = 0
        for op in fn.walk():
            if isinstance(op, scf.ParallelOp):
                times, parent = 1, region_root(op).parent_op()
                while parent is not None and parent is not fn:
                    if isinstance(parent, scf.ForOp):
                        lb, ub, step = const(parent.lb), const(parent.ub), const(parent.step)
                        times *= -(-(ub - lb) // step) if None not in (lb, ub, step) else 1
                    parent = parent.parent_op()
                n += times
        own[fn.sym_name.data] = n
        callees[fn.sym_name.data] = [c.callee.string_value() for c in fn.walk() if isinstance(c, func.CallOp)]
    return {f: own[f] + sum(own.get(c, 0) for c in callees[f]) for f in own}


TINY = """
builtin.module {
  func.func @tiny(%x: memref<2x16xf32>, %y: memref<2x16xf32>, %ws: memref<0xi8>) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<2x16xf32>], outputs = ["y" : tensor<2x16xf32>], workspace = 0>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    "scf.parallel"(%c0, %c2, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %v = memref.load %x[%i, %c0] : memref<2x16xf32>
      memref.store %v, %y[%i, %c0] : memref<2x16xf32>
      scf.reduce
    }) : (index, index, index) -> ()
    func.return
  }
}
"""


def empty_region_cost(repeats: int, calls: int = 2000) -> dict[int, tuple[float, float]]:
    """Per thread count, the wall and process CPU time of one call of a
    parallel loop of two nearly empty iterations: at 2 threads, what opening
    one region (waking the pool and joining it) costs; at 1 thread no region
    is opened."""
    cm, call, _keep = tiny_region()
    samples: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    for _ in range(repeats):
        for t in (1, 2):
            cm.num_threads = t
            call()
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(calls):
                call()
            samples[t].append(((time.perf_counter() - w0) / calls, (time.process_time() - c0) / calls))
    return {t: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v)) for t, v in samples.items()}


def tiny_region():
    """A compiled parallel loop of two nearly empty iterations (``TINY``) at
    2 threads, as a no-argument native call: it opens one region."""
    from xdsl.context import Context
    from xdsl.dialects import arith, builtin, memref, scf
    from xdsl.dialects import func as func_d
    from xdsl.parser import Parser

    from graphopt.dialects.loop import Loop
    from graphopt.runtime.executable import compile_loop_module

    ctx = Context()
    for d in (builtin.Builtin, func_d.Func, arith.Arith, memref.MemRef, scf.Scf, Loop):
        ctx.load_dialect(d)
    cm = compile_loop_module(Parser(ctx, TINY).parse_module(), num_threads=2)
    fn = cm["tiny"]
    x, y = np.ones((2, 16), np.float32), np.zeros((2, 16), np.float32)
    ptrs = (x.ctypes.data, y.ctypes.data, fn.workspace_address())
    return cm, (lambda: fn._cfunc(*ptrs)), (x, y)


#: What precedes the timed call in :func:`first_call_costs`.
FIRST_CALL_CASES = (
    ("steady: right after a call", False, False, False),
    ("after a 0.15 s pause", True, False, False),
    ("pause, then one empty region", True, True, False),
    ("no pause, 64 MB streamed first", False, False, True),
    ("pause and 64 MB streamed", True, False, True),
)


def first_call_costs(compiled, entry, image, repeats: int) -> dict[tuple[str, int], list[tuple[float, ...]]]:
    """What the first call after an idle pause pays, and why: the model call
    at 1 and 2 threads after each of ``FIRST_CALL_CASES`` (a pause lets the
    pool's worker fall asleep in the kernel and the idle vCPU halt; an empty
    region wakes both again first; streaming 64 MB through the caches evicts
    the model's weights and activations, as the other contenders of an
    interleaved benchmark do).  Samples of (wall, caller CPU, pool CPU)."""
    keep, wake, _ = tiny_region()
    junk = np.ones(1 << 24, np.float32)
    caller = threading.get_native_id()
    out: dict[tuple[str, int], list[tuple[float, ...]]] = defaultdict(list)
    for _ in range(repeats):
        for case, pause, region, stream in FIRST_CALL_CASES:
            for t in (1, 2):
                compiled.num_threads = t
                entry(image)
                if stream:
                    junk.copy()
                if pause:
                    time.sleep(0.15)
                if region:
                    wake()
                wall, me, pool, _ = timed_call(lambda: entry(image), caller)
                out[(case, t)].append((wall, me, pool))
    del keep
    return out


def print_first_call(compiled, entry, image, repeats: int) -> None:
    costs = first_call_costs(compiled, entry, image, repeats)
    one = statistics.median(s[1] for s in costs[(FIRST_CALL_CASES[0][0], 1)])
    print(f"first call after a pause: medians of {repeats}; ms; speedup = steady 1-thread CPU / 2-thread wall")
    print(f"{'before the timed call':34}{'1t CPU':>8}{'2t wall':>9}{'caller':>8}{'pool':>8}{'speedup':>8}")
    for case, *_ in FIRST_CALL_CASES:
        c1 = statistics.median(s[1] for s in costs[(case, 1)])
        w2, me, pool = (statistics.median(s[i] for s in costs[(case, 2)]) for i in range(3))
        print(f"{case:34}{1e3 * c1:>8.2f}{1e3 * w2:>9.2f}{1e3 * me:>8.2f}{1e3 * pool:>8.2f}{one / w2:>7.2f}x")
    print()


def thread_times() -> dict[int, tuple[int, int]]:
    """Per thread of this process: (ns on a CPU, from its CPU-time clock,
    which is exact even while the thread runs; ns waiting in the run queue,
    from ``/proc/self/task/*/schedstat``, which is as of the last tick)."""
    out = {}
    for tid in map(int, os.listdir("/proc/self/task")):
        try:
            run = time.clock_gettime_ns(((~tid) << 3) | 6)  # the thread's CPUCLOCK_SCHED
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                wait = int(f.read().split()[1])
        except OSError:  # the thread ended
            continue
        out[tid] = (run, wait)
    return out


def timed_call(call, caller: int) -> tuple[float, float, float, float]:
    """One call: its wall time, the calling thread's CPU time (its own clock,
    read right around the call: reading ``/proc`` costs tens of us), the
    pool's CPU time and the time all waited in the run queue."""
    before = thread_times()
    c0, w0 = time.thread_time(), time.perf_counter()
    call()
    w1, c1 = time.perf_counter(), time.thread_time()
    _, pool, queued = split_times(before, thread_times(), caller)
    return w1 - w0, c1 - c0, pool, queued


def split_times(before: dict, after: dict, caller: int) -> tuple[float, float, float]:
    """CPU seconds of the calling thread and of the others (the pool) between
    two :func:`thread_times`, and the seconds they all waited in the run
    queue (other processes' load)."""
    me = pool = queued = 0
    for tid, (run, wait) in after.items():
        run0, wait0 = before.get(tid, (0, 0))
        queued += wait - wait0
        if tid == caller:
            me += run - run0
        else:
            pool += run - run0
    return me * 1e-9, pool * 1e-9, queued * 1e-9


def load_model(name: str) -> tuple[ModuleOp, np.ndarray, str]:
    """The graph-level model ``name`` (a ``models.py`` model with dense
    random weights, or ``light_<name>``), its input and its entry's name."""
    if not name.startswith(LIGHT_PREFIX):
        return dense_weights(MODELS[name]()), RNG.standard_normal((1, 3, 224, 224)).astype(np.float32), name
    import onnx

    from graphopt.frontends.onnx import import_model

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance"))
    from light_models import graph_inputs, model_path, runner_input, with_random_weights

    model = with_random_weights(onnx.load(model_path(name[len(LIGHT_PREFIX):])))
    (vi,) = graph_inputs(model)
    module = import_model(model)
    entry = next(op for op in module.ops if isinstance(op, func.FuncOp)).sym_name.data
    return module, runner_input(vi), entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--top", type=int, default=30, help="rows of the per-class table")
    parser.add_argument("--kernels", action="store_true", help="one row per kernel instead of per class")
    parser.add_argument("--first-call", action="store_true",
                        help="only the whole model: what the first call after a pause pays, and why")
    parser.add_argument("--realtime", action="store_true",
                        help="time with every thread of the process at SCHED_FIFO priority (needs root): "
                             "other processes cannot take a CPU from it, as on an idle machine")  # fmt: skip
    args = parser.parse_args()

    cost = empty_region_cost(args.repeats)
    print(f"one call of a parallel loop of 2 tiny iterations: 2 threads {1e6 * cost[2][0]:.1f} us wall, "
          f"{1e6 * cost[2][1]:.1f} us CPU; 1 thread (no region) {1e6 * cost[1][0]:.2f} us wall")  # fmt: skip

    module, image, entry_name = load_model(args.model)
    if args.first_call:
        whole = graphopt.compile(module, opt_level=3, num_threads=1)
        if args.realtime:
            harness.realtime(True)
        print_first_call(whole, whole[entry_name], image, args.repeats)
        return
    fused_model = module.clone()
    run_pipeline(fused_model, GRAPH_PASSES)
    kmod, kernels = kernel_module(fused_model)
    compiled = graphopt.compile(kmod, pipeline="plan-memory", num_threads=1)
    regions = regions_per_call(kmod)
    fused_fn = next(op for op in fused_model.ops if isinstance(op, func.FuncOp))
    calls, env = chained_calls(compiled, kernels, {fused_fn.body.block.args[0]: image})
    out_value = fused_fn.body.block.last_op.operands[0]

    outputs = {}
    for t in (1, 2):
        compiled.num_threads = t
        for _ in range(2):
            for cfunc, ptrs in calls:
                cfunc(*ptrs)
        outputs[t] = env[out_value].copy()
    assert np.array_equal(outputs[1], outputs[2]), "1- and 2-thread results differ"

    caller = threading.get_native_id()
    whole = graphopt.compile(module, opt_level=3, num_threads=1)
    entry = whole[entry_name]
    model: list[tuple[float, ...]] = []
    # kernel -> samples of (1-thread CPU, 2-thread wall, caller CPU, pool CPU, queued)
    samples: dict[str, list[tuple[float, ...]]] = defaultdict(list)
    if args.realtime:
        harness.realtime(True)
    for _ in range(args.repeats):
        # Steady state, as harness.py times: every timed call follows an
        # untimed one at the same thread count (after a pause, the first
        # region pays for waking the pool's sleeping worker, see --first-call).
        whole.num_threads = 1
        entry(image)
        t0 = time.thread_time()
        entry(image)
        c1 = time.thread_time() - t0
        whole.num_threads = 2
        entry(image)
        model.append((c1, *timed_call(lambda: entry(image), caller)))
        compiled.num_threads = 1
        for cfunc, ptrs in calls:
            cfunc(*ptrs)
        one = []
        for cfunc, ptrs in calls:
            t0 = time.thread_time()
            cfunc(*ptrs)
            one.append(time.thread_time() - t0)
        compiled.num_threads = 2
        for cfunc, ptrs in calls:
            cfunc(*ptrs)
        for k, c1, (cfunc, ptrs) in zip(kernels, one, calls):
            samples[k.name].append((c1, *timed_call(lambda: cfunc(*ptrs), caller)))

    if args.realtime:
        harness.realtime(False)

    def summary(k: str) -> np.ndarray:
        """Medians of (1t CPU, caller CPU, pool CPU, wall, wall of the samples
        no thread of ours waited for a CPU in, their count)."""
        a = np.array(samples[k])
        quiet = a[a[:, 4] < QUIET_S, 1]
        return np.array([*np.median(a[:, [0, 2, 3, 1]], axis=0),
                         np.median(quiet) if len(quiet) else np.nan, len(quiet)])  # fmt: skip

    rows: dict[str, list] = defaultdict(lambda: [0, 0, np.zeros(6)])
    for k in kernels:
        key = f"{k.name} {k.key}" if args.kernels else k.key
        r = rows[key]
        r[0] += 1
        r[1] += regions.get(k.name, 0)
        r[2] = r[2] + summary(k.name)
    total = sum((r[2] for r in rows.values()), np.zeros(6))
    nreg = sum(r[1] for r in rows.values())

    def line(key, n, reg, v):
        c1, me, pool, wall, quiet, nquiet = v
        busy = max(me, pool)  # the longer thread: the wall time on an idle machine, wake-ups aside
        return (f"{key[:38]:38}{n:>3}{reg:>4}{1e3 * c1:>8.2f}{1e3 * me:>8.2f}{1e3 * pool:>8.2f}"
                f"{1e3 * (me + pool - c1):>7.2f}{1e3 * abs(me - pool):>7.2f}{c1 / busy if busy else 0:>6.2f}x"
                f"{1e3 * wall:>8.2f}{1e3 * quiet:>8.2f}{c1 / quiet if quiet else 0:>6.2f}x{nquiet / n:>5.0f}")  # fmt: skip

    print(f"{args.model}: {len(kernels)} kernels, {nreg} parallel regions per call; medians of "
          f"{args.repeats} interleaved repeats; ms per call")  # fmt: skip
    print("1t: CPU at 1 thread; caller, pool: CPU of the calling thread and of the pool's worker at 2 threads;")
    print("extra = caller + pool - 1t; imbal = |caller - pool|; est = 1t / max(caller, pool), the speedup if")
    print("the threads never waited for each other; wall: 2-thread wall time; qwall: the same over the samples")
    print(f"in which neither thread waited for a CPU (< {1e6 * QUIET_S:.0f} us in the run queue; n of them), and")
    print("speedup = 1t / qwall\n")
    print(f"{'kernel class':38}{'n':>3}{'reg':>4}{'1t':>8}{'caller':>8}{'pool':>8}{'extra':>7}{'imbal':>7}"
          f"{'est':>7}{'wall':>8}{'qwall':>8}{'speedup':>7}{'n':>5}")  # fmt: skip
    ordered = sorted(rows.items(), key=lambda kv: -(max(kv[1][2][1], kv[1][2][2]) - kv[1][2][0] / 2))
    for key, (n, reg, v) in ordered[: args.top]:
        print(line(key, n, reg, v))
    print(line("total (sum of the kernels)", len(kernels), nreg, total))
    samples["model"] = model
    print(line(f"whole model ({args.model} -O3)", 1, nreg, summary("model")))


if __name__ == "__main__":
    main()
