"""``convert-cf-to-llvm``: ``cf.br``/``cf.cond_br`` to ``llvm.br``/``llvm.cond_br``.

The blocks they branch to get llvm-typed arguments (``index`` -> ``i64``,
memref -> ``!llvm.ptr``); their uses see a cast back until the users are
converted.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import cf, llvm
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from graphopt.lowering.to_llvm.common import ConversionPass, as_llvm, morph, retype_block_arguments, segments


class BranchPattern(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, cf.BranchOp | cf.ConditionalBranchOp):
            return
        at = InsertPoint.before(op)
        for block in op.successors:
            retype_block_arguments(rewriter, block)
        # In place (common.morph): same successors, the operands in llvm types.
        if isinstance(op, cf.BranchOp):
            morph(rewriter, op, llvm.BrOp, [as_llvm(rewriter, a, at) for a in op.operands])
        else:
            then = [as_llvm(rewriter, a, at) for a in op.then_arguments]
            other = [as_llvm(rewriter, a, at) for a in op.else_arguments]
            props = {"operandSegmentSizes": segments(1, len(then), len(other))}
            morph(rewriter, op, llvm.CondBrOp, [op.cond, *then, *other], props)


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ConversionPass):
    name = "convert-cf-to-llvm"

    def patterns(self):
        return dict.fromkeys((cf.BranchOp, cf.ConditionalBranchOp), BranchPattern())
