"""User-facing diagnostics shared by the passes, the runtime and the tools.

A user error is reported as ONE diagnostic, ``file:line:col: error: message``
at the start of the line where a source position exists (followed by the
source line and a caret for parse errors, and by ``note:`` lines for secondary
locations), or ``tool: error: message`` otherwise, and a non-zero exit --
never a traceback.

To name positions in verifier errors, ops parsed from text are given a
``FileLineColLoc`` by :class:`LocatedParser`; :func:`verify_located` verifies a
module op by op, innermost first, and reports the first failure at its op.
Passes raise :class:`LocatedError` (an op, a message, optional notes); older
messages of the form ``"pass: op at file:line:col ..."`` are moved to the
front by :func:`diagnostics_of`, so every located error reads the same way.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, NameLoc, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

#: Deepest nesting of operations (through regions) or of attributes (arrays,
#: dictionaries) that the parser accepts.  The verifier, the printer and the
#: passes recurse over the IR; this keeps them well inside Python's stack.
MAX_NESTING = 64

SEVERITIES = ("error", "warning", "note", "remark")

from graphopt.errors import GraphOptError, OutputError, VerifyError
from graphopt.output_files import checked_stdout, drop_unwritable_stdout
from graphopt.dialects.graph import ModuleVerifyError, verify_graph_module
from graphopt.dialects.loop import check_loop_level_op  # rules upstream ops lack


class UserError(Exception):
    """An error caused by the user's input or options; printed without a traceback."""


@dataclass
class Diagnostic:
    """One diagnostic: a severity, a message, where (if known), and notes."""

    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    context: str = ""  # source line and carets, for parse errors
    notes: list[Diagnostic] = field(default_factory=list)
    legacy: str = ""  # a parse error as xDSL prints it (--parsing-diagnostics)

    @property
    def located(self) -> bool:
        return self.file is not None and self.line is not None

    def format(self, tool: str) -> str:
        if self.located:
            head = f"{self.file}:{self.line}:{self.col or 1}: {self.severity}: {self.message}"
        else:
            head = f"{tool}: {self.severity}: {self.message}"
        lines = [head]
        if self.context:
            lines.append(self.context)
        lines.extend(n.format(tool) for n in self.notes)
        return "\n".join(lines)


def op_location(op: Operation | None) -> tuple[str, int, int] | None:
    loc = op.location if op is not None else None
    if isinstance(loc, FileLineColLoc):
        return loc.filename.data, loc.line.data, loc.column.data
    return None


def location_of(op: Operation) -> str | None:
    where = op_location(op)
    if where is None and isinstance(op.location, NameLoc):  # an imported ONNX node
        return f"node '{op.location.desc.data}'"
    return f"{where[0]}:{where[1]}:{where[2]}" if where else None


def diagnostic_at(op: Operation | None, message: str, severity: str = "error") -> Diagnostic:
    """A diagnostic at ``op``'s location; unlocated ops are named in the message."""
    where = op_location(op)
    if where is None:
        prefix = f"{op.name}: " if op is not None and not message.startswith(op.name) else ""
        if op is not None and isinstance(op.location, NameLoc):  # an imported ONNX node
            prefix = f"node '{op.location.desc.data}': " + prefix
        return Diagnostic(severity, prefix + message)
    return Diagnostic(severity, message, *where)


class LocatedError(DiagnosticException):
    """An error at an op, with notes at secondary locations (``note:`` lines).

    Passes raise it instead of writing ``at file:line:col`` into the message::

        raise LocatedError(op, "autodiff: nograd.cube has no gradient rule",
                           notes=[(producer, "its operand is produced here")])
    """

    def __init__(
        self,
        op: Operation | None,
        message: str,
        notes: Sequence[tuple[Operation | None, str]] = (),
    ):
        self.diagnostic = diagnostic_at(op, message)
        self.diagnostic.notes = [diagnostic_at(o, m, "note") for o, m in notes]
        super().__init__(self.diagnostic.format("error"))


def attach_location(
    err: Exception,
    op: Operation | None,
    notes: Sequence[tuple[Operation | None, str]] = (),
) -> Exception:
    """Give ``err`` (of any class, keeping its type) a place and notes.

    Its message becomes the formatted diagnostic, so ``str(err)`` names the
    place too::

        raise attach_location(GradientError("autodiff: ..."), op, [(user, "used here")])
    """
    diagnostic = diagnostic_at(op, str(err))
    # A note is worth printing only where it names a place.
    diagnostic.notes = [diagnostic_at(o, m, "note") for o, m in notes if op_location(o)]
    err.diagnostic = diagnostic  # type: ignore[attr-defined]
    err.args = (diagnostic.format("error"),)
    if isinstance(err, GraphOptError) and not notes:  # its str() is location + message
        err.message = diagnostic.message
        err.location = f"{diagnostic.file}:{diagnostic.line}:{diagnostic.col}" if diagnostic.located else None
    return err


