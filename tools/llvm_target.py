"""``-t llvm`` and ``-t obj`` for graph-opt.

``llvm``: xDSL's LLVM translation plus the ``internal`` linkage of kernels it
drops, so graph-opt prints exactly the IR the runtime compiles.  ``obj``: a
native object file with every constant embedded (graph-opt's ``-O`` levels
lower with ``max-inline-constant-bytes=-1`` for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from graphopt.diagnostics import UserError
from graphopt.lowering.to_llvm import emit_llvm_ir


@dataclass(frozen=True)
class LLVMTarget(Target):
    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_llvm_ir(module))


def object_output(module: ModuleOp, path: str | None) -> bytes:
    """``-t obj``: the native object file of a lowered module, for ``path``
    (or for stdout when it is not a terminal)."""
    import sys

    from graphopt.runtime.aot import object_code  # llvmlite: only for -t obj

    if path in (None, "-") and sys.stdout.isatty():
        raise UserError("-t obj writes binary code: give an output file with -o")
    return object_code(module)


@dataclass(frozen=True)
class ObjTarget(Target):
    """Registered so ``-t obj`` is accepted; graph-opt writes the bytes itself."""

    name = "obj"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        raise UserError("-t obj output cannot go to a text stream")
