"""Command-line machinery shared by ``graph-opt`` and ``graph-run``.

* :func:`build_pipeline`: a pass spec to passes, with errors in the user's
  spelling (``max-depth``, "an integer") and "did you mean" suggestions;
* :class:`Instrumentation`: the debugging flags as mlir-opt spells them
  (``--mlir-print-ir-after-all``, ``--mlir-print-ir-before=<pass>``,
  ``--mlir-print-ir-after=<pass>``, ``--mlir-print-ir-after-failure``,
  ``--mlir-timing``), progress on a terminal, and verification after passes;
* :class:`ArgumentParser`: argparse with "did you mean" for unknown flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sys
import time
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from graphopt.diagnostics import UserError, verify_located
from graphopt.dialects.loop import TargetAttr, set_module_target
from graphopt.transforms.pipelines import NAMED_PIPELINES

PassFactory = Callable[[], type[ModulePass]]


# -- did you mean ----------------------------------------------------------------


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest choice, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with a suggestion for a misspelled flag."""

    def error(self, message: str) -> typing.NoReturn:
        if message.startswith("unrecognized arguments: "):
            flags = [s for a in self._actions for s in a.option_strings]
            for arg in message.removeprefix("unrecognized arguments: ").split():
                if arg.startswith("-"):
                    hint = did_you_mean(arg.split("=", 1)[0], flags)
                    if hint:
                        message += hint
                        break
        super().error(message)


# -- pass pipelines --------------------------------------------------------------


_TYPE_WORDS = {
    int: ("an integer", "integers"),
    float: ("a number", "numbers"),
    bool: ("true or false", "booleans"),
    str: ("a string", "strings"),
}


def _describe_type(hint: Any, plural: bool = False) -> str:
    """A pass option's type in words: "an integer", "a comma-separated list of strings"."""
    origin = typing.get_origin(hint)
    args = [a for a in typing.get_args(hint) if a is not type(None) and a is not Ellipsis]
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(_describe_type(a, plural) for a in args))
    if origin is tuple:
        return f"a comma-separated list of {_describe_type(args[0], plural=True)}"
    words = _TYPE_WORDS.get(hint)
    if words is None:
        return getattr(hint, "__name__", str(hint))
    return words[1] if plural else words[0]


def pass_summary(cls: type) -> str:
    """The first line of a pass's docstring, without markup."""
    lines = (cls.__doc__ or "").strip().splitlines()
    first = lines[0] if lines else ""
    first = first.replace("``", "")
    for tail in (" (see the module docstring for the trade-offs).", " (see the module docstring)."):
        if first.endswith(tail):
            first = first[: -len(tail)] + "."
    return first


def pipeline_text(passes: Sequence[ModulePass]) -> str:
    """The expanded pipeline with every option, as -p accepts it."""
    specs = []
    for p in passes:
        spec = p.pipeline_pass_spec(include_default=True)
        params = {k.replace("_", "-"): v for k, v in spec.parameters.items()}
        specs.append(str(ArgSpec(spec.name, params)))
    return ",".join(specs)


