"""The onnx package's light models with dense weights: graph-opt against
onnxruntime at 1 and 2 threads, on the same .onnx file, in one run.

Each ``light_<name>.onnx`` builds its weights with ``ConstantOfShape`` (every
weight 0.02): a kernel can cheat on a splat weight, and real models have none.
Each is rewritten with dense seeded weights (:func:`dense_weights`: He-scaled
normal conv and matmul weights, positive batch-norm scales and variances)
and saved to one file that both engines load.  graph-opt compiles it at -O3
for each target of ``--target-cpu`` (comma-separated, default ``host``; an
AVX2 build beside the host's on an AVX-512 machine: ``--target-cpu
host,haswell``) with ``--target-features``, each build a row against the
same onnxruntime sessions; onnxruntime always runs its own best kernels
for this machine.

Timing as in ``kernels.py`` and ``resnet50.py`` (``harness.py``): the
contenders interleaved, each sample a warm-up call and then the steady
calls; CPU time at one thread, wall time at two; medians.  The output
difference is the largest absolute difference to onnxruntime's output over
its largest magnitude.  The targets checked ("met" / "not met", per build):
geomean at one thread <= 1.2x onnxruntime, no model above 1.5x, and no model
slower at 2 threads than at 1.

Run: ``python benchmarks/onnx_models.py [--models vgg19,resnet50] [--repeats 5]
[--target-cpu host,haswell] [--realtime]`` (needs the ``bench`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance"))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

import graphopt  # noqa: E402
from graphopt.target import Target  # noqa: E402
from light_models import NAMES, graph_inputs, model_path, runner_input  # noqa: E402


def dense_weights(model: onnx.ModelProto, seed: int = 0) -> onnx.ModelProto:
    """``model`` with every ``ConstantOfShape`` weight replaced by a dense
    seeded initializer, chosen by what reads it (as ``resnet50.py`` does):
    conv and Gemm weights He-scaled normal, ``sqrt(2 / fan_in)``; batch-norm
    variances uniform in [0.5, 1.5] and scales in [0.3, 0.7] (positive; a
    residual network's activations then stay within a few hundred instead
    of growing to 1e5 over its blocks, and its softmax is not one-hot);
    batch-norm shifts and means and every bias ``N(0, 0.1)``."""
    rng = np.random.default_rng(seed)
    shapes = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    readers: dict[str, tuple[str, int]] = {}
    for node in model.graph.node:
        if node.op_type == "Constant":
            shapes[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
        for i, name in enumerate(node.input):
            readers.setdefault(name, (node.op_type, i))
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            shape = [int(d) for d in shapes[node.input[0]]]
            reader = readers.get(node.output[0], ("", 0))
            if len(shape) >= 2:  # conv [O, C, KH, KW]; Gemm's transB weight [N, K]
                w = rng.standard_normal(shape) * math.sqrt(2.0 / max(math.prod(shape[1:]), 1))
            elif reader[0] == "BatchNormalization" and reader[1] == 1:  # scale
                w = rng.uniform(0.3, 0.7, shape)
            elif reader[0] == "BatchNormalization" and reader[1] == 4:  # variance
                w = rng.uniform(0.5, 1.5, shape)
            else:  # batch-norm shift and mean, biases
                w = rng.standard_normal(shape) * 0.1
            out.graph.initializer.append(numpy_helper.from_array(w.astype(np.float32), node.output[0]))
        else:
            out.graph.node.append(node)
    # the weights' shapes, which only ConstantOfShape read, go (with their
    # graph inputs, as an old IR version lists initializers)
    read = {name for node in out.graph.node for name in node.input} | {o.name for o in out.graph.output}
    unread = {t.name for t in out.graph.initializer if t.name not in read}
    for field in (out.graph.initializer, out.graph.input):
        kept = [v for v in field if v.name not in unread]
        del field[:]
        field.extend(kept)
    return out


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def bench_model(name: str, builds: dict[str, Target], repeats: int, folder: str) -> dict:
    model = dense_weights(onnx.load(model_path(name)))
    path = os.path.join(folder, f"{name}.onnx")
    onnx.save(model, path)
    (vi,) = graph_inputs(model)
    x = runner_input(vi)
    result: dict = {"name": name, "builds": {}}
    sessions = {t: harness.ort_session(path, t) for t in harness.THREADS}
    reference = sessions[1].run(None, {vi.name: x})[0]
    contenders = [harness.Contender("onnxruntime", t, harness.ort_call(s, [x])) for t, s in sessions.items()]
    for build, target in builds.items():
        c0 = time.process_time()
        compiled = graphopt.compile(path, opt_level=3, target=target)
        compile_s = time.process_time() - c0
        fn = compiled["main"]
        got = fn(x)
        diff = float(np.max(np.abs(got - reference)) / max(float(np.max(np.abs(reference))), 1e-30))
        result["builds"][build] = {"compile_s": compile_s, "diff": diff}
        contenders += [harness.Contender(build, t, harness.graph_opt_call(compiled, fn, t, [x])) for t in harness.THREADS]
    harness.measure(contenders, repeats, min_sample_s=0.05)
    times = {(c.system, c.threads): c.basis_s for c in contenders}
    result["ort"] = {t: times[("onnxruntime", t)] for t in harness.THREADS}
    for build in builds:
        r = result["builds"][build]
        r.update({t: times[(build, t)] for t in harness.THREADS})
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(NAMES), help=f"comma-separated light models (default: all: {','.join(NAMES)})")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--target-cpu", default="host",
                   help="graph-opt's target CPU(s), comma-separated, LLVM's names (default: host; e.g. host,haswell)")
    p.add_argument("--target-features", help="LLVM features added or removed for every build (e.g. -avx512f)")
    p.add_argument("--realtime", action="store_true", help="time at real-time priority (root)")
    args = p.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        raise SystemExit(f"unknown model(s) {', '.join(unknown)}; the light models are {', '.join(NAMES)}")
    host = Target.host()
    cpus = [c for c in args.target_cpu.split(",") if c]
    suffix = f",{args.target_features}" if args.target_features else ""
    builds = {(f"graph-opt {cpu}{suffix}" if len(cpus) > 1 or cpu != "host" or suffix else "graph-opt"):
              Target.from_options(cpu, args.target_features) for cpu in cpus}  # fmt: skip
    print(f"host: {host.describe()}")
    for build, target in builds.items():
        print(f"build {build}: {target.describe()}")
    print("onnxruntime runs its own kernels for this host; weights dense (seeded), "
          "CPU time at 1 thread, wall at 2; medians of interleaved repeats")  # fmt: skip
    harness.realtime(args.realtime)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        head = f"{'model':13}{'build':24}{'compile s':>10}{'1T ms':>10}{'ort 1T':>10}{'vs ort':>8}" \
               f"{'2T ms':>10}{'ort 2T':>10}{'vs ort':>8}{'2T/1T':>7}{'out diff':>10}"  # fmt: skip
        print(head)
        for name in names:
            r = bench_model(name, builds, args.repeats, folder)
            rows.append(r)
            o1, o2 = r["ort"][1], r["ort"][2]
            for build, b in r["builds"].items():
                print(f"{name:13}{build:24}{b['compile_s']:>10.1f}{b[1] * 1e3:>10.1f}{o1 * 1e3:>10.1f}{b[1] / o1:>7.2f}x"
                      f"{b[2] * 1e3:>10.1f}{o2 * 1e3:>10.1f}{b[2] / o2:>7.2f}x{b[1] / b[2]:>6.2f}x{b['diff']:>10.1e}", flush=True)  # fmt: skip
    harness.realtime(False)
    print("vs ort: graph-opt time / onnxruntime time (below 1: graph-opt is faster); 2T/1T: speed-up of 2 threads")
    for build in builds:
        ratios = {r["name"]: r["builds"][build][1] / r["ort"][1] for r in rows}
        scaling = {r["name"]: r["builds"][build][1] / r["builds"][build][2] for r in rows}
        g = geomean(list(ratios.values()))
        worst = max(ratios, key=ratios.get)
        slowest = min(scaling, key=scaling.get)
        print(f"targets ({build}, {builds[build].vector_isa}, {len(rows)} models):")
        print(f"  geomean at 1 thread <= 1.2x onnxruntime: {harness.met(g <= 1.2)} ({g:.2f}x)")
        print(f"  no model above 1.5x at 1 thread: {harness.met(ratios[worst] <= 1.5)} "
              f"(worst {worst} {ratios[worst]:.2f}x)")
        print(f"  no model slower at 2 threads than at 1: {harness.met(scaling[slowest] >= 1.0)} "
              f"(least speed-up {slowest} {scaling[slowest]:.2f}x)")


if __name__ == "__main__":
    main()
