"""``graph-compile``: a graph-level model to a shared library and a C header.

    graph-compile examples/mlp.mlir -O2 -o libmlp.so      # also writes libmlp.h
    graph-compile model.mlir -o libm.so --header model.h -p 'canonicalize'
    graph-compile model.mlir -o model.o --target-cpu=haswell    # an object file
    graph-compile model.mlir -o model.o --target-triple=aarch64-unknown-linux-gnu

An output ending in ``.o`` is an object file (to link into a program with
``-lm``, and ``-lgomp`` when it has parallel loops), for any target LLVM
knows; a shared library is linked by the system C compiler, so only for
this machine's architecture.

The model goes through ``graphopt.compile``'s pass pipeline with every
constant embedded in the library (see ``graphopt.runtime.aot``); the header
declares each driver with its argument shapes and dtypes and its workspace
size.  A model with parallel loops links libgomp (``-lgomp``) and exports
``int32_t graphopt_num_threads``: the thread count, ``--threads N`` or else
0, libgomp's default (``OMP_NUM_THREADS``, or every core); the program may
set it before a call.  Errors are one diagnostic and exit status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from graphopt.diagnostics import run_tool
from graphopt.tools.cli import add_target_arguments, target_from_arguments


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graph-compile", description="Compile a graph-level .mlir model to a shared library and a C header."
    )
    parser.add_argument("input", help="the .mlir model")
    parser.add_argument("-o", "--output", required=True,
                        help="the shared library to write (e.g. libmodel.so), or an object file (model.o)")
    parser.add_argument("--header", help="the C header to write (default: the library's name with .h)")
    parser.add_argument("-O", dest="opt_level", default="2", metavar="LEVEL", help="optimization level 0-3 (default 2)")
    parser.add_argument("-p", "--passes", default="", help="extra passes after the -O pipeline")
    parser.add_argument("--threads", type=_threads, default=None, metavar="N",
                        help="threads for the parallel loops (default 0: libgomp's default)")
    add_target_arguments(parser)
    return parser


def _threads(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a thread count >= 1, got '{text}'")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    def body() -> int:
        from graphopt.runtime.aot import compile_library

        args = build_parser().parse_args(argv)
        header = args.header or str(Path(args.output).with_suffix(".h"))
        compile_library(
            args.input, args.output, header, pipeline=args.passes, opt_level=args.opt_level,
            num_threads=args.threads, target=target_from_arguments(args),
        )  # fmt: skip
        return 0

    return run_tool("graph-compile", body)


if __name__ == "__main__":
    sys.exit(main())
