"""fuse-ops: kernels, intermediate bytes and latency, unfused vs fused vs numpy.

Workloads: examples/mlp.mlir, examples/resnet_block.mlir (as written, and
with its batch_norms folded into the convs first: ``+fbn``),
examples/transformer_block.mlir and the 8-op elementwise chain of
examples/elementwise.mlir scaled to 2^22 f32 elements (1024x4096).

For each: the number of kernels and the bytes of intermediates that go
through memory, without fusion (every op its own kernel) and after
``fuse-ops``; then the median latency of the unfused and fused compiled code
and of numpy eager (the reference interpreter for the models, hand-written
numpy for the chain).

Run: ``python benchmarks/fusion.py [--repeats 9]``
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from math import prod
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

import graphopt
from graphopt.dialects.fused import GroupOp
from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph import GraphOp, numpy_dtype
from graphopt.runtime.compile import parse_file, parse_text, run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.tools.graph_run import median_seconds

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def chain_module(rows: int = 1024, cols: int = 4096) -> ModuleOp:
    text = (EXAMPLES / "elementwise.mlir").read_text()
    text = text.replace("64x64xf32", f"{rows}x{cols}xf32").replace("tensor<64xf32>", f"tensor<{cols}xf32>")
    return parse_text(text, "elementwise.mlir")


def folded(module: ModuleOp) -> ModuleOp:
    """batch_norm folded into the convs first (what -O3 does before fusing)."""
    run_pipeline(module, "fold-batch-norm,fold-constants,canonicalize,dce")
    return module


def numpy_chain(x, b, c, d):
    t1 = (x + b) * np.float32(0.5)
    t3 = np.maximum(t1, np.float32(0.0)) - c
    return (np.maximum(t3 * t3, x) + np.float32(1.0)) / d


def kernels_and_bytes(module: ModuleOp) -> tuple[int, int]:
    """Kernels (groups and bare ops) and bytes of their results that are
    intermediates: written by one kernel, read back by another."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    returned = set(fn.body.block.last_op.operands)
    kernels = 0
    nbytes = 0
    for op in fn.body.block.ops:
        if isinstance(op, ConstantOp) or not isinstance(op, (GraphOp, GroupOp)):
            continue
        kernels += 1
        for r in op.results:
            if r.uses and r not in returned and isinstance(r.type, TensorType):
                nbytes += prod(r.type.get_shape()) * numpy_dtype(r.type.element_type).itemsize
    return kernels, nbytes


def inputs_for(module: ModuleOp, rng: np.random.Generator) -> list[np.ndarray]:
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    out = []
    for t in fn.function_type.inputs.data:
        assert isinstance(t, TensorType)
        a = rng.standard_normal(t.get_shape()).astype(numpy_dtype(t.element_type))
        out.append(a)
    return out


def run(name: str, module: ModuleOp, eager: Callable | None, repeats: int, rng) -> dict:
    fn_name = next(op for op in module.ops if isinstance(op, func.FuncOp)).sym_name.data
    inputs = inputs_for(module, rng)
    if name == "elementwise chain":
        inputs[3] = np.abs(inputs[3]) + np.float32(0.5)  # a divisor away from 0
    fused_module = module.clone()
    run_pipeline(fused_module, "fuse-ops")
    unfused = graphopt.compile(module)[fn_name]
    fused = graphopt.compile(fused_module)[fn_name]
    want = interpret(module, *inputs)[0]
    for f in (unfused, fused):
        got = f(*inputs)
        got = got[0] if isinstance(got, tuple) else got
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
    eager = eager or (lambda *a: interpret(module, *a))
    k0, b0 = kernels_and_bytes(module)
    k1, b1 = kernels_and_bytes(fused_module)
    return {
        "name": name,
        "kernels": (k0, k1),
        "bytes": (b0, b1),
        "unfused": median_seconds(lambda: unfused(*inputs), repeats),
        "fused": median_seconds(lambda: fused(*inputs), repeats),
        "numpy": median_seconds(lambda: eager(*inputs), repeats),
    }


def fmt_bytes(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    workloads = [
        ("mlp", parse_file(EXAMPLES / "mlp.mlir"), None),
        ("resnet_block", parse_file(EXAMPLES / "resnet_block.mlir"), None),
        ("resnet_block+fbn", folded(parse_file(EXAMPLES / "resnet_block.mlir")), None),
        ("transformer_block", parse_file(EXAMPLES / "transformer_block.mlir"), None),
        ("elementwise chain", chain_module(), numpy_chain),
    ]
    rows = [run(name, m, eager, args.repeats, rng) for name, m, eager in workloads]
    print(f"fuse-ops benchmark, median of {args.repeats} (times in ms)")
    header = (
        f"{'workload':<18} {'kernels':>9} {'intermediates':>21} "
        f"{'unfused':>9} {'fused':>9} {'numpy':>9} {'fused/unfused':>14}"
    )
    print(header)
    for r in rows:
        k0, k1 = r["kernels"]
        b0, b1 = r["bytes"]
        inter = f"{fmt_bytes(b0)} -> {fmt_bytes(b1)}"
        print(
            f"{r['name']:<18} {f'{k0} -> {k1}':>9} {inter:>21} "
            f"{r['unfused'] * 1e3:>9.3f} {r['fused'] * 1e3:>9.3f} {r['numpy'] * 1e3:>9.3f} "
            f"{r['unfused'] / r['fused']:>13.2f}x"
        )
    chain = rows[-1]
    print(
        f"elementwise chain: fused is {chain['unfused'] / chain['fused']:.2f}x faster than "
        f"unfused (target >= 1.5x) and {chain['numpy'] / chain['fused']:.2f}x faster than numpy"
    )


if __name__ == "__main__":
    main()
