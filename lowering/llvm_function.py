"""Lowering one ``func.func`` of the loop level to an ``llvm.func`` body.

Used by ``lower-loop-to-llvm`` (``lowering.loop_to_llvm``), which owns the
module-level work: globals, hidden constants and the driver ABI.  The
conventions (bare pointers, row-major linearisation, ``i1`` stored as a byte,
``loop.for`` as header/body/exit blocks) are described there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from xdsl.dialects import func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from graphopt.dialects import loop
from graphopt.errors import LoweringError
from graphopt.lowering.llvm_scalar import (
    UnsupportedOpError,
    const,
    llvm_scalar_type,
    lower_scalar_op,
)

PTR = llvm.LLVMPointerType()


class LoopToLLVMError(LoweringError):
    """The loop-level module cannot be lowered (unsupported op, bad ABI...)."""


class ModuleContext(Protocol):
    """What a function lowering needs from its module lowering."""

    def declare_external(self, name: str, arg_types: Sequence[Attribute], ret: Attribute) -> None: ...


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def storage_type(t: Attribute) -> Attribute:
    """How an element is stored in memory (i1 -> i8, index -> i64)."""
    if isinstance(t, IntegerType) and t.width.data == 1:
        return i8
    return llvm_scalar_type(t)


def llvm_type(t: Attribute) -> Attribute:
    if isinstance(t, MemRefType):
        return PTR
    if isinstance(t, IntegerType | IndexType | AnyFloat):
        return llvm_scalar_type(t)
    raise LoopToLLVMError(f"type {t} is not supported by lower-loop-to-llvm")


def static_memref(t: Attribute, what: str) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise LoopToLLVMError(f"{what}: expected a memref, got {t}")
    if any(d < 0 for d in t.get_shape()) or not isinstance(t.layout, NoneAttr):
        raise LoopToLLVMError(f"{what}: only static identity-layout memrefs are supported, got {t}")
    return t


def num_elements(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


# ---------------------------------------------------------------------------
# function lowering
# ---------------------------------------------------------------------------


class FuncLowering:
    """Lowers one loop-level function body to LLVM dialect blocks."""

    def __init__(self, mod: ModuleContext, fn: func.FuncOp):
        self.mod = mod
        self.fn = fn
        self.hidden_args: dict[str, SSAValue] = {}
        self.vmap: dict[SSAValue, SSAValue] = {}
        self.region = Region()
        self.entry: Block | None = None
        self.cur: Block | None = None

    # -- Emitter protocol ---------------------------------------------------
    def emit(self, op: Operation) -> Operation:
        assert self.cur is not None
        self.cur.add_op(op)
        return op

    def libm_call(self, name: str, args: Sequence[SSAValue], ret: Attribute) -> SSAValue:
        self.mod.declare_external(name, [a.type for a in args], ret)
        call = llvm.CallOp(name, *args, return_type=ret)
        self.emit(call)
        assert call.returned is not None
        return call.returned

    # -- helpers ------------------------------------------------------------
    def v(self, x: SSAValue) -> SSAValue:
        return self.vmap[x]

    def new_block(self, arg_types: Sequence[Attribute] = ()) -> Block:
        b = Block(arg_types=arg_types)
        return b

    def start(self, b: Block) -> None:
        self.region.add_block(b)
        self.cur = b

    def element_ptr(self, base: SSAValue, t: MemRefType, indices: Sequence[SSAValue]) -> SSAValue:
        shape = t.get_shape()
        if not shape:
            return base
        off: SSAValue | None = None
        nsw = llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP])
        for dim, idx in zip(shape, indices):
            if off is None:
                off = idx
            else:
                m = self.emit(llvm.MulOp(off, const(self, dim, i64), overflow=nsw)).results[0]
                off = self.emit(llvm.AddOp(m, idx, overflow=nsw)).results[0]
        assert off is not None
        gep = llvm.GEPOp(
            base, [llvm.GEP_USE_SSA_VAL], storage_type(t.element_type), [off], inbounds=True
        )
        return self.emit(gep).results[0]

    def load(self, base: SSAValue, t: MemRefType, indices: Sequence[SSAValue]) -> SSAValue:
        ptr = self.element_ptr(base, t, indices)
        st = storage_type(t.element_type)
        v = self.emit(llvm.LoadOp(ptr, st)).results[0]
        if st != llvm_scalar_type(t.element_type):
            v = self.emit(llvm.TruncOp(v, t.element_type)).results[0]
        return v

    def store(self, value: SSAValue, base: SSAValue, t: MemRefType, indices: Sequence[SSAValue]):
        ptr = self.element_ptr(base, t, indices)
        st = storage_type(t.element_type)
        if st != value.type:
            value = self.emit(llvm.ZExtOp(value, st)).results[0]
        self.emit(llvm.StoreOp(value, ptr))

    def alloca(self, t: MemRefType) -> SSAValue:
        assert self.entry is not None
        size = llvm.ConstantOp(
            llvm_const_attr(max(1, num_elements(t))), i64
        )
        a = llvm.AllocaOp(size.results[0], storage_type(t.element_type), alignment=64)
        first = self.entry.first_op
        if first is None:
            self.entry.add_ops([size, a])
        else:
            self.entry.insert_ops_before([size, a], first)
        return a.results[0]

    # -- main ---------------------------------------------------------------
    def lower(self, hidden_symbols: Sequence[str]) -> Region:
        body = self.fn.body.block
        n = len(body.args)
        entry = Block(
            arg_types=[*(llvm_type(a.type) for a in body.args), *([PTR] * len(hidden_symbols))]
        )
        self.entry = entry
        self.start(entry)
        for old, new in zip(body.args, entry.args):
            self.vmap[old] = new
        for i, sym in enumerate(hidden_symbols):
            self.hidden_args[sym] = entry.args[n + i]
        self.lower_ops(body.ops)
        return self.region

    def lower_ops(self, ops) -> None:
        for op in ops:
            try:
                self.lower_op(op)
            except UnsupportedOpError as exc:
                raise LoopToLLVMError(f"{exc} (in @{self.fn.sym_name.data})") from None

    def lower_op(self, op: Operation) -> None:
        match op:
            case loop.ForOp():
                self.lower_for(op)
            case loop.LoadOp():
                t = static_memref(op.memref.type, "loop.load")
                self.vmap[op.res] = self.load(
                    self.v(op.memref), t, [self.v(i) for i in op.indices]
                )
            case loop.StoreOp():
                t = static_memref(op.memref.type, "loop.store")
                self.store(self.v(op.value), self.v(op.memref), t, [self.v(i) for i in op.indices])
            case memref.LoadOp():
                t = static_memref(op.memref.type, "memref.load")
                self.vmap[op.res] = self.load(
                    self.v(op.memref), t, [self.v(i) for i in op.indices]
                )
            case memref.StoreOp():
                t = static_memref(op.memref.type, "memref.store")
                self.store(self.v(op.value), self.v(op.memref), t, [self.v(i) for i in op.indices])
            case loop.ViewOp():
                static_memref(op.res.type, "loop.view")
                if op.byte_offset == 0:
                    self.vmap[op.res] = self.v(op.workspace)
                else:
                    gep = llvm.GEPOp(self.v(op.workspace), [op.byte_offset], i8, inbounds=True)
                    self.vmap[op.res] = self.emit(gep).results[0]
            case memref.AllocaOp():
                t = static_memref(op.memref.type, "memref.alloca")
                if op.dynamic_sizes or op.symbol_operands:
                    raise LoopToLLVMError("memref.alloca with dynamic sizes is not supported")
                self.vmap[op.memref] = self.alloca(t)
            case memref.GetGlobalOp():
                name = op.name_.string_value()
                if name in self.hidden_args:
                    self.vmap[op.memref] = self.hidden_args[name]
                else:
                    addr = llvm.AddressOfOp(name, PTR)
                    self.vmap[op.memref] = self.emit(addr).results[0]
            case memref.CopyOp():
                st = static_memref(op.source.type, "memref.copy")
                nbytes = loop.memref_num_bytes(st)
                args = [
                    self.v(op.destination),
                    self.v(op.source),
                    const(self, nbytes, i64),
                    const(self, 0, IntegerType(1)),
                ]
                self.emit(llvm.CallIntrinsicOp("llvm.memcpy.p0.p0.i64", args, []))
            case func.CallOp():
                callee = op.callee.string_value()
                rtypes = [llvm_type(r.type) for r in op.results]
                if len(rtypes) > 1:
                    raise LoopToLLVMError("calls with several results are not supported")
                call = llvm.CallOp(
                    callee,
                    *[self.v(a) for a in op.arguments],
                    return_type=rtypes[0] if rtypes else None,
                )
                self.emit(call)
                if rtypes:
                    self.vmap[op.results[0]] = call.results[0]
            case func.ReturnOp():
                if len(op.arguments) > 1:
                    raise LoopToLLVMError("functions with several results are not supported")
                self.emit(llvm.ReturnOp(self.v(op.arguments[0]) if op.arguments else None))
            case loop.YieldOp():
                raise AssertionError("loop.yield is handled by loop.for")
            case _:
                results = lower_scalar_op(self, op, [self.v(o) for o in op.operands])
                for old, new in zip(op.results, results, strict=True):
                    self.vmap[old] = new

    def lower_for(self, op: loop.ForOp) -> None:
        lb, ub, step = self.v(op.lb), self.v(op.ub), self.v(op.step)
        inits = [self.v(a) for a in op.iter_args]
        header = self.new_block([i64, *(a.type for a in inits)])
        body = self.new_block()
        exit_ = self.new_block()
        self.emit(llvm.BrOp(header, lb, *inits))
        self.start(header)
        iv, *iters = header.args
        cond = self.emit(
            llvm.ICmpOp(iv, ub, llvm_icmp_pred("slt"))
        ).results[0]
        self.emit(llvm.CondBrOp(cond, body, [], exit_, []))
        self.start(body)
        old_block = op.body.block
        self.vmap[old_block.args[0]] = iv
        for old, new in zip(old_block.args[1:], iters):
            self.vmap[old] = new
        for inner in old_block.ops:
            if isinstance(inner, loop.YieldOp):
                nsw = llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP])
                nxt = self.emit(llvm.AddOp(iv, step, overflow=nsw)).results[0]
                self.emit(llvm.BrOp(header, nxt, *[self.v(v) for v in inner.values]))
            else:
                try:
                    self.lower_op(inner)
                except UnsupportedOpError as exc:
                    raise LoopToLLVMError(f"{exc} (in @{self.fn.sym_name.data})") from None
        self.start(exit_)
        for old, new in zip(op.res, iters):
            self.vmap[old] = new


def llvm_const_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def llvm_icmp_pred(pred: str) -> IntegerAttr:
    return IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64)


