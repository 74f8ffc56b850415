"""graph-import: an ONNX model as graph-level IR.

    graph-import model.onnx [-o model.mlir] [--input-shape NAME=1x3x224x224 ...]
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from graphopt import __version__
from graphopt.output_files import write_output
from graphopt.diagnostics import run_tool


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="graph-import", description="graph-import: an ONNX model as graph-level IR")
    p.add_argument("file", help="an .onnx model")
    p.add_argument("-o", "--output", metavar="FILE", help="write the IR here (default: stdout)")
    p.add_argument(
        "--input-shape", action="append", default=[], metavar="NAME=D0xD1x...",
        help="the shape of an input with dynamic dimensions; repeatable",
    )
    p.add_argument("--entry", default="main", help="the name of the function (default: main)")
    p.add_argument("--print-debuginfo", action="store_true", help="print locations: loc(\"node name\")")
    p.add_argument("--version", action="version", version=f"graph-import {__version__}")
    return p


def run(argv: Sequence[str] | None) -> int:
    from xdsl.printer import Printer

    from graphopt.frontends.onnx import import_model, parse_input_shapes

    args = build_parser().parse_args(argv)
    module = import_model(args.file, parse_input_shapes(args.input_shape), name=args.entry)
    text = io.StringIO()
    Printer(stream=text, print_debuginfo=args.print_debuginfo).print_op(module)
    text.write("\n")
    write_output(args.output, text.getvalue())  # atomic: a failure leaves -o untouched
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("graph-import", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
