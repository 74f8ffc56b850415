"""graph-import: an ONNX model as graph-level IR.

    graph-import model.onnx [-o model.mlir] [--input-shape NAME=1x3x224x224 ...]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from graphopt import __version__
from graphopt.tools.diagnostics import report


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
    out = open(args.output, "w") if args.output else sys.stdout
    try:
        Printer(stream=out, print_debuginfo=args.print_debuginfo).print_op(module)
        out.write("\n")
    finally:
        if args.output:
            out.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except BaseException as err:  # noqa: BLE001 - one diagnostic, never a traceback
        return report("graph-import", err)


if __name__ == "__main__":
    sys.exit(main())
