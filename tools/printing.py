"""Printing graph-opt's output: constant elision and the ``-t llvm`` check."""

from __future__ import annotations

from typing import IO

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.printer import Printer

from graphopt.diagnostics import LocatedError, UserError, op_location

#: Dense constants printed in full when stdout is not a terminal; on a
#: terminal, those larger than this are elided (``dense_resource<__elided__>``).
TERMINAL_ELIDE_LARGER = 16


class ElidingPrinter(Printer):
    """A printer that shows large dense constants as ``dense_resource<__elided__>``."""

    elide_larger: int | None = None

    def print_attribute(self, attribute: Attribute) -> None:
        limit = self.elide_larger
        if limit is not None and isinstance(attribute, DenseIntOrFPElementsAttr):
            ty = attribute.type
            count = 1
            if isinstance(ty, TensorType):
                for d in ty.get_shape():
                    count *= max(d, 0)
            if count > limit:
                self.print_string("dense_resource<__elided__> : ")
                self.print_attribute(ty)
                return
        super().print_attribute(attribute)


def printer_for(stream: IO[str], elide_larger: int | None, **options: bool) -> Printer:
    printer = ElidingPrinter(stream=stream, **options)
    printer.elide_larger = elide_larger
    return printer


def check_lowered_for_llvm(module: ModuleOp) -> None:
    """``-t llvm`` prints LLVM-dialect IR only: name the passes still missing."""
    left = [op for op in module.walk() if op is not module and not op.name.startswith("llvm.")]
    if not left:
        return
    graph_level = any(o.name.startswith(("graph.", "fused.")) for o in left)
    missing = "lower-graph-to-loop,lower-loop-to-llvm" if graph_level else "lower-loop-to-llvm"
    level = "graph-level" if graph_level else "loop-level"
    message = (
        f"-t llvm needs LLVM-dialect IR, but the module is still {level} "
        f"({left[0].name} is not lowered); add -O2 (an -O level also lowers) or "
        f"append '{missing}' to -p"
    )
    located = next((o for o in left if op_location(o) is not None), None)
    if located is None:
        raise UserError(message)
    raise LocatedError(located, message)
