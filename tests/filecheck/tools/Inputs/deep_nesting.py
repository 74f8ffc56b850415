"""Write deeply nested IR: python deep_nesting.py modules|loops|attrs N OUT."""

import sys

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if kind == "modules":
    text = "builtin.module {\n" * n + "}\n" * n
elif kind == "loops":
    lines = [
        "func.func @f(%m: memref<4xf32>) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c4 = arith.constant 4 : index",
    ]
    lines += [" " * (i + 2) + f"scf.for %i{i} = %c0 to %c4 step %c1 {{" for i in range(n)]
    lines += [" " * (i + 2) + "}" for i in reversed(range(n))]
    lines += ["  func.return", "}"]
    text = "\n".join(lines) + "\n"
else:
    text = "func.func @f() attributes {a = " + "[" * n + "]" * n + "} {\n  func.return\n}\n"
with open(out, "w") as f:
    f.write(text)
