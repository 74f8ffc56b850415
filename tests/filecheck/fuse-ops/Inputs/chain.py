"""Prints a graph function holding a chain of N elementwise ops (default 300).

Usage: chain.py [N] [NAME]; used by depth-limit.mlir and test_fusion.py.
"""

import sys

OPS = ("neg", "tanh", "relu", "sigmoid")


def chain(n: int, name: str = "chain", shape: str = "tensor<4x8xf32>") -> str:
    lines = [f"func.func @{name}(%x: {shape}) -> {shape} {{"]
    prev = "%x"
    for i in range(n):
        lines.append(f"  %v{i} = graph.{OPS[i % len(OPS)]} {prev} : {shape}")
        prev = f"%v{i}"
    lines.append(f"  func.return {prev} : {shape}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    sys.stdout.write(chain(n, sys.argv[2] if len(sys.argv) > 2 else "chain"))
