"""``graph-opt``: the project's ``mlir-opt``, built on xDSL's ``xDSLOptMain``.

Every xDSL dialect and pass stays available; the project's dialects and
passes are added, and so are those of plugins (``--load-plugin`` and the
``graphopt.plugins`` entry-point group).  User errors print one diagnostic
``file:line:col: error: ...`` (or ``graph-opt: error: ...``) and exit 1 (see
``graphopt.diagnostics``).

The driver reads the input (``-``/nothing for stdin) as MLIR unless a
frontend is registered for its extension (``.onnx``) or named by ``-f``; a
file of an extension the tools do not know is MLIR only if it parses
(``graphopt.input_formats``).  It splits the input with
``--split-input-file``, and for each chunk parses, runs the pipeline and
prints; ``--verify-diagnostics`` checks the diagnostics against the chunk's
``expected-*`` annotations.  ``-o FILE`` is written atomically, and only when
every chunk succeeded.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import ParseError as XdslParseError
from xdsl.xdsl_opt_main import VersionAction, xDSLOptMain

from graphopt import __version__
from graphopt.dialects import project_dialects
from graphopt.input_formats import extension, has_known_extension, is_binary, unknown_format_error
from graphopt.plugins import REGISTRY, load_cli_plugins
from graphopt.tools.cli import (
    ArgumentParser,
    Instrumentation,
    Timing,
    add_debug_arguments,
    add_target_arguments,
    apply_target_arguments,
    build_pipeline,
    did_you_mean,
    pass_options,
    pass_summary,
    pipeline_text,
)
from graphopt.output_files import write_output
from graphopt.diagnostics import (
    Diagnostic,
    LocatedParser,
    UserError,
    decode_source,
    diagnostics_of,
    parse_diagnostic_line,
    run_tool,
)
from graphopt.tools.pass_statistics import PassStatistics
from graphopt.tools.split_input import Chunk, split_chunks
from graphopt.tools.printing import TERMINAL_ELIDE_LARGER, check_lowered_for_llvm, printer_for
from graphopt.tools.verify_diagnostics import AnnotationError, parse_annotations, verify
from graphopt.transforms import project_passes
from graphopt.transforms.pipelines import (
    LEVELS,
    PipelineError,
    combine,
    expand_named_pipelines,
    normalize_level,
    pipeline_passes,
    pipeline_spec,
    with_lowering,
)

#: Targets inherited from xDSL that print only xDSL's own low-level dialects
#: (x86, RISC-V, ARM, Metal, WebAssembly, WGSL, Cerebras), never graph IR.
XDSL_ONLY_TARGETS = {
    "x86-asm": "x86 assembly",
    "riscv-asm": "RISC-V assembly",
    "arm-asm": "ARM assembly",
    "mps": "Apple MPS",
    "wat": "WebAssembly text",
    "wgsl": "WGSL shaders",
    "csl": "Cerebras CSL",
}

#: xdsl-opt's on/off switches that graph-opt keeps, with their help.
XDSL_FLAGS = (
    ("--disable-verify", "do not verify the IR after parsing and after each pass"),
    ("--allow-unregistered-dialect", "allow ops of unregistered dialects"),
    ("--no-implicit-module", "do not wrap the input in a builtin.module"),
    ("--print-op-generic", "print operations in the generic format"),
    ("--print-no-properties", "print properties as attributes"),
    ("--print-debuginfo", "print locations"),
)


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.split("\n"))


def _prescan_plugins(args: Sequence[str]) -> list[str]:
    """``--load-plugin`` values, needed before the argument parser is built."""
    specs: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--load-plugin" and i + 1 < len(args):
            specs.append(args[i + 1])
        elif arg.startswith("--load-plugin="):
            specs.append(arg.split("=", 1)[1])
    return specs


def load_plugins(argv: Sequence[str], tool: str = "graph-opt") -> None:
    """Installed entry-point plugins, then each ``--load-plugin`` of ``argv``
    (a broken one only warns under ``--help`` and ``--version``)."""
    load_cli_plugins(tool, _prescan_plugins(argv), argv)


def levels_help() -> str:
    """What ``-O0`` .. ``-O3`` and ``default`` run, for ``--help``."""
    lines = ["optimization levels (-O runs first, then -p):"]
    for level in LEVELS:
        passes = ", ".join(pipeline_passes(level)) or "no passes"
        lines.append(f"  -{level}  {passes}")
    lines.append("  'default' (usable in -p) is -O2; with -t llvm, -O<n> also lowers")
    lines.append("  (lower-graph-to-loop, lower-loop-to-llvm) unless -p already does.")
    lines.append("")
    lines.append("-p may be given several times: the pipelines run one after the other")
    lines.append("(-p a -p b is -p a,b).  --list-passes lists every pass and its options.")
    return "\n".join(lines)


class GraphOptMain(xDSLOptMain):
    version_format = f"graph-opt {__version__} (xDSL {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        argv = list(sys.argv[1:] if args is None else args)
        load_plugins(argv)
        # xDSLOptMain.__init__, with graph-opt's own argument parser.
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = Context()
        self.register_all_dialects()
        self.register_all_frontends()
        self.register_all_passes()
        self.register_all_targets()
        self.arg_parser = ArgumentParser(
            prog="graph-opt",
            description="graph-opt: the graph-opt optimizer driver",
            epilog=levels_help(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.register_all_arguments(self.arg_parser)
        self.args = self.arg_parser.parse_args(args=argv)
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        if self.args.disable_verify:
            from xdsl.xdsl_opt_main import _empty_post_init

            Attribute.__post_init__ = _empty_post_init  # type: ignore[method-assign]
        if self.args.list_passes:
            return
        self.check_target()
        self.setup_pipeline()

    # -- registration -------------------------------------------------------

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in {**project_dialects(), **REGISTRY.dialects}.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_onnx(io: IO[bytes]) -> ModuleOp:
            from graphopt.frontends.onnx import import_model_bytes, parse_input_shapes

            shapes = parse_input_shapes(self.args.input_shape)
            return import_model_bytes(io.read(), self.get_input_name(), shapes)

        self.available_frontends["onnx"] = parse_onnx

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in {**project_passes(), **REGISTRY.passes}.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        for name in XDSL_ONLY_TARGETS:
            self.available_targets.pop(name, None)

        def dot_target():
            from graphopt.tools.dot_target import DotTarget

            return DotTarget

        def llvm_target():
            from graphopt.tools.llvm_target import LLVMTarget

            return LLVMTarget

        def obj_target():
            from graphopt.tools.llvm_target import ObjTarget

            return ObjTarget

        self.available_targets["dot"] = dot_target
        self.available_targets["llvm"] = llvm_target
        self.available_targets["obj"] = obj_target

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        p = arg_parser
        p.add_argument("input_file", nargs="?", help="input file ('-' or none: stdin): .mlir, .onnx, "
                       "or another extension read as MLIR if it parses")
        p.add_argument("-f", "--frontend", choices=list(self.available_frontends),
                       help="read the input with this frontend instead of by its extension")
        p.add_argument("-t", "--target", default="mlir",
                       help=f"output format: {', '.join(self.available_targets)} (default: mlir)")
        p.add_argument("-o", "--output-file", metavar="FILE",
                       help="write the output to FILE ('-': stdout), only if the run succeeds")
        p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0xD1x...",
                       help="an .onnx input's shape, for its dynamic dimensions; repeatable")
        p.add_argument("-p", "--passes", action="append", default=[], metavar="PIPELINE",
                       help="pass pipeline, e.g. 'canonicalize,fuse-ops{max-depth=4}'; repeatable (appends)")
        p.add_argument("-O", dest="opt_level", metavar="LEVEL", default=None,
                       help="optimization level 0-3 (-O0 .. -O3); runs before -p passes")
        p.add_argument("--list-passes", action="store_true",
                       help="list every pass with its description and options, and exit")
        p.add_argument("--dump-pass-pipeline", action="store_true",
                       help="print the expanded pass pipeline to stderr")
        p.add_argument("--load-plugin", action="append", default=[], metavar="PATH_OR_MODULE",
                       help="load a plugin (a .py file or a module name); repeatable")
        p.add_argument("--split-input-file", action="store_true",
                       help="process each '// -----' separated chunk of the input on its own")
        p.add_argument("--verify-diagnostics", action="store_true",
                       help="check diagnostics against expected-error/warning/note/remark "
                       "annotations; exit 1 on any mismatch")
        p.add_argument("--parsing-diagnostics", action="store_true",
                       help="print parse errors to stdout and exit 0 (xDSL's style)")
        p.add_argument("--print-diagnostics", action="store_true",
                       help="print every diagnostic to stdout and exit 0, for FileCheck "
                       "(xDSL's --verify-diagnostics)")
        p.add_argument("--pass-statistics", action="store_true",
                       help="print per-pass statistics (ops erased, created, folded...) to stderr")
        add_debug_arguments(p)
        add_target_arguments(p)
        p.add_argument("--print-between-passes", dest="print_ir_after_all",
                       action="store_true", help=argparse.SUPPRESS)
        for flag, text in XDSL_FLAGS:
            p.add_argument(flag, action="store_true", help=text)
        p.add_argument("--syntax-highlight", action="store_true", help=argparse.SUPPRESS)
        p.add_argument("-v", "--version", action=VersionAction, version_format=self.version_format,
                       help="print the version and exit")

    def check_target(self) -> None:
        name = self.args.target.split("{")[0]
        if name in self.available_targets:
            return
        known = ", ".join(self.available_targets)
        if name in XDSL_ONLY_TARGETS:
            raise UserError(
                f"target '{name}' prints {XDSL_ONLY_TARGETS[name]} from xDSL's own "
                f"low-level dialects, not graph IR; graph-opt's targets are: {known}"
            )
        raise UserError(f"unknown target '{name}'{did_you_mean(name, self.available_targets)} "
                        f"(targets: {known})")

    # -- the pipeline --------------------------------------------------------

    def pipeline_text(self) -> str:
        """The ``-O`` pipeline, then each ``-p``, with named pipelines expanded."""
        args = self.args
        try:
            level = pipeline_spec(normalize_level(f"-O{args.opt_level}")) if args.opt_level else ""
            spec = combine(level, *(expand_named_pipelines(p) for p in args.passes))
        except PipelineError as err:
            raise UserError(str(err)) from None
        if args.opt_level and args.target in ("llvm", "obj"):
            spec = with_lowering(spec, max_inline_constant_bytes=-1 if args.target == "obj" else None)
        return spec

    def setup_pipeline(self) -> None:
        self.passes: list[ModulePass] = build_pipeline(self.available_passes, self.pipeline_text())

    # -- input ----------------------------------------------------------------

    def get_input_name(self) -> str:
        name = self.args.input_file
        return "<stdin>" if name in (None, "-") else name

    def read_input(self) -> tuple[bytes, str]:
        """The input's bytes and its extension (``mlir`` for stdin)."""
        name = self.args.input_file
        if name in (None, "-"):
            return sys.stdin.buffer.read(), "mlir"
        if os.path.isdir(name):
            raise UserError(f"cannot open '{name}': it is a directory")
        with open(name, "rb") as f:
            data = f.read()
        ext = extension(name).lstrip(".")
        return data, ext

    def frontend_for(self, ext: str) -> str | None:
        """The non-MLIR frontend for this input, if any (``-f`` or the extension)."""
        chosen = self.args.frontend or ext
        if chosen != "mlir" and chosen in self.available_frontends:
            return chosen
        return None

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        if file_extension != "mlir" and file_extension in self.available_frontends:
            return super().parse_chunk(chunk, file_extension, start_offset)
        text = decode_source(chunk.read())
        if not self.args.no_implicit_module and _only_comments(text):
            return ModuleOp([])  # as mlir-opt: an empty input is an empty module
        parser = LocatedParser(self.ctx, text, self.get_input_name(), start_offset)
        return parser.parse_module(not self.args.no_implicit_module)

    # -- one chunk -------------------------------------------------------------

    def process(self, module: ModuleOp, timing: Timing | None, stats: PassStatistics | None) -> str:
        """Run the passes on ``module`` and return its printed form."""
        args = self.args
        apply_target_arguments(args, module)
        instrument = Instrumentation(
            args, timing=timing, verify=not args.disable_verify,
            printer=lambda m, s: printer_for(s, self.elide_larger()).print_op(m),
            observers=[stats] if stats is not None else [],
        )
        if timing is not None:
            timing.add("Pipeline", 0.0)
            head = len(timing.rows) - 1
            start = time.perf_counter()
        instrument.run(self.ctx, module, self.passes)
        if timing is not None:
            timing.rows[head] = (0, "Pipeline", time.perf_counter() - start)
            start = time.perf_counter()
        text = self.output_resulting_program(module)
        if timing is not None:
            timing.add("Output", time.perf_counter() - start)
        return text

    def elide_larger(self) -> int | None:
        if self.args.elide_larger is not None:
            return self.args.elide_larger if self.args.elide_larger >= 0 else None
        to_terminal = self.args.output_file in (None, "-") and sys.stdout.isatty()
        return TERMINAL_ELIDE_LARGER if to_terminal else None

    def output_resulting_program(self, prog: ModuleOp) -> str:
        name = self.args.target.split("{")[0]
        if name == "llvm":
            check_lowered_for_llvm(prog)
        if name == "obj":  # binary: kept apart and written by run() on success
            from graphopt.tools.llvm_target import object_output

            self.binary_output = object_output(prog, self.args.output_file)
            return ""
        if name != "mlir":
            return super().output_resulting_program(prog)
        out = io.StringIO()
        printer = printer_for(
            out, self.elide_larger(),
            print_generic_format=self.args.print_op_generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
        )
        printer.print_op(prog)
        printer.print_metadata(self.ctx.loaded_dialects)
        out.write("\n\n")
        return out.getvalue()

    def by_content(self) -> bool:
        """Whether the input is MLIR only if it parses: a file of an
        extension the tools do not know, read without ``-f`` and outside the
        diagnostic-testing modes (which read any file as IR)."""
        args = self.args
        testing = args.verify_diagnostics or args.print_diagnostics or args.parsing_diagnostics
        return not (args.frontend or testing or has_known_extension(self.get_input_name()))

    def run_chunk(self, chunk: Chunk, ext: str, timing: Timing | None,
                  stats: PassStatistics | None, capture: bool) -> None:
        """Parse, transform and print one chunk; failures become diagnostics.

        With ``capture``, diagnostics that passes print to stderr (remarks,
        warnings) are collected for --verify-diagnostics as well.
        """
        stderr = io.StringIO()
        redirect = contextlib.redirect_stderr(stderr) if capture else contextlib.nullcontext()
        failure: Diagnostic | None = None
        try:
            with redirect:
                start = time.perf_counter()
                module = self.parse_chunk(io.BytesIO(chunk.text.encode()), ext, chunk.line_offset)
                if timing is not None:
                    timing.add("Parser", time.perf_counter() - start)
                if module is not None:
                    chunk.output = self.process(module, timing, stats)
        except (KeyboardInterrupt, BrokenPipeError):
            raise
        except Exception as err:  # noqa: BLE001 - each failure is one diagnostic
            if isinstance(err, XdslParseError) and self.by_content():
                err = unknown_format_error(self.get_input_name(), err, chunk.line_offset)
            failure = diagnostics_of(err, chunk.line_offset)
            if failure.severity == "internal error":
                raise
        finally:
            for line in stderr.getvalue().splitlines():
                d = parse_diagnostic_line(line)
                if d is None:
                    print(line, file=sys.stderr)
                elif d.severity == "note" and chunk.diagnostics:
                    chunk.diagnostics[-1].notes.append(d)
                else:
                    chunk.diagnostics.append(d)
        if failure is not None:
            chunk.diagnostics.append(failure)

    # -- the whole run -------------------------------------------------------

    def list_passes(self, stream: IO[str]) -> None:
        """``--list-passes``: project and plugin passes with options, then xDSL's."""
        project = project_passes()
        groups = [
            ("graph-opt passes", {n: project[n] for n in project}),
            ("plugin passes", dict(REGISTRY.passes)),
        ]
        for title, passes in groups:
            if not passes:
                continue
            print(f"{title}:", file=stream)
            for name, factory in passes.items():
                cls = factory()
                print(f"  {name:<22}{pass_summary(cls)}", file=stream)
                for opt, kind, default in pass_options(cls):
                    shown = "required" if default is None else f"default {default}"
                    print(f"      {opt}: {kind}; {shown}", file=stream)
        print("named pipelines (in -p, or as -O<n>):", file=stream)
        for level in (*LEVELS, "default"):
            print(f"  {level:<22}{pipeline_spec(level) or '(no passes)'}", file=stream)
        print("xDSL passes:", file=stream)
        own = set(project) | set(REGISTRY.passes)
        for name in sorted(n for n in self.available_passes if n not in own):
            print(f"  {name}", file=stream)

    def run(self) -> int:  # type: ignore[override]
        args = self.args
        if args.list_passes:
            self.list_passes(sys.stdout)
            return 0
        if args.dump_pass_pipeline:
            specs = pipeline_text(self.passes)
            print(f"Pass Manager with {len(self.passes)} passes:", file=sys.stderr)
            print(f"builtin.module({specs})", file=sys.stderr)
        timing = Timing() if args.timing else None
        stats = PassStatistics() if args.pass_statistics else None
        data, ext = self.read_input()
        name = self.get_input_name()
        frontend = self.frontend_for(ext)
        if frontend is None and self.by_content() and is_binary(data):
            raise unknown_format_error(name, None)
        if frontend is not None:
            chunks = [Chunk("", 0)]
            self.run_frontend_chunk(chunks[0], data, frontend, timing, stats)
        else:
            chunks, warnings = split_chunks(decode_source(data), name, args.split_input_file)
            for w in warnings:
                print(w.format("graph-opt"), file=sys.stderr)
            verify_mode = args.verify_diagnostics
            for chunk in chunks:
                self.run_chunk(chunk, "mlir", timing, stats, capture=verify_mode)
        status = self.report_chunks(chunks, name)
        if stats is not None:
            stats.print(sys.stderr)
        outputs = [c.output for c in chunks if c.output is not None]
        text = "// -----\n".join(outputs)
        binary = getattr(self, "binary_output", None)
        if status == 0 or args.output_file in (None, "-"):
            write_output(args.output_file, binary if binary is not None and status == 0 else text)
        if timing is not None:
            timing.print(sys.stderr)
        return status

    def run_frontend_chunk(self, chunk: Chunk, data: bytes, frontend: str,
                           timing: Timing | None, stats: PassStatistics | None) -> None:
        try:
            module = self.parse_chunk(io.BytesIO(data), frontend, 0)
            if module is not None:
                chunk.output = self.process(module, timing, stats)
        except Exception as err:  # noqa: BLE001
            chunk.diagnostics.append(diagnostics_of(err))
            if chunk.diagnostics[-1].severity == "internal error":
                raise

    def report_chunks(self, chunks: list[Chunk], name: str) -> int:
        """Print the diagnostics (or check them); the exit status."""
        args = self.args
        status = 0
        for chunk in chunks:
            if args.verify_diagnostics:
                try:
                    expected = parse_annotations(chunk.text, chunk.line_offset)
                except AnnotationError as err:
                    line, _, message = str(err).partition(": ")
                    print(Diagnostic("error", message, name, int(line), 1).format("graph-opt"),
                          file=sys.stderr)
                    status = 1
                    continue
                problems = verify(name, expected, chunk.diagnostics)
                for d in problems:
                    print(d.format("graph-opt"), file=sys.stderr)
                if problems:
                    status = 1
                continue
            legacy = args.print_diagnostics or args.parsing_diagnostics
            for d in chunk.diagnostics:
                if legacy and (args.print_diagnostics or d.legacy):
                    print(d.legacy or d.format("graph-opt"))
                else:
                    print(d.format("graph-opt"), file=sys.stderr)
                    if d.severity in ("error", "internal error"):
                        status = 1
        return status


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("graph-opt", lambda: GraphOptMain(args=argv).run())


if __name__ == "__main__":
    sys.exit(main())
