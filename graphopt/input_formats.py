"""Which files the tools read, and how: one rule for graph-opt, graph-run,
graph-compile and ``graphopt.compile``.

* ``.mlir`` (any case) is textual IR; its parse errors are reported as they
  are, at their line and column.
* ``.onnx`` is an ONNX model, read by the ONNX frontend.
* ``-`` is textual IR on stdin.
* A file with any other extension, or none, is read as textual IR when its
  content parses.  When it does not -- it is binary, or text that is not IR
  -- the error names the file and the accepted formats, with the first parse
  error as a note for text (not an xDSL parse error at some column of a
  binary file)::

      graph-opt: error: cannot read 'model.txt': '.txt' is not a known input
      format, and the file does not parse as textual IR (accepted: .mlir for
      textual IR, .onnx for an ONNX model, - for textual IR on stdin)
      model.txt:1:1: note: as textual IR: unexpected character

``graph-opt -f mlir`` reads any file as textual IR, with its parse errors.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from xdsl.utils.exceptions import ParseError

from graphopt.diagnostics import Diagnostic, decode_source, parse_error_diagnostic
from graphopt.errors import ArgumentError

T = TypeVar("T")

#: The extensions the tools know, lower case, and what they hold.
KNOWN_EXTENSIONS = {".mlir": "textual IR", ".onnx": "an ONNX model"}
ACCEPTED = "accepted: .mlir for textual IR, .onnx for an ONNX model, - for textual IR on stdin"
STDIN_NAMES = ("-", "<stdin>")

__all__ = [
    "ACCEPTED",
    "KNOWN_EXTENSIONS",
    "extension",
    "has_known_extension",
    "is_binary",
    "parse_by_content",
    "unknown_format_error",
]


def extension(path: str | os.PathLike[str]) -> str:
    """The extension, lower case, with its dot (``""`` for none)."""
    return os.path.splitext(os.fspath(path))[1].lower()


def has_known_extension(path: str | os.PathLike[str]) -> bool:
    """stdin and the extensions of :data:`KNOWN_EXTENSIONS`."""
    return os.fspath(path) in STDIN_NAMES or extension(path) in KNOWN_EXTENSIONS


def is_binary(data: bytes) -> bool:
    """Not text: a NUL byte, or bytes that are not UTF-8."""
    if b"\0" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def unknown_format_error(path: str, parse_error: ParseError | None, line_offset: int = 0) -> ArgumentError:
    """The error for a file of an unknown extension that is not textual IR;
    ``parse_error`` (for text; in a chunk starting after ``line_offset``
    lines) becomes a note at its place."""
    ext = extension(path)
    head = f"'{ext}' is not a known input format" if ext else "it has no extension the tools know"
    what = "does not parse as textual IR" if parse_error is not None else "is binary, not textual IR"
    message = f"cannot read '{path}': {head}, and the file {what} ({ACCEPTED})"
    err = ArgumentError(message)
    diagnostic = Diagnostic("error", message)
    if parse_error is not None:
        first = parse_error_diagnostic(parse_error, line_offset)
        note = Diagnostic("note", f"as textual IR: {first.message}", first.file, first.line, first.col)
        diagnostic.notes = [note]
        err.message = f"{message}\n{note.format('')}"
    err.diagnostic = diagnostic  # type: ignore[attr-defined]
    return err


def parse_by_content(path: str, data: bytes, parse: Callable[[str], T]) -> T:
    """``parse(text)`` of the file ``path``, by the rule of the module
    docstring: a file of a known extension (or stdin) as it is, any other
    only if it is text that parses."""
    if has_known_extension(path):
        return parse(decode_source(data))
    if is_binary(data):
        raise unknown_format_error(path, None)
    try:
        return parse(decode_source(data))
    except ParseError as err:
        raise unknown_format_error(path, err) from None
