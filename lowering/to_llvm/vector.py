"""``convert-vector-to-llvm``: the upstream ``vector`` ops the schedule emits.

* ``vector.load``/``store``: the element's address as for ``memref.load``
  (:func:`.memref.element_ptr`); the vector is loaded or stored there (opaque
  pointers: no cast) with element alignment (a row of 16 floats need not
  start on a 64-byte boundary).  With ``bounds-check=true`` the whole vector
  is checked (see :mod:`.memref`).
* ``vector.broadcast`` of a scalar: ``insertelement`` into lane 0, then a
  ``shufflevector`` with an all-zero mask (LLVM selects ``vbroadcastss``).
* ``vector.fma``: ``llvm.intr.fma`` (``lhs * rhs + acc``, one rounding).
* ``vector.shuffle`` of 1-D vectors: ``shufflevector`` with the same mask.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import DenseArrayBase, VectorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from graphopt.lowering.to_llvm.common import (
    ConversionPass,
    LoopToLLVMError,
    access_props,
    as_llvm,
    before,
    by_identity,
    build,
    const,
    memref_type,
    morph,
    static_memref,
)
from graphopt.lowering.to_llvm.memref import add_bounds_flag, element_ptr


def _alignment(op: vector.LoadOp | vector.StoreOp, base: SSAValue) -> int:
    t = static_memref(memref_type(base), op.name)
    return by_identity(_ALIGNMENTS, t, lambda: _element_alignment(t.element_type))


def _element_alignment(element: Attribute) -> int:
    return max(1, element.bitwidth // 8) if hasattr(element, "bitwidth") else 1


_ALIGNMENTS: dict = {}


@dataclass
class AccessPattern(RewritePattern):
    bounds_check: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        # Operands by position: (base, *indices) and (vector, base, *indices).
        if isinstance(op, vector.LoadOp):
            base, *indices = op._operands  # noqa: SLF001
            ptr = element_ptr(rewriter, op, base, indices, self.bounds_check, _lanes(op.result.type))
            morph(rewriter, op, llvm.LoadOp, (ptr,), access_props(_alignment(op, base)))
        elif isinstance(op, vector.StoreOp):
            stored, base, *indices = op._operands  # noqa: SLF001
            ptr = element_ptr(rewriter, op, base, indices, self.bounds_check, _lanes(stored.type), store=True)
            value = as_llvm(rewriter, stored, before(op))
            morph(rewriter, op, llvm.StoreOp, (value, ptr), access_props(_alignment(op, base)))


def _lanes(vt) -> int:
    """Elements a 1-D vector access covers along the memref's last dimension."""
    return by_identity(_LANES, vt, lambda: _vector_lanes(vt))


_LANES: dict = {}


def _vector_lanes(vt) -> int:
    if not isinstance(vt, VectorType) or vt.get_num_dims() != 1:
        raise LoopToLLVMError(f"vector.load/store of {vt}: only 1-D vectors are supported")
    return vt.get_shape()[0]


@functools.lru_cache(maxsize=16)
def _zeros(n: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, [0] * n)


class BroadcastPattern(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        assert isinstance(op, vector.BroadcastOp)
        vt = op.vector.type
        assert isinstance(vt, VectorType)
        if isinstance(op.source.type, VectorType) or vt.get_num_dims() != 1:
            raise LoopToLLVMError(f"vector.broadcast {op.source.type} to {vt}: only scalar to 1-D is supported")
        at = before(op)
        scalar = as_llvm(rewriter, op.source, at)
        undef = build(llvm.UndefOp, (), (vt,))
        ins = build(llvm.InsertElementOp, (undef.res, scalar, const(rewriter, at, 0, i32)), (vt,))
        rewriter.insert([undef, ins], at)
        morph(rewriter, op, llvm.ShuffleVectorOp, (ins.res, undef.res), {"mask": _zeros(vt.get_shape()[0])})


class FMAPattern(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        assert isinstance(op, vector.FMAOp)
        morph(rewriter, op, llvm.FMAOp, (op.lhs, op.rhs, op.acc))


_MASKS: dict = {}  # the emitter shares one array per mask: converted once


class ShufflePattern(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        assert isinstance(op, vector.ShuffleOp)
        if op.v1.type.get_num_dims() != 1:
            raise LoopToLLVMError(f"vector.shuffle of {op.v1.type}: only 1-D vectors are supported")
        morph(rewriter, op, llvm.ShuffleVectorOp, (op.v1, op.v2), {"mask": by_identity(_MASKS, op.mask, lambda: DenseArrayBase.from_list(i32, list(op.mask.get_values())))})


@dataclass(frozen=True)
class ConvertVectorToLLVMPass(ConversionPass):
    name = "convert-vector-to-llvm"

    bounds_check: bool = False

    def finish(self, op, patterns) -> None:
        if self.bounds_check:
            add_bounds_flag(op)

    def patterns(self):
        access = AccessPattern(self.bounds_check)
        return {
            vector.LoadOp: access, vector.StoreOp: access,
            vector.BroadcastOp: BroadcastPattern(), vector.FMAOp: FMAPattern(),
            vector.ShuffleOp: ShufflePattern(),
        }  # fmt: skip
