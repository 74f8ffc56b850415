"""``graph-run``: compile a graph-level ``.mlir`` file and run it on numpy data.

    graph-run FILE [--entry NAME] [--inputs in.npz | --random-inputs --seed N]
              [--input NAME=FILE ...] [--output out.npz] [--check] [--bench N]
              [-O LEVEL] [-p PIPELINE]

Inputs are taken by name: an ``.npz`` keyed by input name (or ``arg0``,
``arg1``...), ``--input NAME=FILE`` for one input; the name of an input of an
``.onnx`` model (or of a ``.mlir`` that ``graph-import`` wrote) is its ONNX
name exactly as written in the file (``gpu_0/data_0``), else it is the SSA
name.

It prints a one-line summary of each output.  ``--check`` compares with the
reference interpreter with tolerances that fit the data (see
``graphopt.tools.run_check``: against a float64 reference, allowing a small
multiple of the float32 reference's own error; integers and booleans exactly)
and exits 1 on a mismatch, naming the worst element.  ``--bench N`` prints the
median latency of the compiled code and of the interpreter.  ``-p`` passes run
first (they may create the entry, e.g. autodiff's ``@f_grad``), then the
``-O0`` .. ``-O3`` pipeline, then the lowering and the LLVM compilation.  The
debugging flags are graph-opt's (``--mlir-timing``, ``--mlir-print-ir-*``,
``--load-plugin``); on a terminal, a compile longer than a second shows its
steps on stderr.  ``--output`` is written, atomically, only when the run
succeeds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr

from graphopt import __version__
from graphopt.diagnostics import (
    LocatedParser,
    UserError,
    attach_location,
    run_tool,
    verify_located,
)
from graphopt.dialects import graph
from graphopt.errors import SizeError
from graphopt.input_formats import parse_by_content
from graphopt.lowering.kernel_emitter import LoweringError
from graphopt.output_files import write_output
from graphopt.plugins import available_passes, project_context
from graphopt.runtime.reference import InputError, ReferenceInterpreter, find_function
from graphopt.tools.cli import (
    ArgumentParser,
    Instrumentation,
    Progress,
    Timing,
    add_debug_arguments,
    add_target_arguments,
    apply_target_arguments,
    build_pipeline,
)
from graphopt.tools.printing import printer_for
from graphopt.tools.run_inputs import check_sizes, input_keys, load_inputs, named_inputs, random_inputs
from graphopt.tools.run_check import compare, computes_in_f32, float64_reference
from graphopt.transforms.pipelines import (
    PipelineError,
    expand_named_pipelines,
    normalize_level,
    pipeline_spec,
    with_lowering,
)

LOWERING_PASSES = ("lower-graph-to-loop", "lower-loop-to-llvm")


# -- output and timing -----------------------------------------------------------


def summary(index: int, a: np.ndarray) -> str:
    head = f"output {index}: {tuple(a.shape)} {a.dtype}"
    if a.size == 0:
        return head + " (empty)"
    if a.dtype.kind == "b":
        return head + f" true={int(a.sum())}/{a.size}"
    return head + f" min={a.min():.6g} max={a.max():.6g} mean={a.mean(dtype=np.float64):.6g}"


def save_outputs(path: str, outputs: Sequence[np.ndarray]) -> None:
    """``--output``: exactly ``path`` (no ``.npz`` appended), atomically."""
    arrays = {f"out{i}": a for i, a in enumerate(outputs)}
    write_output(path, lambda f: np.savez(f, **arrays))


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls after one warm-up call
    (``--repeat``; the benchmark scripts time with it too)."""
    call()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# -- command line ------------------------------------------------------------------


def _int_at_least(least: int, expected: str) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``>= least``; else ``expected <expected>, got ...``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got '{text}'") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
        return value

    return parse


_non_negative = _int_at_least(0, "a non-negative integer")
_threads = _int_at_least(1, "a thread count >= 1")


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive number of calls, got 0")
    return value


