"""Fusion on an elementwise chain: one fused kernel vs 8 kernels vs numpy.

Workload: 8 elementwise and broadcast ops over a 4096x4096 f32 tensor (2^24
elements).  Prints, in one run, the median time and the bytes each variant
moves through memory:

* ``fused``    -- the chain as ONE hand-written ``fused.group``: one kernel;
* ``unfused``  -- the same ops as 8 separate kernels (every intermediate is
  written to and read back from the workspace);
* ``numpy``    -- numpy eager, one temporary per op.

Run: ``python benchmarks/elementwise.py [--size-log2 24] [--repeats 7]``
"""

from __future__ import annotations

import argparse

import numpy as np

import graphopt
from graphopt.runtime.compile import parse_text
from graphopt.tools.graph_run import median_seconds

CHAIN = [
    # (result, op, lhs, rhs)
    ("t0", "add", "x", "b"),  # broadcast row vector
    ("t1", "mul", "t0", "half"),  # splat
    ("t2", "maximum", "t1", "zero"),  # relu via splat
    ("t3", "sub", "t2", "c"),  # broadcast
    ("t4", "mul", "t3", "t3"),
    ("t5", "maximum", "t4", "x"),
    ("t6", "add", "t5", "one"),  # splat
    ("t7", "div", "t6", "d"),  # broadcast
]


def chain_ir(rows: int, cols: int, fused: bool) -> str:
    full = f"tensor<{rows}x{cols}xf32>"
    row = f"tensor<{cols}xf32>"
    types = {"x": full, "b": row, "c": row, "d": row}
    lines = [f"func.func @chain(%x: {full}, %b: {row}, %c: {row}, %d: {row}) -> {full} {{"]
    ind = "  "
    splats = {"half": 0.5, "zero": 0.0, "one": 1.0}
    if fused:
        lines.append(
            f'  %out = fused.group "chain" pattern(broadcast) (%gx = %x : {full}, %gb = %b : {row}, '
            f"%gc = %c : {row}, %gd = %d : {row}) -> ({full}) {{"
        )
        ind = "    "
    pre = "g" if fused else ""
    for name, value in splats.items():
        lines.append(f"{ind}%{name} = graph.constant splat {value} : {full}")
        types[name] = full

    def ref(v: str) -> str:
        return f"%{pre}{v}" if v in ("x", "b", "c", "d") else f"%{v}"

    for res, op, lhs, rhs in CHAIN:
        lines.append(
            f"{ind}%{res} = graph.{op} {ref(lhs)}, {ref(rhs)} : ({types[lhs]}, {types[rhs]}) -> {full}"
        )
        types[res] = full
    if fused:
        lines.append(f"    fused.yield %t7 : {full}")
        lines.append("  }")
        lines.append(f"  func.return %out : {full}")
    else:
        lines.append(f"  func.return %t7 : {full}")
    lines.append("}")
    return "\n".join(lines)


def numpy_chain(x, b, c, d):
    t0 = x + b
    t1 = t0 * np.float32(0.5)
    t2 = np.maximum(t1, np.float32(0.0))
    t3 = t2 - c
    t4 = t3 * t3
    t5 = np.maximum(t4, x)
    t6 = t5 + np.float32(1.0)
    return t6 / d


def bytes_moved(rows: int, cols: int) -> dict[str, int]:
    full, row = rows * cols * 4, cols * 4
    # Per op: bytes read (non-splat operands) + bytes written.
    per_op = {
        "add": full + row + full,
        "mul_splat": full + full,
        "max_splat": full + full,
        "sub": full + row + full,
        "mul": full + full,  # t3 * t3 reads one tensor
        "maximum": 2 * full + full,
        "add_splat": full + full,
        "div": full + row + full,
    }
    eager = sum(per_op.values())
    return {"fused": full + 3 * row + full, "unfused": eager, "numpy": eager}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-log2", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    n = 1 << args.size_log2
    cols = 4096 if n >= 4096 * 4 else max(1, n // 4)
    rows = n // cols
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    b, c = (rng.standard_normal(cols).astype(np.float32) for _ in range(2))
    d = (rng.random(cols) + 0.5).astype(np.float32)

    fused = graphopt.compile(parse_text(chain_ir(rows, cols, True)))["chain"]
    unfused = graphopt.compile(parse_text(chain_ir(rows, cols, False)))["chain"]
    want = numpy_chain(x, b, c, d)
    for name, fn in (("fused", fused), ("unfused", unfused)):
        np.testing.assert_allclose(fn(x, b, c, d), want, rtol=1e-5, atol=1e-5, err_msg=name)

    times = {
        "fused": median_seconds(lambda: fused(x, b, c, d), args.repeats),
        "unfused": median_seconds(lambda: unfused(x, b, c, d), args.repeats),
        "numpy": median_seconds(lambda: numpy_chain(x, b, c, d), args.repeats),
    }
    moved = bytes_moved(rows, cols)
    print(f"8-op elementwise chain over {rows}x{cols} f32 ({n} elements), median of {args.repeats}")
    print(f"{'variant':10}{'kernels':>8}{'time ms':>10}{'MB moved':>10}{'GB/s':>8}{'vs numpy':>10}")
    kernels = {"fused": 1, "unfused": 8, "numpy": 8}
    for name in ("fused", "unfused", "numpy"):
        t = times[name]
        print(
            f"{name:10}{kernels[name]:>8}{t * 1e3:>10.2f}{moved[name] / 1e6:>10.0f}"
            f"{moved[name] / t / 1e9:>8.1f}{times['numpy'] / t:>9.2f}x"
        )
    print(f"fused / numpy speed-up: {times['numpy'] / times['fused']:.2f}x (target >= 3x)")
    print(f"fused / unfused speed-up: {times['unfused'] / times['fused']:.2f}x")


if __name__ == "__main__":
    main()
