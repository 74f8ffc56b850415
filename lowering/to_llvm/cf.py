"""``convert-cf-to-llvm``: ``cf.br``/``cf.cond_br`` to ``llvm.br``/``llvm.cond_br``.

The blocks they branch to get llvm-typed arguments (``index`` -> ``i64``,
memref -> ``!llvm.ptr``); their uses see a cast back until the users are
converted.

Loop hints: an ``scf.for`` may carry LLVM loop hints (:func:`set_loop_hints`);
:class:`ForLowering` adds ``vectorize.disable`` to a loop with a scalar
``maxnumf``/``minnumf`` in its body (LLVM 22's LoopVectorize aborts the
process on such reductions at some trip counts: its VPlan and legacy cost
models disagree, an assertion), and moves the hints to the loop's latch
branch; this pass keeps them on the ``llvm.br``, and the printer writes them
as ``!llvm.loop`` metadata (:mod:`.llvm_ir`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, cf, llvm, scf
from xdsl.dialects.builtin import ArrayAttr, StringAttr, VectorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms import convert_scf_to_cf

from graphopt.lowering.op_builder import walk_ops
from graphopt.lowering.to_llvm.common import ConversionPass, as_llvm, before, morph, retype_block_arguments, segments

_HINTS = "llvm.loop_hints"

#: The hints and their LLVM loop metadata.
LOOP_HINTS = {
    "unroll.full": '!"llvm.loop.unroll.full"',
    "vectorize.disable": '!"llvm.loop.vectorize.enable", i1 false',
    "vectorize.enable": '!"llvm.loop.vectorize.enable", i1 true',
    # Not LLVM's: the function is optimised with LLVM's loop unrolling
    # (runtime/llvm_optimizer); LLVM ignores the unknown loop property.
    "llvm-unroll": '!"graphopt.llvm_unroll"',
}


def set_loop_hints(op: Operation, hints: tuple[str, ...]) -> None:
    """Attach LLVM loop ``hints`` (keys of :data:`LOOP_HINTS`) to a loop or its latch."""
    assert all(h in LOOP_HINTS for h in hints), hints
    op.attributes[_HINTS] = ArrayAttr([StringAttr(h) for h in hints])


def loop_hints(op: Operation) -> tuple[str, ...]:
    """The loop hints of ``op`` (none unless :func:`set_loop_hints` set them)."""
    hints = op.attributes.get(_HINTS)
    return tuple(h.data for h in hints.data) if isinstance(hints, ArrayAttr) else ()


def wants_llvm_unrolling(iv: SSAValue) -> None:
    """Mark the loop of index ``iv`` (if it is one) ``llvm-unroll``: its
    function is optimised with LLVM's loop unrolling (``runtime/llvm_split``).
    The row forms of pooling and direct convs measured 5-150% slower
    without it (the row buffer stays in memory; short strided rows vectorise
    to gathers); straight-line rows emitted by the lowering were slower."""
    op = iv.owner.parent_op() if isinstance(iv, BlockArgument) else None
    if isinstance(op, scf.ForOp) and "llvm-unroll" not in loop_hints(op):
        set_loop_hints(op, (*loop_hints(op), "llvm-unroll"))


def _is_scalar_maxnum(op: Operation) -> bool:
    """A scalar ``maxnumf``/``minnumf``: a loop reduction through it, kept in
    a register or in memory (LICM promotes that), is what trips
    LoopVectorize's assertion."""
    return type(op) in _MAXNUM and not isinstance(op.results[0].type, VectorType)


_MAXNUM = (arith.MaxnumfOp, arith.MinnumfOp)


class ForLowering(convert_scf_to_cf.ForLowering):
    """xDSL's ``scf.for`` lowering, the loop's hints moved to its latch branch.

    Which loops hold a scalar ``maxnumf`` is found in one walk of each
    function (walking every loop's body would walk a nest once per level):
    loops are lowered outermost first, which leaves the bodies of the loops
    not lowered yet as they were."""

    def __init__(self) -> None:
        super().__init__()
        self._scanned: set[Operation] = set()  # the functions walked
        self._with_maxnum: set[Operation] = set()  # their loops holding a scalar maxnumf

    def _has_scalar_maxnum(self, loop: scf.ForOp) -> bool:
        top: Operation = loop
        while (parent := top.parent_op()) is not None and parent.parent is not None:
            top = parent
        if top not in self._scanned:
            self._scanned.add(top)
            for op in walk_ops(top):
                if _is_scalar_maxnum(op):
                    outer = op.parent_op()
                    while outer is not None and outer is not top and outer not in self._with_maxnum:
                        if type(outer) is scf.ForOp:
                            self._with_maxnum.add(outer)
                        outer = outer.parent_op()
        return loop in self._with_maxnum

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, scf.ForOp):
            return
        hints = loop_hints(op)
        if "vectorize.disable" not in hints and self._has_scalar_maxnum(op):
            hints = (*(h for h in hints if h != "vectorize.enable"), "vectorize.disable")
        header, init = op.body.first_block, op.parent_block()
        super().match_and_rewrite(op, rewriter)
        for use in header.uses if hints and header is not None else ():
            if isinstance(use.operation, cf.BranchOp) and use.operation.parent_block() is not init:
                set_loop_hints(use.operation, hints)  # the latch, branching back


class BranchPattern(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) is not cf.BranchOp and type(op) is not cf.ConditionalBranchOp:
            return
        at = before(op)
        for block in op._successors:  # noqa: SLF001
            retype_block_arguments(rewriter, block)
        # In place (common.morph): same successors, the operands in llvm types.
        if type(op) is cf.BranchOp:
            hints = loop_hints(op)  # morph resets the attributes
            morph(rewriter, op, llvm.BrOp, [as_llvm(rewriter, a, at) for a in op._operands])  # noqa: SLF001
            if hints:
                set_loop_hints(op, hints)
        elif len(op._operands) == 1:  # noqa: SLF001  (no block arguments: scf-to-cf's loop headers)
            morph(rewriter, op, llvm.CondBrOp, op._operands, {"operandSegmentSizes": segments(1, 0, 0)})  # noqa: SLF001
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
