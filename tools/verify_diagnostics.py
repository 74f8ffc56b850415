"""``--verify-diagnostics``: check the diagnostics a file produces against its
``expected-*`` annotations, as mlir-opt does.

An annotation is a comment::

    // expected-error {{inner dimensions differ}}          on this line
    // expected-error @+1 {{...}}   // @-N, @+N            N lines below/above
    // expected-note @above {{...}} // @below              the nearest line
                                                           above/below that is
                                                           not an annotation
    // expected-remark @unknown {{...}}                    a diagnostic without
                                                           a location

for ``error``, ``warning``, ``note`` and ``remark``.  The text between ``{{``
and ``}}`` must occur in the message.  Every diagnostic must be expected and
every annotation must be met; otherwise each mismatch is reported and the
tool exits 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphopt.diagnostics import Diagnostic

_ANNOTATION = re.compile(
    r"expected-(?P<sev>error|warning|note|remark)"
    r"(?:\s*@(?P<where>[+-]\d+|above|below|unknown))?"
    r"\s*\{\{(?P<text>.*?)\}\}"
)
_ONLY_ANNOTATION = re.compile(r"^\s*//\s*expected-(error|warning|note|remark)\b")


@dataclass
class Expected:
    severity: str
    text: str
    line: int | None  # None: a diagnostic without a location
    at_line: int  # where the annotation is written
    at_col: int
    met: bool = False


class AnnotationError(Exception):
    """A malformed ``expected-*`` annotation (for example ``@+`` past the end)."""


def parse_annotations(text: str, line_offset: int = 0) -> list[Expected]:
    """The annotations of one chunk; lines are numbered in the whole file."""
    lines = text.split("\n")
    found: list[Expected] = []
    pending_below: list[Expected] = []
    last_code_line: int | None = None
    for index, line in enumerate(lines):
        number = index + 1 + line_offset
        is_annotation_only = bool(_ONLY_ANNOTATION.match(line))
        if not is_annotation_only and line.strip():
            for e in pending_below:
                e.line = number
            pending_below = []
        comment = line.find("//")
        if comment >= 0:
            for m in _ANNOTATION.finditer(line, comment):
                where = m["where"]
                e = Expected(m["sev"], m["text"].strip(), number, number, m.start() + 1)
                if where is None:
                    pass
                elif where == "unknown":
                    e.line = None
                elif where == "above":
                    if last_code_line is None:
                        raise AnnotationError(
                            f"{number}: expected-{e.severity} @above has no line above it"
                        )
                    e.line = last_code_line
                elif where == "below":
                    pending_below.append(e)
                else:
                    e.line = number + int(where)
                found.append(e)
        if not is_annotation_only and line.strip():
            last_code_line = number
    for e in pending_below:
        raise AnnotationError(f"{e.at_line}: expected-{e.severity} @below has no line below it")
    return found


def _flatten(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for d in diagnostics:
        out.append(d)
        out.extend(_flatten(d.notes))
    return out


def verify(
    filename: str, expected: list[Expected], diagnostics: list[Diagnostic]
) -> list[Diagnostic]:
    """The mismatches, as error diagnostics (empty when everything matches)."""
    problems: list[Diagnostic] = []
    for d in _flatten(diagnostics):
        line = d.line if d.located and _same_file(d.file, filename) else None
        if d.located and line is None:
            # A diagnostic in another file (an included plugin, a temp file).
            line = -1
        match = next(
            (
                e
                for e in expected
                if not e.met and e.severity == d.severity and e.line == line and e.text in d.message
            ),
            None,
        )
        if match is not None:
            match.met = True
            continue
        where = (d.file, d.line, d.col) if d.located else (filename, None, None)
        problems.append(
            Diagnostic("error", f"unexpected {d.severity}: {d.message}", *where)
            if d.located
            else Diagnostic("error", f"unexpected {d.severity} without a location: {d.message}")
        )
    for e in expected:
        if not e.met:
            problems.append(
                Diagnostic(
                    "error",
                    f"expected {e.severity} \"{e.text}\" was not produced",
                    filename,
                    e.at_line,
                    e.at_col,
                )
            )
    problems.sort(key=lambda d: (d.line or 0, d.col or 0))
    return problems


def _same_file(a: str | None, b: str) -> bool:
    return a == b
