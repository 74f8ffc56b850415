"""``convert-memref-to-llvm``: memref ops to pointer arithmetic.

* ``memref.load``/``store``: the indices are linearised row-major with
  ``mul``/``add nsw`` into a ``getelementptr inbounds``; constant indices
  fold into a constant offset and the dynamic part's address is shared
  within a block (:func:`element_ptr`); ``i1`` elements are
  bytes (loads ``trunc``, stores ``zext``).  With ``bounds-check=true``, an
  access whose indices are not all constants (constants are checked by the
  verifier) is guarded: an index outside its dimension turns a load into
  one of element 0 and a store into one to a scratch global
  (``@graphopt_bounds_sink<bytes>``, so no element of the memref is
  overwritten), and sets the byte ``@graphopt_bounds_error``, which the
  runtime turns into an error after the call.  A ``vector.load``/``store``
  must also end inside the memref: its ``lanes`` elements are contiguous from
  the indexed one and may run on into the next row (the pointwise GEMM's
  vectors of pixels do), not past the last element.
* ``memref.view``: a byte ``getelementptr`` into the workspace.
* ``memref.alloca`` (static): an ``llvm.alloca`` hoisted to the function's
  entry block, so a loop around it does not grow the stack.
* ``memref.get_global``: ``llvm.mlir.addressof``; ``memref.global``: an
  ``internal`` ``llvm.mlir.global`` with its dense initializer (``constant``
  when the memref global is), zero-initialised when it has none.
* ``memref.copy``: ``llvm.memcpy``.
* ``loop.prefetch``: ``llvm.prefetch`` (read or write, data cache) of the element's
  address, checked as a load's with ``bounds-check=true`` (the hint never
  faults, but an index outside the memref is a schedule's bug).
* ``memref.collapse_shape`` (identity layouts): the same pointer;
  ``memref.subview`` with static offsets and unit strides: a
  ``getelementptr`` to its first element.  A strided memref is only copied
  (``memref.copy`` into a contiguous subview); loads and stores need identity
  layouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    TensorType,
    UnitAttr,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from graphopt.dialects.loop import PrefetchOp, memref_num_bytes
from graphopt.lowering.op_builder import walk_ops
from graphopt.lowering.to_llvm.common import (
    PTR,
    ConversionPass,
    LoopToLLVMError,
    access_props,
    as_llvm,
    before,
    binop,
    build,
    by_identity,
    call_intrinsic,
    const,
    constant_int,
    dense_to_numpy,
    gep,
    int_attr,
    llvm_type,
    memref_shape,
    memref_type,
    morph,
    num_elements,
    replace_with_llvm,
    reuse,
    static_memref,
    storage_type,
)

BOUNDS_FLAG = "graphopt_bounds_error"
BOUNDS_SINK = "graphopt_bounds_sink"
"""Prefix of the scratch globals a checked out-of-bounds store writes to
(the suffix is the store's size in bytes)."""


def element_ptr(
    rewriter: PatternRewriter, op: Operation, ref: SSAValue, index_values, bounds_check: bool = False, lanes: int = 1,
    store: bool = False,
) -> SSAValue:
    """The address of ``ref[indices]`` (row-major) for ``op``, a load or a
    ``store`` (``lanes`` elements from there: a vector access).

    Constant indices fold into one constant offset.  Within a block, the
    accesses share the products ``index * stride``, the offset of the same
    dynamic indices, the address of that part in ``ref`` and whole addresses:
    an access is at most one constant-offset ``getelementptr`` more."""
    t = static_memref(memref_type(ref), op.name)
    at = before(op)
    shape = memref_shape(t)
    if not shape:
        return as_llvm(rewriter, ref, at)
    st = storage_type(t.element_type)

    def emit(new: Operation) -> SSAValue:
        rewriter.insert(new, at)
        return new.results[0]

    index_values = list(index_values)
    if bounds_check and any(constant_int(i) is None for i in index_values):
        indices = [as_llvm(rewriter, i, at) for i in index_values]
        return _checked_ptr(rewriter, at, as_llvm(rewriter, ref, at), shape, st, indices, emit, lanes, store)
    offset, dynamic = 0, []
    for value, stride in zip(index_values, by_identity(_STRIDES, t, lambda: _row_major_strides(shape))):
        k = constant_int(value)
        if k is None:
            dynamic.append((value, stride))
        else:
            offset += k * stride
    # Keyed by the op's own operands (the same values however far the other
    # dialects are converted) and its dialect: one walk and each step on its
    # own give the same IR.
    where = (_dialect_of(op), at.block)

    def product(value: SSAValue, stride: int) -> SSAValue:
        term = as_llvm(rewriter, value, at)
        return term if stride == 1 else emit(binop(llvm.MulOp, term, const(rewriter, at, stride, i64), nsw=True))

    def linear() -> SSAValue:
        terms = [reuse(("term", *where, v, k), lambda v=v, k=k: product(v, k)) for v, k in dynamic]
        total = terms[0]
        for term in terms[1:]:
            total = emit(binop(llvm.AddOp, total, term, nsw=True))
        return total

    def address() -> SSAValue:
        if not dynamic:
            return as_llvm(rewriter, ref, at)
        index = reuse(("linear", *where, tuple(dynamic)), linear)
        return emit(gep(as_llvm(rewriter, ref, at), index, st))

    def element() -> SSAValue:
        base = reuse(("address", *where, ref, tuple(dynamic)), address)
        return base if offset == 0 else emit(gep(base, offset if offset < 2**31 else const(rewriter, at, offset, i64), st))

    return reuse(("element", *where, ref, tuple(dynamic), offset), element)


_STRIDES: dict = {}


def _row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    stride, strides = 1, []
    for dim in reversed(shape):
        strides.append(stride)
        stride *= dim
    return tuple(reversed(strides))


_DIALECTS: dict[type[Operation], str] = {}


def _dialect_of(op: Operation) -> str:
    """``op.dialect_name()``, once per class (it splits the op's name)."""
    name = _DIALECTS.get(type(op))
    if name is None:
        name = _DIALECTS[type(op)] = op.dialect_name()
    return name


def _checked_ptr(rewriter, at, base, shape, st, indices, emit, lanes: int = 1, store: bool = False) -> SSAValue:
    """``bounds-check=true``: an index outside its dimension, or a vector of
    ``lanes`` elements ending past the memref, makes a load one of element 0
    and a store one to the scratch global of its size, and sets
    ``@graphopt_bounds_error``."""
    off = indices[0]
    for dim, idx in zip(shape[1:], indices[1:]):
        off = emit(binop(llvm.AddOp, emit(binop(llvm.MulOp, off, const(rewriter, at, dim, i64), nsw=True)), idx, nsw=True))
    ult = IntegerAttr(llvm.ICmpPredicateFlag("ult").to_int(), i64)
    ok: SSAValue | None = None
    for dim, idx in zip(shape, indices):
        inside = emit(llvm.ICmpOp(idx, const(rewriter, at, dim, i64), ult))
        ok = inside if ok is None else emit(llvm.AndOp(ok, inside))
    assert ok is not None
    if lanes > 1:  # the last lane inside the memref: off < size - lanes + 1
        fits = emit(llvm.ICmpOp(off, const(rewriter, at, max(int(np.prod(shape)) - lanes + 1, 0), i64), ult))
        ok = emit(llvm.AndOp(ok, fits))
    off = emit(llvm.SelectOp(ok, off, const(rewriter, at, 0, i64)))
    flag = emit(llvm.AddressOfOp(BOUNDS_FLAG, PTR))
    bad = emit(llvm.ZExtOp(emit(llvm.XOrOp(ok, const(rewriter, at, 1, i1))), i8))
    old = emit(llvm.LoadOp(flag, i8))
    rewriter.insert(llvm.StoreOp(emit(llvm.OrOp(old, bad)), flag), at)
    ptr = emit(gep(base, off, st))
    if not store:
        return ptr
    sink = emit(llvm.AddressOfOp(f"{BOUNDS_SINK}{lanes * _byte_size(st)}", PTR))
    return emit(llvm.SelectOp(ok, ptr, sink))


def _byte_size(t) -> int:
    return max(1, t.bitwidth // 8) if hasattr(t, "bitwidth") else 8  # a pointer


@dataclass
class AccessPattern(RewritePattern):
    """``memref.load`` and ``memref.store``."""

    bounds_check: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, memref.LoadOp):  # operands by position: (memref, *indices)
            ptr = element_ptr(rewriter, op, op._operands[0], op._operands[1:], self.bounds_check)  # noqa: SLF001
            st = storage_type(op.res.type)
            if st == llvm_type(op.res.type):
                morph(rewriter, op, llvm.LoadOp, (ptr,), access_props())
                return
            wide = build(llvm.LoadOp, (ptr,), (st,), access_props())  # an i1 is a byte in memory
            replace_with_llvm(rewriter, op, [wide, trunc := llvm.TruncOp(wide.results[0], op.res.type)], trunc.results)
        elif isinstance(op, memref.StoreOp):  # (value, memref, *indices)
            stored, ref, *indices = op._operands  # noqa: SLF001
            ptr = element_ptr(rewriter, op, ref, indices, self.bounds_check, store=True)
            value = as_llvm(rewriter, stored, before(op))
            st = storage_type(stored.type)
            if st == value.type:
                morph(rewriter, op, llvm.StoreOp, (value, ptr), access_props())
                return
            wide = llvm.ZExtOp(value, st)
            replace_with_llvm(rewriter, op, [wide, build(llvm.StoreOp, (wide.results[0], ptr), (), access_props())], [])


class ViewPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.ViewOp, rewriter: PatternRewriter, /) -> None:
        static_memref(op.result.type, "memref.view")
        at = before(op)
        src = as_llvm(rewriter, op.source, at)
        shift = constant_int(op.byte_shift)
        if shift == 0:
            replace_with_llvm(rewriter, op, [], [src])
        elif shift is not None:
            replace_with_llvm(rewriter, op, [ptr := gep(src, shift, i8)], ptr.results)
        else:
            ptr = gep(src, as_llvm(rewriter, op.byte_shift, at), i8)
            replace_with_llvm(rewriter, op, [ptr], ptr.results)


class CollapseShapePattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CollapseShapeOp, rewriter: PatternRewriter, /) -> None:
        static_memref(memref_type(op.src), "memref.collapse_shape")
        static_memref(op.result.type, "memref.collapse_shape")
        replace_with_llvm(rewriter, op, [], [as_llvm(rewriter, op.src, before(op))])


class SubviewPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.SubviewOp, rewriter: PatternRewriter, /) -> None:
        src_t = static_memref(memref_type(op.source), "memref.subview source")
        offsets, strides = op.static_offsets.get_values(), op.static_strides.get_values()
        if op.offsets or op.sizes or op.strides or any(s != 1 for s in strides):
            raise LoopToLLVMError("memref.subview: only static offsets and sizes with unit strides are supported")
        linear = 0
        for off, dim in zip(offsets, src_t.get_shape(), strict=True):
            linear = linear * dim + off
        src = as_llvm(rewriter, op.source, before(op))
        if linear == 0:
            replace_with_llvm(rewriter, op, [], [src])
            return
        st = storage_type(src_t.element_type)
        if linear < 2**31:  # a constant GEP index is an i32
            ptr = gep(src, linear, st)
        else:
            ptr = gep(src, const(rewriter, before(op), linear, i64), st)
        replace_with_llvm(rewriter, op, [ptr], ptr.results)


class AllocaPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter, /) -> None:
        t = static_memref(op.memref.type, "memref.alloca")
        if op.dynamic_sizes or op.symbol_operands:
            raise LoopToLLVMError("memref.alloca with dynamic sizes is not supported")
        fn = op.parent_op()
        while fn is not None and not _is_function(fn):
            fn = fn.parent_op()
        if fn is None or fn.regions[0].first_block is None:
            raise LoopToLLVMError("memref.alloca outside a function")
        size = build(llvm.ConstantOp, (), (i64,), {"value": int_attr(max(1, num_elements(t)), i64)})
        op.detach()  # first, so that the entry's start is not before the op itself
        rewriter.insert([size, op], InsertPoint.at_start(fn.regions[0].first_block))
        morph(rewriter, op, llvm.AllocaOp, size.results, {"alignment": _ALIGN_64, "elem_type": storage_type(t.element_type)})


_ALIGN_64 = IntegerAttr(64, 64)


def _is_function(op: Operation | None) -> bool:
    return op is not None and op.name in ("func.func", "llvm.func")


class GetGlobalPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GetGlobalOp, rewriter: PatternRewriter, /) -> None:
        morph(rewriter, op, llvm.AddressOfOp, (), {"global_name": op.name_})


class GlobalPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GlobalOp, rewriter: PatternRewriter, /) -> None:
        t = static_memref(op.type, f"memref.global @{op.sym_name.data}")
        st = storage_type(t.element_type)
        n = max(1, num_elements(t))
        init = op.initial_value
        if isinstance(init, DenseIntOrFPElementsAttr):
            arr = dense_to_numpy(init, t.get_shape()).reshape(-1)
            if arr.dtype == np.bool_:
                arr = arr.astype(np.uint8)
            raw = np.ascontiguousarray(arr.astype(arr.dtype.newbyteorder("<"), copy=False)).tobytes()
            value = DenseIntOrFPElementsAttr(TensorType(st, [arr.size]), BytesAttr(raw))
        elif init is None or isinstance(init, UnitAttr | NoneAttr):
            zero = 0.0 if isinstance(st, AnyFloat) else 0
            value = DenseIntOrFPElementsAttr.from_list(TensorType(st, [n]), [zero] * n)
        else:
            raise LoopToLLVMError(f"memref.global @{op.sym_name.data}: unsupported initializer")
        g = llvm.GlobalOp(
            llvm.LLVMArrayType(n, st), op.sym_name.data, "internal",
            constant=op.constant is not None, value=value, alignment=64,
        )  # fmt: skip
        rewriter.replace(op, [g], [])


class CopyPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CopyOp, rewriter: PatternRewriter, /) -> None:
        at = before(op)
        nbytes = memref_num_bytes(static_memref(memref_type(op.source), "memref.copy"))
        args = [
            as_llvm(rewriter, op.destination, at),
            as_llvm(rewriter, op.source, at),
            const(rewriter, at, nbytes, i64),
            const(rewriter, at, 0, IntegerType(1)),
        ]
        replace_with_llvm(rewriter, op, [call_intrinsic("llvm.memcpy.p0.p0.i64", args, [])], [])


@dataclass
class PrefetchPattern(RewritePattern):
    bounds_check: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrefetchOp, rewriter: PatternRewriter, /) -> None:
        at = before(op)
        ptr = element_ptr(rewriter, op, op.memref, op.indices, self.bounds_check)
        rw = 0 if op.write is None else 1
        flags = [const(rewriter, at, v, i32) for v in (rw, op.locality.value.data, 1)]  # read/write, locality, data
        replace_with_llvm(rewriter, op, [call_intrinsic("llvm.prefetch.p0", [ptr, *flags], [])], [])


@dataclass(frozen=True)
class ConvertMemRefToLLVMPass(ConversionPass):
    name = "convert-memref-to-llvm"

    bounds_check: bool = False

    def patterns(self):
        access = AccessPattern(self.bounds_check)
        return {
            memref.LoadOp: access, memref.StoreOp: access, memref.ViewOp: ViewPattern(),
            memref.AllocaOp: AllocaPattern(), memref.GetGlobalOp: GetGlobalPattern(),
            memref.GlobalOp: GlobalPattern(), memref.CopyOp: CopyPattern(),
            memref.CollapseShapeOp: CollapseShapePattern(), memref.SubviewOp: SubviewPattern(),
            PrefetchOp: PrefetchPattern(self.bounds_check),
        }  # fmt: skip

    def finish(self, op, patterns) -> None:
        if self.bounds_check:
            add_bounds_flag(op)


def add_bounds_flag(module) -> None:
    """The ``@graphopt_bounds_error`` byte and the scratch globals of the
    checked stores, once each, if a checked access uses them."""
    names = {o.sym_name.data for o in module.body.block.ops if isinstance(o, llvm.GlobalOp)}
    used = {o.global_name.root_reference.data for o in walk_ops(module) if type(o) is llvm.AddressOfOp}
    if BOUNDS_FLAG not in names and BOUNDS_FLAG in used:
        module.body.block.add_op(llvm.GlobalOp(i8, BOUNDS_FLAG, "common", value=IntegerAttr(0, i8)))
    for name in sorted(used - names):
        if name.startswith(BOUNDS_SINK) and name[len(BOUNDS_SINK):].isdigit():
            size = int(name[len(BOUNDS_SINK):])
            module.body.block.add_op(llvm.GlobalOp(llvm.LLVMArrayType(size, i8), name, "internal", alignment=64))