def is_onnx_path(path: str) -> bool:
    """An ``.onnx`` model goes through the ONNX frontend (imported on demand)."""
    return str(path).lower().endswith(".onnx")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="graph-run", description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("file", help="a graph-level .mlir file ('-': stdin) or an .onnx model "
                   "(another extension: read as textual IR if it parses)")
    p.add_argument("--entry", help="the function to run (default: the only public one)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0xD1x...",
                   help="an .onnx input's shape, for its dynamic dimensions; repeatable")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--inputs", metavar="NPZ|DIR", help="inputs (.npz by input name -- an .onnx "
                     "model's ONNX names -- or arg0, arg1, ...; or .npy for a one-argument "
                     "function; for .onnx also a test_data_set directory of input_N.pb, "
                     "compared with its output_N.pb)")
    src.add_argument("--random-inputs", action="store_true", help="random inputs (default; with "
                     "--input, for the inputs it does not give)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                   help="one input by name (an .onnx model's input name as written in the file) "
                   "from an .npy file or a TensorProto .pb; repeatable; overrides --inputs")
    p.add_argument("--seed", type=_non_negative, default=0, help="seed for --random-inputs")
    p.add_argument("--output", metavar="NPZ", help="save the outputs as out0, out1, ... in "
                   "exactly this file (written only if the run succeeds)")
    p.add_argument("--check", action="store_true", help="compare with the reference interpreter")
    p.add_argument("--bench", type=_positive, metavar="N", default=None, help="time N calls of each")
    p.add_argument("--threads", type=_threads, metavar="N", default=None,
                   help="threads for the parallel loops (default: the cores available)")
    p.add_argument("-p", "--passes", action="append", default=[], metavar="PIPELINE",
                   help="graph-level pass pipeline to run first; repeatable (appends)")
    p.add_argument("-O", dest="opt_level", metavar="LEVEL", default=None,
                   help="optimization level 0-3 (-O0 .. -O3), applied after -p")
    p.add_argument("--load-plugin", action="append", default=[], metavar="PATH_OR_MODULE",
                   help="load a plugin (a .py file or a module name); repeatable")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="show compile steps on stderr (auto: on a terminal, after 1 s)")
    add_debug_arguments(p)
    add_target_arguments(p)
    p.add_argument("--version", action="version", version=f"graph-run {__version__}")
    return p


# -- the steps ---------------------------------------------------------------------


def reachable_functions(module: ModuleOp, entry: str) -> set[str]:
    """``entry`` and the functions it refers to (calls), transitively."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    keep, todo = {entry}, [entry]
    while todo:
        fn = functions.get(todo.pop())
        for op in fn.walk() if fn is not None else ():
            for attr in (*op.properties.values(), *op.attributes.values()):
                if isinstance(attr, SymbolRefAttr) and attr.root_reference.data not in keep:
                    keep.add(attr.root_reference.data)
                    todo.append(attr.root_reference.data)
    return keep


class Session:
    """One graph-run: parse, passes, lowering, LLVM compile, run, check."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.ctx = project_context()
        self.timing = Timing() if args.timing else None
        self.progress = Progress("graph-run", args.progress)
        limit = args.elide_larger if args.elide_larger is not None and args.elide_larger >= 0 else None
        self.instrument = Instrumentation(
            args, timing=self.timing, progress=self.progress,
            printer=lambda m, stream: printer_for(stream, limit).print_op(m),
        )

    def timed(self, name: str, start: float, depth: int = 0) -> None:
        self.instrument.step(name, time.perf_counter() - start, depth)

    def parse(self) -> ModuleOp:
        start = time.perf_counter()
        path = self.args.file
        if is_onnx_path(path):
            from graphopt.frontends.onnx import import_model, parse_input_shapes

            module = import_model(path, parse_input_shapes(self.args.input_shape))
            verify_located(module)
            self.timed("import", start)
            return module
        if path == "-":
            data, name = sys.stdin.buffer.read(), "<stdin>"
        else:
            with open(path, "rb") as f:
                data, name = f.read(), path
        module = parse_by_content(name, data, lambda text: LocatedParser(self.ctx, text, name).parse_module())
        verify_located(module)
        self.timed("parse", start)
        return module

    def passes(self, spec: str) -> list:
        try:
            return build_pipeline(available_passes(), expand_named_pipelines(spec))
        except PipelineError as err:
            raise UserError(str(err)) from None

    def level_spec(self) -> str:
        if self.args.opt_level is None:
            return ""
        try:
            return pipeline_spec(normalize_level(f"-O{self.args.opt_level}"))
        except PipelineError as err:
            raise UserError(str(err)) from None

    def run_user_passes(self, module: ModuleOp) -> None:
        """``-p``: graph-level passes only (graph-run lowers afterwards itself)."""
        spec = ",".join(p for p in self.args.passes if p.strip())
        passes = self.passes(spec)
        lowering = [p.name for p in passes if p.name in LOWERING_PASSES]
        if lowering:
            raise UserError(
                f"-p '{spec}' lowers the module ({', '.join(lowering)}), but graph-run "
                "lowers after -p itself; give -p graph-level passes only"
            )
        group = self.timing.begin("-p passes") if self.timing is not None and passes else None
        self.instrument.run(self.ctx, module, passes)
        if group is not None and self.timing is not None:
            self.timing.end(group)

    def compile(self, module: ModuleOp, name: str):
        """The -O pipeline and the lowering, as ``graphopt.compile`` runs them
        (:func:`with_lowering`), then the LLVM compilation of ``module``."""
        from graphopt.runtime.executable import compile_llvm_module
        keep = reachable_functions(module, name)
        for op in list(module.ops):  # compile the entry (and what it refers to) alone
            if isinstance(op, func.FuncOp) and op.sym_name.data not in keep:
                module.body.block.erase_op(op, safe_erase=False)
        timing = self.timing
        group = timing.begin("optimize and lower") if timing is not None else None
        self.instrument.run(self.ctx, module, self.passes(with_lowering(self.level_spec())))
        verify_located(module)
        if group is not None and timing is not None:
            timing.end(group)
        start = time.perf_counter()
        compiled = compile_llvm_module(module, num_threads=self.args.threads)
        self.instrument.step("LLVM compile", time.perf_counter() - start, depth=0)
        if name not in compiled:
            raise UserError(f"@{name} did not compile to a driver (the module has "
                            f"{', '.join(compiled) or 'no drivers'})")
        return compiled[name]


