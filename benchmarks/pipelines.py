"""-O0 vs -O2 on every example: graph op count, kernels, latency, agreement.

For each ``examples/*.mlir`` it runs the graph-level pipeline of both levels
(op count = ``graph.*`` ops left, fused groups counted as their ops; kernels =
``fused.group`` ops, or graph ops when nothing was fused), compiles both, times
the median call on random inputs and checks the two agree.

Run: ``python benchmarks/pipelines.py [--repeats 50] [--examples DIR]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

import graphopt
from graphopt.dialects.graph import numpy_dtype
from graphopt.runtime.compile import parse_file, run_pipeline
from graphopt.transforms.pipelines import pipeline_spec
from graphopt.tools.graph_run import median_seconds

ROOT = Path(__file__).resolve().parents[1]


def counts(module: ModuleOp) -> tuple[int, int]:
    graph_ops = sum(1 for op in module.walk() if op.name.startswith("graph."))
    groups = sum(1 for op in module.walk() if op.name == "fused.group")
    return graph_ops, groups or graph_ops


def inputs_for(fn: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    arrays = []
    for t in fn.function_type.inputs.data:
        assert isinstance(t, TensorType)
        dtype = numpy_dtype(t.element_type)
        shape = tuple(t.get_shape())
        if dtype.kind == "f":
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            arrays.append(rng.random(shape) < 0.5)
        else:
            arrays.append(rng.integers(0, 4, shape).astype(dtype))
    return arrays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--examples", type=Path, default=ROOT / "examples")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"-O0 vs -O2, median of {args.repeats} calls (O2 = {pipeline_spec(2)})")
    print(f"{'example':<24}{'ops O0':>8}{'ops O2':>8}{'kern O0':>9}{'kern O2':>9}"
          f"{'O0 ms':>10}{'O2 ms':>10}{'speed-up':>10}  agree")
    for path in sorted(args.examples.glob("*.mlir")):
        module = parse_file(path)
        fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
        name = fn.sym_name.data
        inputs = inputs_for(fn, rng)
        row = {}
        for level in (0, 2):
            opt = module.clone()
            run_pipeline(opt, pipeline_spec(level))
            compiled = graphopt.compile(module, opt_level=level)[name]
            out = compiled(*inputs)
            out = list(out) if isinstance(out, tuple) else [out]
            row[level] = (*counts(opt), 1e3 * median_seconds(lambda: compiled(*inputs), args.repeats), out)
        agree = all(
            np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
            for a, b in zip(row[0][3], row[2][3])
        )
        (o0, k0, t0, _), (o2, k2, t2, _) = row[0], row[2]
        print(f"{path.name:<24}{o0:>8}{o2:>8}{k0:>9}{k2:>9}{t0:>10.4f}{t2:>10.4f}"
              f"{t0 / t2:>9.2f}x  {'yes' if agree else 'NO'}")


if __name__ == "__main__":
    main()
