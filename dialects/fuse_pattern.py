"""Fuse patterns shared by the ``graph`` and ``fused`` dialects.

The patterns are totally ordered as in NNVM/TVM; combining two patterns takes
the larger one.  ``FusePatternAttr`` carries a pattern in IR, e.g. on
``fused.group`` as ``#fused.pattern<injective>`` (printed by the group's
custom syntax as ``pattern(injective)``).

Two enums, one per job: ``FusePattern`` is the ordered lattice passes compare
and combine; ``FusePatternKeyword`` is its spelling, the ``StrEnum`` xDSL's
``EnumAttribute`` parses and prints.  Members share their names.
"""

from __future__ import annotations

from enum import IntEnum

from xdsl.dialects.utils import EnumAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class FusePatternKeyword(StrEnum):
    """How a fuse pattern is written in IR."""

    ELEMWISE = "elemwise"
    BROADCAST = "broadcast"
    INJECTIVE = "injective"
    COMM_REDUCE = "comm_reduce"
    OUT_EWISE_FUSABLE = "out_ewise_fusable"
    OPAQUE = "opaque"


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
        return FusePatternKeyword[self.name].value

    @staticmethod
    def from_keyword(word: str) -> FusePattern:
        if word not in FusePatternKeyword.__members__.values():
            raise ValueError(
                f"unknown fuse pattern '{word}', expected one of "
                + ", ".join(k.value for k in FusePatternKeyword)
            )
        return FusePattern[FusePatternKeyword(word).name]

    def combine(self, other: FusePattern) -> FusePattern:
        return max(self, other)


@irdl_attr_definition
class FusePatternAttr(EnumAttribute[FusePatternKeyword]):
    """A fuse pattern in IR: ``#fused.pattern<broadcast>``."""

    name = "fused.pattern"

    def __init__(self, pattern: FusePattern | FusePatternKeyword):
        if isinstance(pattern, FusePattern):
            pattern = FusePatternKeyword[pattern.name]
        super().__init__(pattern)

    @property
    def pattern(self) -> FusePattern:
        return FusePattern[self.data.name]

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> FusePatternKeyword:
        with parser.in_angle_brackets():
            pos = parser.pos
            word = parser.parse_identifier()
            try:
                FusePattern.from_keyword(word)
            except ValueError as err:
                parser.raise_error(str(err), pos, parser.pos)
            return FusePatternKeyword(word)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)