def run(argv: Sequence[str] | None) -> int:
    from graphopt.lowering.graph_to_loop import check_signature
    from graphopt.tools.graph_opt import load_plugins

    raw = list(sys.argv[1:] if argv is None else argv)
    load_plugins(raw, "graph-run")
    args = build_parser().parse_args(raw)
    session = Session(args)
    original = session.parse()
    apply_target_arguments(args, original)
    module = original.clone()
    session.run_user_passes(module)
    fn = find_function(module, args.entry)
    name = fn.sym_name.data
    try:
        check_signature(fn)
    except LoweringError as err:
        raise UserError(str(err)) from None
    check_sizes(fn, arguments=not args.inputs)
    expected_files = None
    given = named_inputs(args.input, fn)
    if args.inputs and is_onnx_path(args.file) and os.path.isdir(args.inputs):  # test_data_set_N/
        from graphopt.frontends.onnx.testdata import load_onnx_inputs

        inputs, expected_files = load_onnx_inputs(args.inputs, fn)
    elif args.inputs:
        inputs = load_inputs(args.inputs, fn)
    elif given and not args.random_inputs:
        keys = input_keys(fn)
        missing = [keys[i][0] for i in range(len(keys)) if i not in given]
        if missing:
            raise UserError(
                f"@{name}: no array for input(s) {graph.name_list(missing)}: give each with --input "
                "NAME=FILE, or add --inputs FILE or --random-inputs for the rest"
            )
        inputs = [given[i] for i in range(len(keys))]
    else:
        inputs = random_inputs(fn, args.seed)
    for index, array in given.items():
        inputs[index] = array
    # The reference runs the function as written when it exists there, so
    # --check also checks the -p passes; otherwise the function they made.
    in_original = any(
        isinstance(op, func.FuncOp) and op.sym_name.data == name for op in original.ops
    )
    interpreter = ReferenceInterpreter(original if in_original else module)
    compiled = session.compile(module.clone(), name)
    start = time.perf_counter()
    try:
        outputs = compiled(*inputs)
    except SizeError as err:  # an output or the workspace: name the function's place
        raise attach_location(err, fn) from None
    except ValueError as err:
        raise InputError(str(err)) from None
    session.timed("run", start)
    if outputs is None:
        outputs = []
    outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    for i, a in enumerate(outputs):
        print(summary(i, a))
    status = 0
    if expected_files is not None:
        problems = compare(outputs, expected_files)
        for line in problems:
            print(f"graph-run: error: output_N.pb check failed: {line}", file=sys.stderr)
        status = 1 if problems else 0
        if not problems:
            print(f"check: OK ({len(outputs)} outputs match output_N.pb)")
    if args.check:
        start = time.perf_counter()
        expected = interpreter.run(name, *inputs)
        wide = float64_reference(interpreter, name, inputs)
        f32 = computes_in_f32(interpreter.module)
        problems = compare(outputs, expected, wide, float(np.finfo(np.float32).eps) if f32 else 0.0)
        session.timed("check", start)
        for line in problems:
            print(f"graph-run: error: check failed: {line}", file=sys.stderr)
        if problems:
            status = 1
        else:
            print(f"check: OK ({len(outputs)} outputs match the reference)")
    if args.bench:
        t_comp = median_seconds(lambda: compiled(*inputs), args.bench)
        t_ref = median_seconds(lambda: interpreter.run(name, *inputs), args.bench)
        print(f"{'':12}{'median':>14}{'vs reference':>16}")
        print(f"{'compiled':12}{t_comp * 1e3:>11.4f} ms{t_ref / t_comp:>15.2f}x")
        print(f"{'reference':12}{t_ref * 1e3:>11.4f} ms{1.0:>15.2f}x")
    if args.output and status == 0:
        save_outputs(args.output, outputs)
    if session.timing is not None:
        session.timing.print(sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    def body() -> int:
        try:
            return run(argv)
        except (InputError, NotImplementedError) as err:
            # NotImplementedError: an op without reference semantics under --check.
            raise UserError(str(err)) from None

    return run_tool("graph-run", body)


if __name__ == "__main__":
    sys.exit(main())
