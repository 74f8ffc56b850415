"""Parse throughput of graph-opt's located parser, by file size.

Prints ops/s and MB/s for graph-level files of growing size; linear parsing
keeps the throughput flat (the old per-op newline count made it fall as the
file grew: a 200,000-op file took 680 s).  CPU time, median of interleaved
repeats.

    python benchmarks/parse.py [--sizes 10000,50000,100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from graphopt.plugins import project_context
from graphopt.diagnostics import LocatedParser


def graph_file(n: int) -> str:
    """A chain of ``n`` graph ops over a small tensor."""
    ops = ["  %v0 = graph.exp %x : tensor<4x8xf32>"]
    ops += [
        f"  %v{i} = graph.add %v{i - 1}, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>"
        if i % 2
        else f"  %v{i} = graph.tanh %v{i - 1} : tensor<4x8xf32>"
        for i in range(1, n)
    ]
    return (
        "func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
        + "\n".join(ops)
        + f"\n  func.return %v{n - 1} : tensor<4x8xf32>\n}}\n"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,50000,100000")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    texts = {n: graph_file(n) for n in sizes}
    times: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(args.repeats):  # interleaved: load drifts hit every size alike
        for n in sizes:
            ctx = project_context()
            start = time.process_time()
            LocatedParser(ctx, texts[n], "bench.mlir").parse_module()
            times[n].append(time.process_time() - start)
    print(f"parse throughput (CPU time, median of {args.repeats})")
    print(f"{'ops':>9} {'MB':>7} {'seconds':>9} {'ops/s':>9} {'MB/s':>7}")
    for n in sizes:
        secs = statistics.median(times[n])
        mb = len(texts[n]) / 1e6
        print(f"{n:>9} {mb:>7.2f} {secs:>9.2f} {n / secs:>9.0f} {mb / secs:>7.2f}")


if __name__ == "__main__":
    main()
