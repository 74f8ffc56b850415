"""``graph-opt``: the project's ``mlir-opt``, built on xDSL's ``xDSLOptMain``.

Every xDSL dialect, pass and target stays available; the project's dialects
and passes are added, and so are those of plugins (``--load-plugin`` and the
``graphopt.plugins`` entry-point group).  User errors print one diagnostic and
exit 1 (see ``graphopt.tools.diagnostics``).
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

    def setup_pipeline(self) -> None:
        args = self.args
        timer = time.perf_counter()

        def callback(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            nonlocal timer
            if previous is not None:
                elapsed = time.perf_counter() - timer
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
            timer = time.perf_counter()

        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, args.passes, callback)
        except ArgSpecParseError as err:
            raise UserError(f"invalid pass pipeline '{args.passes}': {err}") from None
        except ValueError as err:
            raise UserError(_pass_error_message(str(err), self.available_passes)) from None
        except TypeError as err:
            raise UserError(f"invalid pass option in '{args.passes}': {err}") from None


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
