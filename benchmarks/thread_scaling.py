"""Is any model slower at 2 threads than at 1?  The onnx package's light
models with dense weights, each at 1 and 2 threads, one line per model.

Every light model (``tests/conformance/light_models.py``: its uniform
weights replaced by seeded normal ones, ``with_random_weights``; the input
onnx's runner feeds) is compiled once at -O3, for the host or for
``--target-cpu``, and called at 1 and 2 threads (the thread count set before
each call, as ``harness.graph_opt_call`` does).  The models and the two
thread counts are interleaved: each repeat visits the models in a new random
order and runs both counts of a model, in turn first, back to back; every
timed call follows an untimed one at the same count (the steady state of
``harness.py``).  The 1-thread time is the calling thread's CPU time (other
processes do not count in it); the 2-thread time is wall time, which they
do: on a shared machine it counts every wait of either thread for a CPU, so
the run-queue wait of the 2-thread calls is printed too
(``/proc/self/task/*/schedstat``), with the load average.  ``--realtime``
runs the timing at ``SCHED_FIFO`` priority (root), a stand-in for a quiet
machine.  ``regions`` is the parallel regions one call opens, counted in
the loop-level IR (``thread_profile.regions_per_call``).

The last line answers "no model slower at 2 threads than at 1" (2-thread
wall time at most the 1-thread CPU time, medians) with met / not met.

``--also mobilenet_v2,resnet50`` adds models of ``models.py`` (dense random
weights, as ``resnet50.py`` builds them).

Run: ``python benchmarks/thread_scaling.py [--models shufflenet,squeezenet] [--also mobilenet_v2,resnet50] [--repeats 15] [--target-cpu haswell] [--realtime]``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance"))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import onnx  # noqa: E402
from kernel_profile import GRAPH_PASSES  # noqa: E402
from light_models import NAMES, graph_inputs, model_path, runner_input, with_random_weights  # noqa: E402
from thread_profile import load_model, regions_per_call, timed_call  # noqa: E402
from xdsl.dialects import func  # noqa: E402

import graphopt  # noqa: E402
from graphopt.frontends.onnx import import_model  # noqa: E402
from graphopt.runtime.compile import run_pipeline, set_target  # noqa: E402


class Model:
    """One model compiled at -O3, its input, and its samples."""

    def __init__(self, name: str, target: str | None, light: bool = True):
        if light:
            model = with_random_weights(onnx.load(model_path(name)))
            (vi,) = graph_inputs(model)
            self.name, self.input = name, runner_input(vi)
            module = import_model(model)
        else:  # a models.py model with dense random weights, as resnet50.py builds it
            module, self.input, _ = load_model(name)
            self.name = f"{name} (models.py)"
        t0 = time.process_time()
        self.compiled = graphopt.compile(module, opt_level=3, num_threads=1, target=target)
        self.compile_s = time.process_time() - t0
        self.entry = self.compiled[next(op for op in module.ops if isinstance(op, func.FuncOp)).sym_name.data]
        graph = module.clone()
        set_target(graph, target)
        run_pipeline(graph, GRAPH_PASSES)
        self.regions = sum(regions_per_call(graph).get(f.sym_name.data, 0) for f in graph.ops
                           if isinstance(f, func.FuncOp))  # fmt: skip
        self.one_cpu: list[float] = []
        self.one_wall: list[float] = []
        self.two: list[tuple[float, ...]] = []  # (wall, caller CPU, pool CPU, run-queue wait)

    def call(self) -> None:
        self.entry(self.input)

    def sample(self, threads: int, caller: int) -> None:
        self.compiled.num_threads = threads
        self.call()
        if threads == 1:
            c0, w0 = time.thread_time(), time.perf_counter()
            self.call()
            self.one_wall.append(time.perf_counter() - w0)
            self.one_cpu.append(time.thread_time() - c0)
        else:
            self.two.append(timed_call(self.call, caller))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(NAMES), help="comma-separated light model names")
    parser.add_argument("--also", default="", help="comma-separated models.py models (mobilenet_v2,resnet50)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--target-cpu", default=None, help="an LLVM CPU name (haswell: AVX2); default the host")
    parser.add_argument("--realtime", action="store_true",
                        help="time at SCHED_FIFO priority (needs root): other processes cannot take a CPU from it")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="of the order the models are visited in")
    args = parser.parse_args()

    host = graphopt.Target.host()
    target = graphopt.Target.from_options(args.target_cpu) if args.target_cpu else host
    models = []
    names = [(n, True) for n in args.models.split(",") if n] + [(n, False) for n in args.also.split(",") if n]
    for name, light in names:
        models.append(Model(name, args.target_cpu, light))
        print(f"compiled {models[-1].name}: {models[-1].compile_s:.1f} CPU-s", file=sys.stderr, flush=True)

    caller = threading.get_native_id()
    order = random.Random(args.seed)
    load_before = os.getloadavg()
    if args.realtime:
        harness.realtime(True)
    try:
        for r in range(args.repeats):
            order.shuffle(models)
            for m in models:
                for threads in ((1, 2) if r % 2 == 0 else (2, 1)):
                    m.sample(threads, caller)
    finally:
        if args.realtime:
            harness.realtime(False)
    load_after = os.getloadavg()

    print(f"host: {host.describe()}")
    if target != host:
        print(f"target: {target.describe()}")
    print(f"load average (1, 5, 15 min) before {', '.join(f'{x:.1f}' for x in load_before)}; "
          f"after {', '.join(f'{x:.1f}' for x in load_after)}"
          f"{'; timed at SCHED_FIFO priority' if args.realtime else ''}")  # fmt: skip
    print(f"graph-opt -O3, dense random weights; medians of {args.repeats} interleaved repeats; ms per call")
    print("1t CPU: the calling thread's CPU time at 1 thread (1t wall beside it); 2t wall: wall time at 2 threads;")
    print("caller, pool: CPU time of the calling thread and of the pool's worker at 2 threads; queued: time both")
    print("waited for a CPU in a 2-thread call (other processes' load); speedup = 1t CPU / 2t wall\n")
    print(f"{'model':24}{'regions':>8}{'1t CPU':>9}{'1t wall':>9}{'2t wall':>9}{'caller':>9}{'pool':>9}"
          f"{'queued':>9}{'speedup':>9}")  # fmt: skip
    worst = None
    for m in sorted(models, key=lambda m: m.name):
        one = statistics.median(m.one_cpu)
        wall, me, pool, queued = (statistics.median(s[i] for s in m.two) for i in range(4))
        speedup = one / wall
        worst = min(worst or (speedup, m.name), (speedup, m.name))
        print(f"{m.name:24}{m.regions:>8}{1e3 * one:>9.2f}{1e3 * statistics.median(m.one_wall):>9.2f}"
              f"{1e3 * wall:>9.2f}{1e3 * me:>9.2f}{1e3 * pool:>9.2f}{1e3 * queued:>9.2f}{speedup:>8.2f}x")  # fmt: skip
    assert worst is not None
    print(f"\nno model slower at 2 threads than at 1: {harness.met(worst[0] >= 1.0)} "
          f"(slowest: {worst[1]} {worst[0]:.2f}x)")


if __name__ == "__main__":
    main()
