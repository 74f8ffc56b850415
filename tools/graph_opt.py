"""``graph-opt``: the project's ``mlir-opt``, built on xDSL's ``xDSLOptMain``.

Every xDSL dialect, pass and target stays available; the project's dialects
and passes are added, and so are those of plugins (``--load-plugin`` and the
``graphopt.plugins`` entry-point group).  User errors print one diagnostic and
exit 1 (see ``graphopt.tools.diagnostics``).

Optimization levels and named pipelines (``graphopt.transforms.pipelines``):

* ``-O0`` .. ``-O3`` run a named pipeline; ``-p`` passes run *after* it
  (``-O2 -p x`` is O2 then x).  With ``-t llvm``, an ``-O`` level also lowers
  (``lower-graph-to-loop,lower-loop-to-llvm``) unless ``-p`` already does, so
  ``graph-opt -O2 -t llvm`` prints what ``graphopt.compile(..., opt_level=2)``
  compiles.
* ``-p default`` (= ``O2``), ``-p O1`` ...: named pipelines inside a spec.

Debugging: ``--print-ir-after-all`` (IR on stderr after every pass),
``--time-passes`` (seconds per pass), ``--pass-statistics`` (a table on stderr:
ops before/after, erased, created, and the pass's own counters such as ops
folded).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from graphopt import __version__
from graphopt.dialects import project_dialects
from graphopt.plugins import REGISTRY, PluginError, load_entry_point_plugins, load_plugin
from graphopt.tools.diagnostics import LocatedParser, UserError, report, verify_located
from graphopt.transforms import project_passes
from graphopt.transforms.pipelines import (
    PipelineError,
    combine,
    expand_named_pipelines,
    normalize_level,
    pipeline_spec,
    split_pipeline,
)


def _prescan_plugins(args: Sequence[str]) -> list[str]:
    """``--load-plugin`` values, needed before the argument parser is built."""
    specs: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--load-plugin" and i + 1 < len(args):
            specs.append(args[i + 1])
        elif arg.startswith("--load-plugin="):
            specs.append(arg.split("=", 1)[1])
    return specs


class GraphOptMain(xDSLOptMain):
    version_format = f"graph-opt {__version__} (xDSL {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        argv = list(sys.argv[1:] if args is None else args)
        try:
            load_entry_point_plugins(REGISTRY)
            for spec in _prescan_plugins(argv):
                load_plugin(spec, REGISTRY)
        except PluginError as err:
            raise UserError(str(err)) from None
        super().__init__(description="graph-opt: the graph-opt optimizer driver", args=argv)

    # -- registration -------------------------------------------------------

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in {**project_dialects(), **REGISTRY.dialects}.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_onnx(io: IO[bytes]) -> ModuleOp:
            from graphopt.frontends.onnx import import_model_bytes

            return import_model_bytes(io.read(), self.get_input_name())

        self.available_frontends["onnx"] = parse_onnx

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in {**project_passes(), **REGISTRY.passes}.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()

        def dot_target():
            from graphopt.tools.dot_target import DotTarget

            return DotTarget

        def llvm_target():
            from graphopt.tools.llvm_target import LLVMTarget

            return LLVMTarget

        self.available_targets["dot"] = dot_target
        self.available_targets["llvm"] = llvm_target

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--load-plugin",
            action="append",
            default=[],
            metavar="PATH_OR_MODULE",
            help="load a plugin (a .py file or a module name); repeatable",
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR to stderr after every pass",
        )
        arg_parser.add_argument(
            "-O",
            dest="opt_level",
            metavar="LEVEL",
            default=None,
            help="optimization level 0-3 (-O0 .. -O3); runs before -p passes",
        )
        arg_parser.add_argument(
            "--pass-statistics",
            action="store_true",
            help="print per-pass statistics (ops erased, created, folded...) to stderr",
        )

    # -- parsing with source locations ---------------------------------------

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        if file_extension != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        text = chunk.read().decode("utf-8", errors="replace")
        parser = LocatedParser(self.ctx, text, self.get_input_name(), start_offset)
        return parser.parse_module(not self.args.no_implicit_module)

    # -- the pipeline --------------------------------------------------------

    def pipeline_text(self) -> str:
        """The ``-O`` pipeline, then ``-p``, with named pipelines expanded."""
        args = self.args
        try:
            level = pipeline_spec(normalize_level(f"-O{args.opt_level}")) if args.opt_level else ""
            spec = combine(level, expand_named_pipelines(args.passes))
        except PipelineError as err:
            raise UserError(str(err)) from None
        if args.opt_level and args.target == "llvm":
            names = {p.split("{")[0].strip() for p in split_pipeline(spec)}
            if "lower-loop-to-llvm" not in names:
                lowering = ["lower-loop-to-llvm"]
                if "lower-graph-to-loop" not in names:
                    lowering.insert(0, "lower-graph-to-loop")
                spec = combine(spec, ",".join(lowering))
        return spec

    def setup_pipeline(self) -> None:
        args = self.args
        timer = time.perf_counter()
        spec = self.pipeline_text()
        stats = PassStatistics() if args.pass_statistics else None

        def callback(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            nonlocal timer
            if previous is not None:
                elapsed = time.perf_counter() - timer
                if stats is not None:
                    stats.after(previous, module, elapsed)
                    if following is None:
                        stats.print(sys.stderr)
                if args.time_passes:
                    print(f"Pass {previous.name} took {elapsed:.6f} seconds", file=sys.stderr)
                if args.print_ir_after_all:
                    print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)
                    Printer(stream=sys.stderr).print_op(module)
                    print(file=sys.stderr)
            if not args.disable_verify:
                verify_located(module)
            if previous and following and args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            if stats is not None and following is not None:
                stats.before(module)
            timer = time.perf_counter()

        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, spec, callback)
        except ArgSpecParseError as err:
            raise UserError(f"invalid pass pipeline '{args.passes}': {err}") from None
        except ValueError as err:
            raise UserError(_pass_error_message(str(err), self.available_passes)) from None
        except TypeError as err:
            raise UserError(f"invalid pass option in '{args.passes}': {err}") from None


class PassStatistics:
    """Ops before/after each pass, erased and created (by identity), and the
    counters a pass leaves in its ``statistics`` attribute."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int, int, int, int, float, str]] = []
        self._before: dict[int, object] = {}

    @staticmethod
    def _ops(module: ModuleOp) -> dict[int, object]:
        # Keeping the ops referenced keeps their ids from being reused.
        return {id(op): op for op in module.walk() if op is not module}

    def before(self, module: ModuleOp) -> None:
        self._before = self._ops(module)

    def after(self, done: ModulePass, module: ModuleOp, seconds: float) -> None:
        now = self._ops(module)
        erased = sum(1 for k in self._before if k not in now)
        created = sum(1 for k in now if k not in self._before)
        counters = getattr(done, "statistics", None) or {}
        extra = " ".join(f"{k}={v}" for k, v in counters.items())
        self.rows.append((done.name, len(self._before), len(now), erased, created, seconds, extra))
        self._before = {}

    def print(self, stream: IO[str]) -> None:
        width = max([len("pass")] + [len(r[0]) for r in self.rows])
        print("===- Pass statistics -===", file=stream)
        header = f"{'pass':<{width}} {'before':>7} {'after':>7} {'erased':>7} {'created':>7} {'ms':>9}  counters"
        print(header, file=stream)
        for name, before, after, erased, created, secs, extra in self.rows:
            print(
                f"{name:<{width}} {before:>7} {after:>7} {erased:>7} {created:>7} "
                f"{secs * 1e3:>9.2f}  {extra}".rstrip(),
                file=stream,
            )


def _pass_error_message(message: str, available: dict[str, object]) -> str:
    if message.startswith("Unrecognized passes"):
        return f"{message.replace('Unrecognized passes', 'unknown pass')}; run graph-opt --help for the list"
    return f"invalid pass option: {message}"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        tool = GraphOptMain(args=argv)
        tool.run()
    except SystemExit as exc:  # argparse, --version
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except BrokenPipeError:
        return 0
    except BaseException as err:  # noqa: BLE001 - every failure becomes one diagnostic
        if isinstance(err, KeyboardInterrupt):
            return 130
        return report("graph-opt", err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
