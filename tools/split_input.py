"""``--split-input-file``: the input's ``// -----`` chunks, as mlir-opt splits them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphopt.diagnostics import Diagnostic

SPLIT_MARKER = re.compile(r"^[ \t]*//[ \t]*-----[ \t]*$")
NEAR_SPLIT_MARKER = re.compile(r"^[ \t]*//[ \t]*-{3,8}[ \t]*$")


@dataclass
class Chunk:
    """One piece of the input (the whole input without --split-input-file)."""

    text: str
    line_offset: int  # lines before this chunk in the file
    diagnostics: list[Diagnostic] = field(default_factory=list)
    output: str | None = None


def split_chunks(text: str, name: str, split: bool) -> tuple[list[Chunk], list[Diagnostic]]:
    """Split at ``// -----`` lines; warn about near-miss markers such as ``// ----``."""
    if not split:
        return [Chunk(text, 0)], []
    lines = text.split("\n")
    chunks: list[Chunk] = []
    warnings: list[Diagnostic] = []
    start = 0
    for i, line in enumerate(lines):
        if SPLIT_MARKER.match(line):
            chunks.append(Chunk("\n".join(lines[start:i]), start))
            start = i + 1
        elif NEAR_SPLIT_MARKER.match(line):
            warnings.append(
                Diagnostic(
                    "warning",
                    f"'{line.strip()}' is not a split marker; write '// -----' "
                    "(five dashes) to split the input here",
                    name, i + 1, line.index("/") + 1,
                )
            )
    chunks.append(Chunk("\n".join(lines[start:]), start))
    return chunks, warnings
