"""User-facing diagnostics shared by the command-line tools.

A user error is reported as ONE diagnostic, ``file:line:col: error: message``
where a source position exists (followed by the source line and a caret), or
``tool: error: message`` otherwise, and a non-zero exit -- never a traceback.

To name positions in verifier errors, ops parsed from text are given a
``FileLineColLoc`` by :class:`LocatedParser`; :func:`verify_located` verifies a
module op by op, innermost first, and reports the first failure at its op.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterator

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, NameLoc, StringAttr, IntAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException


class UserError(Exception):
    """An error caused by the user's input or options; printed without a traceback."""


class LocatedVerifyError(VerifyException):
    """A verifier failure already formatted with its op's source location."""


class LocatedParser(Parser):
    """A parser that records where each op starts (``FileLineColLoc``)."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._line_offset = line_offset
        self._source_name = name

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError) as err:
            # A constraint that fails while an op's custom format is parsed:
            # report it at the op rather than without a position.
            raise ParseError(span, str(err)) from None
        if not isinstance(op.location, FileLineColLoc):
            loc = span.get_location()
            op.location = FileLineColLoc(
                StringAttr(self._source_name),
                IntAttr(loc.line + self._line_offset),
                IntAttr(loc.col),
            )
        return op


def location_of(op: Operation) -> str | None:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):  # an imported ONNX node
        return f"node '{loc.desc.data}'"
    return None


def _post_order(op: Operation) -> Iterator[Operation]:
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _post_order(child)
    yield op


def verify_located(module: ModuleOp) -> None:
    """Verify ``module``; raise :class:`LocatedVerifyError` naming the failing op."""
    for op in _post_order(module):
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, ValueError) as err:
            cause = err.__cause__ if isinstance(err.__cause__, Exception) else err
            message = str(cause)
            where = location_of(op)
            text = f"{where}: error: {message}" if where else f"error: {op.name}: {message}"
            raise LocatedVerifyError(text) from None


def format_parse_error(err: ParseError) -> str:
    loc = err.span.get_location()
    context = err.span.print_with_context(err.msg).splitlines()
    # print_with_context starts with the location line; keep source + carets.
    body = "\n".join(context[1:])
    return f"{loc}: error: {err.msg}\n{body}".rstrip()


def report(tool: str, err: BaseException) -> int:
    """Print one diagnostic for ``err`` on stderr; return the exit status."""
    match err:
        case ParseError():
            message = format_parse_error(err)
        case LocatedVerifyError():
            message = str(err)
        case UserError() | DiagnosticException():
            message = f"{tool}: error: {err}"
        case FileNotFoundError():
            message = f"{tool}: error: cannot open '{err.filename}': no such file"
        case IsADirectoryError() | PermissionError():
            message = f"{tool}: error: cannot open '{err.filename}': {err.strerror}"
        case _:
            message = f"{tool}: internal error: {type(err).__name__}: {err}"
            if os.environ.get("GRAPHOPT_TRACEBACK"):
                traceback.print_exception(err)
            else:
                message += "\n(set GRAPHOPT_TRACEBACK=1 to see where)"
    print(message, file=sys.stderr)
    return 1
