"""``convert-vector-to-llvm``: 1-D ``vector`` ops to llvm vector instructions.

* ``vector.load``/``store`` of a 1-D vector from a memref: the address of the
  first element (as for ``memref.load``), then an ``llvm.load``/``store`` of
  the vector aligned to its element (memrefs are only element-aligned);
* ``vector.broadcast`` of a scalar: ``insertelement`` into lane 0, then a
  ``shufflevector`` with an all-zero mask;
* ``vector.fma``: ``llvm.intr.fma`` on the vector.

Elementwise ``arith`` ops on 1-D vectors are converted by
``convert-arith-to-llvm``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import DenseArrayBase, VectorType, i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from graphopt.dialects.loop import element_num_bytes
from graphopt.lowering.to_llvm.common import ConversionPass, as_llvm, const, replace_with_llvm
from graphopt.lowering.to_llvm.memref import AccessPattern
from graphopt.lowering.to_llvm.scalar import is_vector


@dataclass
class VectorPattern(RewritePattern):
    access: AccessPattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not all(is_vector(r.type) or not isinstance(r.type, VectorType) for r in (*op.results, *op.operands)):
            return
        at = InsertPoint.before(op)
        if isinstance(op, vector.LoadOp):
            ptr = self.access.element_ptr(rewriter, op, op.base, op.indices)
            vt = op.result.type
            load = llvm.LoadOp(ptr, vt, alignment=element_num_bytes(vt.element_type))  # type: ignore[attr-defined]
            replace_with_llvm(rewriter, op, [load], load.results)
        elif isinstance(op, vector.StoreOp):
            ptr = self.access.element_ptr(rewriter, op, op.base, op.indices)
            value = as_llvm(rewriter, op.vector, at)
            store = llvm.StoreOp(value, ptr, alignment=element_num_bytes(value.type.element_type))  # type: ignore[attr-defined]
            replace_with_llvm(rewriter, op, [store], [])
        elif isinstance(op, vector.BroadcastOp) and not isinstance(op.source.type, VectorType):
            vt = op.vector.type
            lanes = vt.get_shape()[0]
            undef = llvm.UndefOp(vt)
            lane0 = llvm.InsertElementOp(undef.res, as_llvm(rewriter, op.source, at), const(rewriter, at, 0, i32))
            splat = llvm.ShuffleVectorOp(lane0.res, undef.res, DenseArrayBase.from_list(i32, [0] * lanes), vt)
            replace_with_llvm(rewriter, op, [undef, lane0, splat], splat.results)
        elif isinstance(op, vector.FMAOp):
            fma = llvm.FMAOp(*(as_llvm(rewriter, v, at) for v in (op.lhs, op.rhs, op.acc)))
            replace_with_llvm(rewriter, op, [fma], fma.results)


@dataclass(frozen=True)
class ConvertVectorToLLVMPass(ConversionPass):
    name = "convert-vector-to-llvm"

    def patterns(self):
        pattern = VectorPattern(AccessPattern())
        return dict.fromkeys((vector.LoadOp, vector.StoreOp, vector.BroadcastOp, vector.FMAOp), pattern)