class LocatedVerifyError(VerifyError):
    """A verifier failure at its op's source location."""

    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format("error"))


# -- reading source text -------------------------------------------------------


def normalize_source(text: str) -> str:
    """Drop a UTF-8 byte-order mark; make CRLF and CR-only line ends ``\\n``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def decode_source(data: bytes) -> str:
    return normalize_source(data.decode("utf-8", errors="replace"))


class LineTable:
    """Line starts of a text, for (line, column) of an offset in O(log n)."""

    def __init__(self, text: str):
        self.starts = [0]
        self.starts.extend(m.end() for m in re.finditer("\n", text))

    def line_col(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1


class LocatedParser(Parser):
    """A parser that records where each op starts (``FileLineColLoc``).

    Line and column come from a table of line starts, so parsing stays linear
    in the file size.  Nesting deeper than :data:`MAX_NESTING` is one located
    "nesting too deep" error rather than a ``RecursionError``.
    """

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        text = normalize_source(text)
        super().__init__(ctx, text, name)
        self._line_offset = line_offset
        self._source_name = name
        self._lines = LineTable(text)
        self._op_depth = 0
        self._attr_depth = 0

    def _too_deep(self, what: str) -> ParseError:
        return ParseError(
            self._current_token.span,
            f"nesting too deep: more than {MAX_NESTING} nested {what}",
        )

    def _get_op_by_name(self, name: str) -> type[Operation]:
        try:
            return super()._get_op_by_name(name)
        except ParseError as err:
            dialect_name, _, op_name = name.partition(".")
            dialect = self.ctx.get_optional_dialect(dialect_name) if dialect_name else None
            if dialect is None:
                raise
            import difflib

            # Compare the names within the dialect: the shared prefix says nothing.
            names = [op.name.partition(".")[2] for op in dialect.operations]
            close = difflib.get_close_matches(op_name, names, n=1, cutoff=0.7)
            if not close:
                raise
            raise ParseError(
                err.span, f"{err.msg}; did you mean '{dialect_name}.{close[0]}'?"
            ) from None

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        if self._op_depth >= MAX_NESTING:
            raise self._too_deep("operations")
        self._op_depth += 1
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError) as err:
            # A constraint that fails while an op's custom format is parsed:
            # report it at the op rather than without a position.
            raise ParseError(span, str(err)) from None
        finally:
            self._op_depth -= 1
        if not isinstance(op.location, FileLineColLoc):
            line, col = self._lines.line_col(span.start)
            op.location = FileLineColLoc(
                StringAttr(self._source_name), IntAttr(line + self._line_offset), IntAttr(col)
            )
        return op

    @contextmanager
    def _nested_attribute(self, what: str) -> Iterator[None]:
        """One level deeper into attributes or types, refused past ``MAX_NESTING``."""
        if self._attr_depth >= MAX_NESTING:
            raise self._too_deep(what)
        self._attr_depth += 1
        try:
            yield
        finally:
            self._attr_depth -= 1

    def parse_optional_attribute(self) -> Attribute | None:
        with self._nested_attribute("attributes"):
            return super().parse_optional_attribute()

    def parse_optional_type(self) -> Attribute | None:
        with self._nested_attribute("types"):
            return super().parse_optional_type()


# -- verification ----------------------------------------------------------------


def _post_order(root: Operation) -> Iterator[Operation]:
    """Ops innermost first, without recursion (deep IR must not overflow)."""
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            yield op
            continue
        stack.append((op, True))
        children = [c for region in op.regions for block in region.blocks for c in block.ops]
        stack.extend((c, False) for c in reversed(children))


def verify_located(module: ModuleOp) -> None:
    """Verify ``module``; raise :class:`LocatedVerifyError` naming the failing op."""
    for op in _post_order(module):
        try:
            op.verify(verify_nested_ops=False)
            check_loop_level_op(op)
        except (VerifyException, ValueError) as err:
            if isinstance(err, LocatedVerifyError):
                raise
            cause = err.__cause__ if isinstance(err.__cause__, Exception) else err
            message = str(cause)
            diagnostic = diagnostic_at(op, message)
            raise LocatedVerifyError(diagnostic) from None
    try:
        verify_graph_module(module)
    except ModuleVerifyError as err:
        raise LocatedVerifyError(diagnostic_at(err.op, str(err))) from None


# -- exceptions to diagnostics -----------------------------------------------------

_EMBEDDED_LOC = re.compile(r" at (?P<file>[^\s:]+(?::[^\s:]+)*?):(?P<line>\d+):(?P<col>\d+)\b")
_LOCATED_TEXT = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note|remark): (?P<msg>.*)$"
)


def parse_diagnostic_line(line: str) -> Diagnostic | None:
    """``file:line:col: severity: message`` back into a :class:`Diagnostic`."""
    m = _LOCATED_TEXT.match(line)
    if m is None:
        return None
    return Diagnostic(m["sev"], m["msg"], m["file"], int(m["line"]), int(m["col"]))


def parse_error_diagnostic(err: ParseError, line_offset: int = 0) -> Diagnostic:
    loc = err.span.get_location()
    context = err.span.print_with_context(err.msg).splitlines()
    # print_with_context: the location line, the source lines with carets, then
    # the message again; keep only the source lines and the carets.
    body = [line for line in context[1:] if line.strip() != err.msg.strip()]
    legacy = dataclasses.replace(err.span, line_offset=line_offset).print_with_context(err.msg)
    return Diagnostic(
        "error", err.msg, loc.file, loc.line + line_offset, loc.col, "\n".join(body).rstrip(),
        legacy=legacy,
    )


def _from_message(message: str) -> Diagnostic:
    """A message naming its place as ``... at file:line:col ...``: move it to the front."""
    text = message.strip()
    if (located := parse_diagnostic_line(text.splitlines()[0] if text else "")) is not None:
        rest = text.splitlines()[1:]
        located.notes = [n for n in map(parse_diagnostic_line, rest) if n is not None]
        return located
    m = _EMBEDDED_LOC.search(text)
    if m is None:
        return Diagnostic("error", text)
    rest = (text[: m.start()] + text[m.end():]).strip()
    return Diagnostic("error", rest, m["file"], int(m["line"]), int(m["col"]))


def _project_error(err: BaseException) -> bool:
    """An error class of the project's own (``LoweringError``, ``PluginError``...)
    describes the input; Python's built-in ones (``KeyError``...) are bugs."""
    cls = type(err)
    return cls.__module__.startswith("graphopt.") and cls.__name__.endswith("Error")


