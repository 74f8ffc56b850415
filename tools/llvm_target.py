"""``-t llvm`` for graph-opt: xDSL's LLVM translation plus function linkage.

xDSL's own ``llvm`` target drops ``internal`` linkage on kernels; graph-opt's
target prints exactly the IR the runtime compiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from graphopt.lowering.loop_to_llvm import emit_llvm_ir


@dataclass(frozen=True)
class LLVMTarget(Target):
    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_llvm_ir(module))