def pass_options(cls: type[ModulePass]) -> list[tuple[str, str, str | None]]:
    """(option spelling, type in words, default) of each option of a pass."""
    hints = typing.get_type_hints(cls)
    rows: list[tuple[str, str, str | None]] = []
    for f in dataclasses.fields(cls):
        if f.name == "name" or not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            default: str | None = _format_default(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            default = _format_default(f.default_factory())
        else:
            default = None
        rows.append((f.name.replace("_", "-"), _describe_type(hints.get(f.name, Any)), default))
    return rows


def _format_default(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "(none)"
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _check_options(spec: ArgSpec, cls: type[ModulePass]) -> None:
    from xdsl.utils.arg_spec import _convert_arg_to_type  # noqa: PLC2701 - the spec's own rules

    options = {name: (kind, default) for name, kind, default in pass_options(cls)}
    hints = typing.get_type_hints(cls)
    for key, value in spec.parameters.items():
        spelling = key.replace("_", "-")
        if spelling not in options:
            if not options:
                raise UserError(f"pass '{spec.name}' takes no options, got '{key}'")
            raise UserError(
                f"pass '{spec.name}' has no option '{key}'{did_you_mean(spelling, options)} "
                f"(its options: {', '.join(options)})"
            )
        try:
            _convert_arg_to_type(value, hints[spelling.replace("-", "_")])
        except ValueError:
            given = ",".join(str(v) for v in value) if value else "(nothing)"
            raise UserError(
                f"option '{spelling}' of pass '{spec.name}' expects {options[spelling][0]}, "
                f"got '{given}'"
            ) from None
    given = {k.replace("_", "-") for k in spec.parameters}
    for name, (kind, default) in options.items():
        field_name = name.replace("-", "_")
        if default is None and name not in given and field_name in cls.required_fields():
            raise UserError(f"pass '{spec.name}' needs option '{name}' ({kind})")


def build_pipeline(available: dict[str, PassFactory], spec: str) -> list[ModulePass]:
    """The passes of ``spec`` (named pipelines already expanded)."""
    if not spec.strip():
        return []
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as err:
        raise UserError(f"invalid pass pipeline '{spec}': {err}") from None
    passes: list[ModulePass] = []
    for s in specs:
        if s.name not in available:
            raise UserError(
                f"unknown pass '{s.name}'{did_you_mean(s.name, [*available, *NAMED_PIPELINES])} "
                f"(graph-opt --list-passes lists them)"
            )
        cls = available[s.name]()
        _check_options(s, cls)
        try:
            passes.append(cls.from_pass_spec(s))
        except (ValueError, TypeError) as err:
            message = str(err)
            if not message.startswith(f"{s.name}:"):
                message = f"pass '{s.name}': {message}"
            raise UserError(message) from None
    return passes


# -- the target --------------------------------------------------------------------


def add_target_arguments(p: argparse.ArgumentParser) -> None:
    """``--target-cpu``, ``--target-features``, ``--target-triple``: what the
    code is compiled for (LLVM's spellings; see ``graphopt.target``)."""
    p.add_argument(
        "--target-cpu", metavar="CPU",
        help="compile for this CPU, LLVM's name (haswell, znver3, skylake-avx512, generic...; "
        "default: this machine's, with its own features)",
    )
    p.add_argument(
        "--target-features", metavar="+F,-F",
        help="LLVM target features to add or remove, e.g. -avx512f (to this machine's, "
        "or to --target-cpu's)",
    )
    p.add_argument(
        "--target-triple", metavar="TRIPLE",
        help="compile for this LLVM triple, e.g. aarch64-unknown-linux-gnu (default: this machine's)",
    )


def target_from_arguments(args: argparse.Namespace) -> TargetAttr | None:
    """The ``#loop.target`` the target flags ask for, checked (an unknown CPU,
    feature or triple is an error), or ``None`` when none is given."""
    cpu, features, triple = args.target_cpu, args.target_features, args.target_triple
    if cpu is None and features is None and triple is None:
        return None
    attr = TargetAttr(cpu or "host", features or "", triple or "")
    attr.resolve()
    return attr


def apply_target_arguments(args: argparse.Namespace, module: ModuleOp) -> None:
    """Record the target flags on ``module`` (they override its own ``#loop.target``)."""
    attr = target_from_arguments(args)
    if attr is not None:
        set_module_target(module, attr)


# -- instrumentation ---------------------------------------------------------------


def add_debug_arguments(p: argparse.ArgumentParser) -> None:
    """The mlir-opt debugging flags, with the older spellings as aliases."""
    p.add_argument(
        "--mlir-print-ir-after-all", "--print-ir-after-all", dest="print_ir_after_all",
        action="store_true", help="print the IR to stderr after every pass",
    )
    p.add_argument(
        "--mlir-print-ir-before", dest="print_ir_before", action="append", default=[],
        metavar="PASS", help="print the IR to stderr before PASS (comma list; repeatable)",
    )
    p.add_argument(
        "--mlir-print-ir-after", dest="print_ir_after", action="append", default=[],
        metavar="PASS", help="print the IR to stderr after PASS (comma list; repeatable)",
    )
    p.add_argument(
        "--mlir-print-ir-after-failure", dest="print_ir_after_failure", action="store_true",
        help="print the IR to stderr after a pass that fails (raises or leaves invalid IR)",
    )
    p.add_argument(
        "--mlir-timing", "--time-passes", dest="timing", action="store_true",
        help="print a timing tree (parse, each pass, lowering, output, total) to stderr",
    )
    p.add_argument(
        "--mlir-elide-elementsattrs-if-larger", dest="elide_larger", type=int, default=None,
        metavar="N", help="print dense constants of more than N elements as "
        "dense_resource<__elided__> (default: 16 when stdout is a terminal, else never)",
    )


def _names(values: Sequence[str]) -> set[str]:
    return {n.strip() for v in values for n in v.split(",") if n.strip()}


class Timing:
    """A tree of named wall-clock timers, printed as mlir-opt's ``--mlir-timing``."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.rows: list[tuple[int, str, float]] = []

    def add(self, name: str, seconds: float, depth: int = 0) -> None:
        self.rows.append((depth, name, seconds))

    def begin(self, name: str, depth: int = 0) -> tuple[int, float]:
        """Open a parent row (its children follow it); close it with :meth:`end`."""
        self.rows.append((depth, name, 0.0))
        return len(self.rows) - 1, time.perf_counter()

    def end(self, handle: tuple[int, float]) -> None:
        index, start = handle
        depth, name, _ = self.rows[index]
        self.rows[index] = (depth, name, time.perf_counter() - start)

    def print(self, stream: IO[str]) -> None:
        sys.stdout.flush()
        total = time.perf_counter() - self.start
        bar = "===" + "-" * 73 + "==="
        print(bar, file=stream)
        print(f"{'... Execution time report ...':^79}", file=stream)
        print(bar, file=stream)
        print(f"  Total Execution Time: {total:.4f} seconds\n", file=stream)
        print("  ----Wall Time----  ----Name----", file=stream)
        for depth, name, secs in [*self.rows, (0, "Total", total)]:
            share = 100.0 * secs / total if total > 0 else 0.0
            print(f"  {secs:>8.4f} ({share:5.1f}%)  {'  ' * depth}{name}", file=stream)


class Progress:
    """Step-by-step progress on stderr, only on a terminal and only once the
    run has taken longer than ``after`` seconds (earlier steps are then shown
    at once)."""

    def __init__(self, tool: str, mode: str = "auto", after: float = 1.0):
        self.tool = tool
        self.enabled = mode == "always" or (mode == "auto" and sys.stderr.isatty())
        self.after = 0.0 if mode == "always" else after
        self.start = time.perf_counter()
        self.held: list[str] = []
        self.live = False

    def step(self, name: str, seconds: float) -> None:
        if not self.enabled:
            return
        line = f"{self.tool}: {name} {seconds:.2f} s"
        if self.live:
            print(line, file=sys.stderr, flush=True)
            return
        self.held.append(line)
        if time.perf_counter() - self.start >= self.after:
            self.live = True
            print("\n".join(self.held), file=sys.stderr, flush=True)
            self.held = []


class Instrumentation:
    """Runs passes one by one with the debugging flags, timing and progress."""

    def __init__(
        self,
        args: argparse.Namespace,
        timing: Timing | None = None,
        progress: Progress | None = None,
        verify: bool = True,
        printer: Callable[[ModuleOp, IO[str]], None] | None = None,
        observers: Sequence[Any] = (),
    ):
        self.after_all = getattr(args, "print_ir_after_all", False)
        self.before = _names(getattr(args, "print_ir_before", []))
        self.after = _names(getattr(args, "print_ir_after", []))
        self.after_failure = getattr(args, "print_ir_after_failure", False)
        self.timing = timing
        self.progress = progress
        self.verify = verify
        self.observers = list(observers)
        self._print = printer or (lambda m, s: Printer(stream=s).print_op(m))

    def dump(self, title: str, module: ModuleOp) -> None:
        print(f"// -----// IR Dump {title} //----- //", file=sys.stderr)
        self._print(module, sys.stderr)
        print(file=sys.stderr, flush=True)

    def step(self, name: str, seconds: float, depth: int = 1) -> None:
        if self.timing is not None:
            self.timing.add(name, seconds, depth)
        if self.progress is not None:
            self.progress.step(name, seconds)

    def run(self, ctx: Context, module: ModuleOp, passes: Sequence[ModulePass]) -> None:
        if self.verify:
            verify_located(module)
        for p in passes:
            if p.name in self.before:
                self.dump(f"Before {p.name}", module)
            for o in self.observers:
                o.before(module)
            start = time.perf_counter()
            try:
                p.apply(ctx, module)
                if self.verify:
                    verify_located(module)
            except BaseException:
                if self.after_failure:
                    self.dump(f"After {p.name} Failed", module)
                raise
            elapsed = time.perf_counter() - start
            for o in self.observers:
                o.after(p, module, elapsed)
            self.step(p.name, elapsed)
            if self.after_all or p.name in self.after:
                self.dump(f"After {p.name}", module)
