"""Fuse patterns shared by the ``graph`` and ``fused`` dialects.

The patterns are totally ordered as in NNVM/TVM; combining two patterns takes
the larger one.  ``FusePatternAttr`` carries a pattern in IR, e.g. on
``fused.group`` as ``#fused.pattern<injective>`` (printed by the group's
custom syntax as ``pattern(injective)``).
"""

from __future__ import annotations

from enum import IntEnum

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer


class FusePattern(IntEnum):
    """What fusion may do with an op; the values are TVM's."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_EWISE_FUSABLE = 4
    OPAQUE = 8

    @property
    def keyword(self) -> str:
        return _KEYWORDS[self]

    @staticmethod
    def from_keyword(word: str) -> FusePattern:
        for pattern, kw in _KEYWORDS.items():
            if kw == word:
                return pattern
        raise ValueError(f"unknown fuse pattern '{word}'")

    def combine(self, other: FusePattern) -> FusePattern:
        return max(self, other)


_KEYWORDS = {
    FusePattern.ELEMWISE: "elemwise",
    FusePattern.BROADCAST: "broadcast",
    FusePattern.INJECTIVE: "injective",
    FusePattern.COMM_REDUCE: "comm_reduce",
    FusePattern.OUT_EWISE_FUSABLE: "out_ewise_fusable",
    FusePattern.OPAQUE: "opaque",
}


@irdl_attr_definition
class FusePatternAttr(Data[FusePattern]):
    """A fuse pattern in IR: ``#fused.pattern<broadcast>``."""

    name = "fused.pattern"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> FusePattern:
        with parser.in_angle_brackets():
            pos = parser.pos
            word = parser.parse_identifier()
            try:
                return FusePattern.from_keyword(word)
            except ValueError:
                parser.raise_error(
                    f"unknown fuse pattern '{word}', expected one of "
                    + ", ".join(_KEYWORDS.values()),
                    pos,
                    parser.pos,
                )

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.keyword)

