"""graph-opt's exception hierarchy: what the library raises for a user's mistake.

Every error caused by the user's input -- IR text, a pass pipeline, a plugin,
arguments of a compiled function -- is a :class:`GraphOptError`.  It derives
from ``ValueError`` (the input had the wrong value) and from xDSL's
``DiagnosticException``, so ``xdsl-opt`` and ``graph-opt`` print it as one
diagnostic instead of a traceback.  Anything else escaping the library is a
bug in graph-opt.

    GraphOptError
    ├── ParseError       the IR text does not parse (has ``span`` and ``msg``)
    ├── VerifyError      the IR parses but an op is invalid
    ├── PipelineError    an unknown level, pass or option, or a pass failed
    ├── LoweringError    the graph cannot be lowered to loops or LLVM
    ├── ArgumentError    a compiled function or API call got a bad argument
    ├── PluginError      a plugin failed to import, register or run
    ├── SizeError        a value too large for any array or for this machine's memory
    └── OutputError      an output file or stdout cannot be written

The module sits below every layer, so dialects, passes, lowering and runtime
all raise these classes (or subclasses of them) directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.exceptions import ParseError as _XdslParseError
from xdsl.utils.exceptions import VerifyException

if TYPE_CHECKING:
    from xdsl.utils.lexer import Span


class GraphOptError(ValueError, DiagnosticException):
    """Base of every error graph-opt raises for a user's input.

    ``location`` (``file:line:col``), when given, starts the message as
    ``file:line:col: error: ...``, the form editors jump to.
    """

    def __init__(self, message: str = "", *, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location:
            return f"{self.location}: error: {self.message}"
        return self.message


class ParseError(GraphOptError, _XdslParseError):
    """The IR text does not parse.

    It is also an xDSL ``ParseError`` (``span``, ``msg``), so code that
    formats xDSL parse errors with their source line formats this one too.
    """

    def __init__(self, span: Span[str] | Span[bytes], msg: str):
        super().__init__(msg, location=str(span.get_location()))
        self.span = span
        self.msg = msg

    def __str__(self) -> str:
        return self.span.print_with_context(self.msg)

    def __reduce__(self):  # exceptions are pickled across processes
        return (type(self), (self.span, self.msg))


class VerifyError(GraphOptError, VerifyException):
    """An op is invalid; the message starts with ``file:line:col: error:``
    where the op has a location."""


class PipelineError(GraphOptError):
    """An unknown optimization level, pass or pass option, or a pass that
    refused the IR it was given."""


class LoweringError(GraphOptError):
    """The graph cannot be lowered (an op without a compute rule, a dynamic
    shape, a type the runtime cannot pass)."""


class ArgumentError(GraphOptError):
    """A bad argument: to a compiled function (name, shape, dtype, count) or
    to an API call such as ``graphopt.compile``."""


class PluginError(GraphOptError):
    """A plugin failed to import, to register, or raised while it ran."""


class SizeError(GraphOptError):
    """A value, an input, an output or a workspace whose byte size overflows
    what any array can hold, or exceeds this machine's memory; raised before
    anything is allocated, naming the value, its shape and its size."""


class OutputError(GraphOptError):
    """An output cannot be written (no space, no permission, a read-only file
    system, a directory as the target); no partial file is left and an
    existing file is unchanged."""


__all__ = [
    "ArgumentError",
    "GraphOptError",
    "LoweringError",
    "OutputError",
    "ParseError",
    "PipelineError",
    "PluginError",
    "SizeError",
    "VerifyError",
]