def diagnostics_of(err: BaseException, line_offset: int = 0) -> Diagnostic:
    """The one diagnostic that reports ``err`` (its notes included)."""
    match err:
        case ParseError():
            return parse_error_diagnostic(err, line_offset)
        case LocatedVerifyError() | LocatedError():
            return err.diagnostic
        case Exception() if isinstance(getattr(err, "diagnostic", None), Diagnostic):
            return err.diagnostic  # type: ignore[attr-defined]
        case RecursionError():
            return Diagnostic("error", "nesting too deep: the IR is nested too deeply to process")
        case UserError() | DiagnosticException():
            return _from_message(str(err))
        case FileNotFoundError():
            return Diagnostic("error", f"cannot open '{err.filename}': no such file")
        case IsADirectoryError() | PermissionError():
            return Diagnostic("error", f"cannot open '{err.filename}': {err.strerror}")
        case Exception() if _project_error(err):
            return _from_message(str(err))
        case _:
            return Diagnostic("internal error", f"{type(err).__name__}: {err}")


def format_parse_error(err: ParseError) -> str:
    return parse_error_diagnostic(err).format("")


def run_tool(tool: str, body: Callable[[], int]) -> int:
    """A command-line tool's exit status: ``body()``'s, or one diagnostic for
    whatever it raises (never a traceback); argparse and ``--version`` exit
    through ``SystemExit``, a closed pipe is not an error, Ctrl-C is 130.
    A failing write to stdout (``> /dev/full``), flushes included, is one
    diagnostic and exit 1 as well (:func:`checked_stdout`)."""
    try:
        with checked_stdout():
            status = body()
            sys.stdout.flush()
        return status
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except BaseException as err:  # noqa: BLE001 - one diagnostic, never a traceback
        if isinstance(err, OutputError):
            drop_unwritable_stdout()
        return report(tool, err)


def report(tool: str, err: BaseException, line_offset: int = 0) -> int:
    """Print one diagnostic for ``err`` on stderr; return the exit status."""
    diagnostic = diagnostics_of(err, line_offset)
    message = diagnostic.format(tool)
    if diagnostic.severity == "internal error":
        if os.environ.get("GRAPHOPT_TRACEBACK"):
            traceback.print_exception(err)
        else:
            message += "\n(set GRAPHOPT_TRACEBACK=1 to see where)"
    print(message, file=sys.stderr)
    return 1
