"""The onnx package's light models with dense weights, graph-opt built for
one or more targets against onnxruntime, at one thread, in one process.

Each model's ``ConstantOfShape`` weights are replaced by seeded random
dense ones (``tests/conformance/light_models.py``: ``with_random_weights``),
the input is what onnx's runner feeds.  graph-opt compiles at -O3 for each
``--target-cpu`` (``host,haswell``: this machine's AVX-512 and an AVX2
build, which an AVX-512 host also runs); its output is checked against
onnxruntime's.  The contenders are timed interleaved (``harness.measure``:
CPU time per call, medians of ``--repeats``); onnxruntime runs its own
kernels for the host, whatever graph-opt's target.  The last lines give
each build's geometric mean and largest ratio to onnxruntime.

Run: ``python benchmarks/onnx_targets.py [--target-cpu host,haswell] [--models vgg19,resnet50] [--repeats 7]``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "conformance"))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from light_models import NAMES, graph_inputs, model_path, runner_input, with_random_weights  # noqa: E402

import graphopt  # noqa: E402
from graphopt.frontends.onnx import import_model  # noqa: E402
from graphopt.target import Target  # noqa: E402

#: Wall time of the steady calls of one sample.
SAMPLE_S = 0.2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target-cpu", default="host,haswell", help="graph-opt's target CPUs, comma-separated")
    parser.add_argument("--models", default=",".join(NAMES))
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    targets = {cpu: Target.from_options(cpu=cpu) for cpu in args.target_cpu.split(",")}
    print(f"host: {Target.host().describe()}")
    for cpu, target in targets.items():
        print(f"graph-opt for {cpu}: {target.describe()}")
    print("onnxruntime: its own kernels for the host's CPU, one thread; CPU ms per call, medians\n")
    ratios: dict[str, list[float]] = {cpu: [] for cpu in targets}
    print(f"{'model':14}" + "".join(f"{cpu:>18}" for cpu in targets) + f"{'onnxruntime':>14}  compile -O3, CPU s")
    for name in args.models.split(","):
        model = with_random_weights(onnx.load(model_path(name)))
        (vi,) = graph_inputs(model)
        x = runner_input(vi)
        module = import_model(model)
        session = harness.ort_session(model.SerializeToString(), 1)
        ref = session.run(None, {vi.name: x})[0]
        contenders, compile_s = [], []
        for cpu, target in targets.items():
            t0 = time.process_time()
            fn = graphopt.compile(module, opt_level=3, target=target, num_threads=1)["main"]
            compile_s.append(time.process_time() - t0)
            err = float(np.max(np.abs(fn(x) - ref)) / np.max(np.abs(ref)))
            assert err < 1e-3, f"{name} for {cpu} differs from onnxruntime by {err:.1e}"
            contenders.append(harness.Contender(cpu, 1, lambda fn=fn: fn(x)))
        contenders.append(harness.Contender("onnxruntime", 1, harness.ort_call(session, [x])))
        harness.measure(contenders, args.repeats, min_sample_s=SAMPLE_S)
        ort = contenders[-1].cpu_s
        cells = ""
        for c in contenders[:-1]:
            ratios[c.system].append(c.cpu_s / ort)
            cells += f"{1e3 * c.cpu_s:10.2f} ({c.cpu_s / ort:4.2f}x)"
        print(f"{name:14}{cells}{1e3 * ort:14.2f}  " + ", ".join(f"{s:.1f}" for s in compile_s), flush=True)
    for cpu, r in ratios.items():
        geomean = math.exp(sum(map(math.log, r)) / len(r))
        print(f"graph-opt for {cpu}: geomean {geomean:.2f}x onnxruntime, largest {max(r):.2f}x")


if __name__ == "__main__":
    main()
