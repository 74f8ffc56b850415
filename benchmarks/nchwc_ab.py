"""A/B of the ``layout-nchwc`` pass: a model compiled at -O3 with and without
it, in one process, checked against each other and timed interleaved (CPU
time per call at 1 thread, wall at 2), with onnxruntime alongside.

    python benchmarks/nchwc_ab.py [--models resnet50,mobilenet_v2] [--repeats 7]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import graphopt  # noqa: E402
import harness  # noqa: E402
from models import MODELS  # noqa: E402
from onnx_export import export  # noqa: E402
from resnet50 import dense_weights  # noqa: E402

from graphopt.transforms.pipelines import pipeline_passes  # noqa: E402

SAMPLE_S = 0.3


def spec(with_pass: bool) -> str:
    passes = [p for p in pipeline_passes("O3") if p != "layout-nchwc"]
    if with_pass:
        passes.insert(passes.index("fold-constants"), "layout-nchwc")
    return ",".join(passes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--models", default="resnet50,mobilenet_v2")
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    rng = np.random.default_rng(0)
    for name in args.models.split(","):
        module = dense_weights(MODELS[name]())
        image = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
        compiled, outs = {}, {}
        for variant in ("nchw", "nchwc"):
            t0 = time.process_time()
            compiled[variant] = graphopt.compile(module, spec(variant == "nchwc"))
            print(f"{name} {variant}: compile {time.process_time() - t0:.2f} CPU s", flush=True)
            outs[variant] = compiled[variant][name](image)
        session = {t: harness.ort_session(export(module), t) for t in threads}
        ref = session[threads[0]].run(None, {session[threads[0]].get_inputs()[0].name: image})[0]
        for variant, out in outs.items():
            err = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
            print(f"{name} {variant}: max |diff| / max |ort| = {err:.1e}")
            assert err < 1e-3
        contenders = []
        for t in threads:
            for variant, c in compiled.items():
                contenders.append(harness.Contender(f"graph-opt {variant}", t, harness.graph_opt_call(c, c[name], t, [image])))
            contenders.append(harness.Contender("onnxruntime", t, harness.ort_call(session[t], [image])))
        harness.measure(contenders, args.repeats, min_sample_s=SAMPLE_S)
        for c in contenders:
            print(f"{name:14}{c.system:18}{c.threads:>3}  CPU {c.cpu_s * 1e3:8.2f} ms  wall {c.wall_s * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
