"""The onnx package's light models: import time, compile time, and latency
of graph-opt (-O2) against onnxruntime at 1 and 2 threads, in one run.

Latency is the median wall time of ``--repeats`` calls,
the contenders interleaved in a shuffled order with a pause between them
(onnxruntime's worker threads spin after a 2-thread run and would slow
whatever runs next).  The input is what onnx's runner feeds; the weights are
the models' own (uniform 0.02) -- timing does not depend on their values.

Run: ``python benchmarks/onnx_models.py [--models alexnet,resnet50] [--repeats 5]``
(needs the ``bench`` extra: ``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "conformance"))

import graphopt  # noqa: E402
from graphopt.frontends.onnx import import_model  # noqa: E402
from light_models import NAMES, graph_inputs, model_path, runner_input  # noqa: E402


def ort_session(path: str, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def bench_model(name: str, repeats: int) -> dict[str, float]:
    path = model_path(name)
    model = onnx.load(path)
    (vi,) = graph_inputs(model)
    x = runner_input(vi)
    t = time.perf_counter()
    module = import_model(path)
    t_import = time.perf_counter() - t
    t = time.perf_counter()
    fn = graphopt.compile(module, opt_level=2)["main"]
    t_compile = time.perf_counter() - t
    calls = {"graph-opt": lambda: fn(x)}
    try:
        for threads in (1, 2):
            sess = ort_session(path, threads)
            calls[f"ort-{threads}t"] = lambda s=sess: s.run(None, {vi.name: x})
    except ImportError:
        pass
    for call in calls.values():  # warm up
        call()
    times: dict[str, list[float]] = {k: [] for k in calls}
    order = list(calls)
    for _ in range(repeats):
        random.shuffle(order)
        for k in order:
            t = time.perf_counter()
            calls[k]()
            times[k].append(time.perf_counter() - t)
            time.sleep(0.05)
    out = {"import": t_import, "compile": t_compile}
    out.update({k: statistics.median(v) for k, v in times.items()})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(NAMES), help="comma-separated light model names")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    names = [n for n in args.models.split(",") if n]
    print(f"{'model':14}{'import s':>10}{'compile s':>11}{'graph-opt ms':>14}{'ort 1t ms':>11}"
          f"{'ort 2t ms':>11}{'vs 1t':>8}{'vs 2t':>8}")
    for name in names:
        r = bench_model(name, args.repeats)
        g = r["graph-opt"] * 1e3
        o1, o2 = r.get("ort-1t", float("nan")) * 1e3, r.get("ort-2t", float("nan")) * 1e3
        print(f"{name:14}{r['import']:>10.2f}{r['compile']:>11.1f}{g:>14.1f}{o1:>11.1f}{o2:>11.1f}"
              f"{o1 / g:>7.2f}x{o2 / g:>7.2f}x", flush=True)
    print("vs Nt: onnxruntime time / graph-opt time (above 1: graph-opt is faster)")


if __name__ == "__main__":
    main()
