"""LLVM IR text of a module of ``llvm.func`` and ``llvm.mlir.global`` ops.

Printed directly, one line per op, with opaque pointers (``ptr``): no cast
is needed between pointer types, and a vector is loaded straight from its
element's address.  Going through xDSL's ``convert_module`` and llvmlite's
IR objects instead cost a quarter of the Python time of a compile, and
llvmlite's typed pointers put a ``bitcast`` in front of every access.

Values are named ``%vN`` (results), ``%aN`` (arguments) and blocks ``bN``,
numbered in print order, so the text depends only on the ops and their
order.  Constants, ``undef`` and global addresses are printed where they are
used.  A private function with a body is ``internal`` and ``noinline``
(:mod:`.func`); a dense global initializer is printed as its bytes.  A latch
branch with loop hints (:mod:`.cf`) gets a distinct ``!llvm.loop`` node.
"""

from __future__ import annotations

import struct

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from graphopt.lowering.to_llvm.cf import LOOP_HINTS, loop_hints
from graphopt.lowering.to_llvm.common import LoopToLLVMError, by_identity, dense_to_numpy
from graphopt.lowering.to_llvm.scalar import _tsuffix

_FLAGS = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn")  # LLVM's order
_TYPES: dict = {}


def ty(t: Attribute) -> str:
    """The LLVM spelling of a type (cached: a module uses a few dozen)."""
    return by_identity(_TYPES, t, lambda: _spell(t))


def _spell(t: Attribute) -> str:
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, Float16Type | Float32Type | Float64Type):
        return {16: "half", 32: "float", 64: "double"}[t.bitwidth]
    if isinstance(t, llvm.LLVMPointerType):
        return "ptr"
    if isinstance(t, VectorType) and t.get_num_dims() == 1:
        return f"<{t.get_shape()[0]} x {ty(t.element_type)}>"
    if isinstance(t, llvm.LLVMArrayType):
        return f"[{t.size.data} x {ty(t.type)}]"
    if isinstance(t, llvm.LLVMVoidType):
        return "void"
    raise LoopToLLVMError(f"type {t} cannot be printed as LLVM IR")


def _float(v: float, t: Attribute) -> str:
    if isinstance(t, Float32Type):
        v = struct.unpack("<f", struct.pack("<f", v))[0]
    elif isinstance(t, Float16Type):
        v = float(np.float16(v))
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]


def _constant(op: llvm.ConstantOp) -> str:
    value, t = op.value, op.result.type
    if isinstance(value, IntegerAttr):
        v = value.value.data
        return ("true" if v else "false") if ty(t) == "i1" else str(v)
    if isinstance(value, FloatAttr):
        return _float(value.value.data, t)
    raise LoopToLLVMError(f"llvm.mlir.constant {value} cannot be printed as LLVM IR")


def _flags(op: Operation) -> str:
    fm = op.properties.get("fastmathFlags")
    if not isinstance(fm, llvm.FastMathAttr) or not fm.data:
        return ""
    names = {f.value for f in fm.data}
    return "".join(f" {f}" for f in _FLAGS if f in names)


def _bin(opcode: str):
    def p(f: _Function, op: Operation) -> str:
        a, b = op._operands  # noqa: SLF001  (IRDL's named accessors are slow; see _PRINTERS)
        ov = op.properties.get("overflowFlags")
        flags = ""
        if isinstance(ov, IntegerAttr) and ov.value.data:
            flags = "".join(f" {n}" for bit, n in ((2, "nuw"), (1, "nsw")) if ov.value.data & bit)
        elif "isExact" in op.properties:
            flags = " exact"
        elif "isDisjoint" in op.properties:
            flags = " disjoint"
        return f"{opcode}{flags}{_flags(op)} {ty(a.type)} {f.v(a)}, {f.v(b)}"

    return p


def _cast(opcode: str):
    def p(f: _Function, op: Operation) -> str:
        flag = " nneg" if "nonNeg" in op.properties else ""
        return f"{opcode}{flag} {f.tv(op._operands[0])} to {ty(op.results[0].type)}"  # noqa: SLF001

    return p


def _gep(f: _Function, op: llvm.GEPOp) -> str:
    ptr, *ssa_indices = op._operands  # noqa: SLF001
    ssa = iter(ssa_indices)
    props = op.properties
    idx = [f.tv(next(ssa)) if i == llvm.GEP_USE_SSA_VAL else f"i32 {i}" for i in _values(props["rawConstantIndices"])]
    inb = " inbounds" if "inbounds" in props else ""
    return f"getelementptr{inb} {ty(props['elem_type'])}, ptr {f.v(ptr)}, " + ", ".join(idx)


_VALUES: dict = {}  # the conversion shares its index and mask arrays


def _values(array: DenseArrayBase) -> tuple:
    return by_identity(_VALUES, array, lambda: tuple(array.get_values()))


def _align(op: Operation) -> str:
    a = op.properties.get("alignment")
    return f", align {a.value.data}" if isinstance(a, IntegerAttr) else ""


def _call(f: _Function, op: llvm.CallOp) -> str:
    if op.callee is None:
        raise LoopToLLVMError("indirect llvm.call cannot be printed as LLVM IR")
    ret = ty(op.returned.type) if op.returned is not None else "void"
    args = ", ".join(f.tv(a) for a in op.args)
    return f"call{_flags(op) if op.returned is not None else ''} {ret} @\"{op.callee.string_value()}\"({args})"


def _intrinsic(f: _Function, op: Operation, name: str, ret: Attribute | None) -> str:
    args = op._operands  # noqa: SLF001
    f.declare(name, ret, [a.type for a in args])
    return f"call {ty(ret) if ret is not None else 'void'} @\"{name}\"({', '.join(f.tv(a) for a in args)})"


def _branch(f: _Function, op: Operation) -> str:
    succ = op._successors  # noqa: SLF001
    if isinstance(op, llvm.BrOp):
        hints = loop_hints(op)
        return f"br label %{f.blocks[succ[0]]}" + (f", !llvm.loop {f.loop_id(hints)}" if hints else "")
    assert isinstance(op, llvm.CondBrOp)
    return f"br i1 {f.v(op._operands[0])}, label %{f.blocks[succ[0]]}, label %{f.blocks[succ[1]]}"  # noqa: SLF001


def _shuffle(f: _Function, op: llvm.ShuffleVectorOp) -> str:
    mask = _values(op.properties["mask"])
    m = "zeroinitializer" if not any(mask) else "<" + ", ".join(f"i32 {i}" for i in mask) + ">"
    v1, v2 = op._operands  # noqa: SLF001
    return f"shufflevector {f.tv(v1)}, {f.tv(v2)}, <{len(mask)} x i32> {m}"


_FMA_NAMES: dict = {}


def _fma_name(t: Attribute) -> str:
    return by_identity(_FMA_NAMES, t, lambda: f"llvm.fma.{_tsuffix(t)}")


_ICMP = {p.to_int(): p.value for p in llvm.ICmpPredicateFlag}
_FCMP = {p.to_int(): p.value for p in llvm.FCmpPredicateFlag}

_PRINTERS = {
    **{cls: _bin(name) for cls, name in (
        (llvm.AddOp, "add"), (llvm.SubOp, "sub"), (llvm.MulOp, "mul"), (llvm.SDivOp, "sdiv"),
        (llvm.UDivOp, "udiv"), (llvm.SRemOp, "srem"), (llvm.URemOp, "urem"), (llvm.AndOp, "and"),
        (llvm.OrOp, "or"), (llvm.XOrOp, "xor"), (llvm.ShlOp, "shl"), (llvm.LShrOp, "lshr"),
        (llvm.AShrOp, "ashr"), (llvm.FAddOp, "fadd"), (llvm.FSubOp, "fsub"), (llvm.FMulOp, "fmul"),
        (llvm.FDivOp, "fdiv"),
    )},
    **{cls: _cast(name) for cls, name in (
        (llvm.TruncOp, "trunc"), (llvm.ZExtOp, "zext"), (llvm.SExtOp, "sext"), (llvm.BitcastOp, "bitcast"),
        (llvm.SIToFPOp, "sitofp"), (llvm.FPExtOp, "fpext"), (llvm.FPTruncOp, "fptrunc"),
    )},
    # Operands by position (``op._operands``), not by IRDL's named accessors:
    # these are the most frequent ops, and an accessor costs a lookup of the
    # op's definition.
    llvm.ICmpOp: lambda f, op: f"icmp {_ICMP[op.predicate.value.data]} {f.tv(op._operands[0])}, {f.v(op._operands[1])}",
    llvm.FCmpOp: lambda f, op: f"fcmp{_flags(op)} {_FCMP[op.predicate.value.data]} {f.tv(op.lhs)}, {f.v(op.rhs)}",
    llvm.FNegOp: lambda f, op: f"fneg{_flags(op)} {f.tv(op.arg)}",
    llvm.SelectOp: lambda f, op: f"select{_flags(op)} {', '.join(f.tv(a) for a in op._operands)}",
    llvm.LoadOp: lambda f, op: f"load {ty(op.results[0].type)}, ptr {f.v(op._operands[0])}{_align(op)}",
    llvm.StoreOp: lambda f, op: f"store {f.tv(op._operands[0])}, ptr {f.v(op._operands[1])}{_align(op)}",
    llvm.GEPOp: _gep,
    llvm.AllocaOp: lambda f, op: f"alloca {ty(op.elem_type)}, {f.tv(op.size)}{_align(op)}",
    llvm.CallOp: _call,
    llvm.CallIntrinsicOp: lambda f, op: _intrinsic(f, op, op.intrin.data, op.ress.type if op.ress else None),
    llvm.FMAOp: lambda f, op: _intrinsic(f, op, _fma_name(op.results[0].type), op.results[0].type),
    llvm.InsertElementOp: lambda f, op: f"insertelement {f.tv(op.vector)}, {f.tv(op.value)}, {f.tv(op.index)}",
    llvm.ShuffleVectorOp: _shuffle,
    llvm.BrOp: _branch,
    llvm.CondBrOp: _branch,
    llvm.ReturnOp: lambda f, op: f"ret {f.tv(op.arg)}" if op.arg is not None else "ret void",
}  # fmt: skip

#: Ops printed where their result is used, not as instructions.
_INLINE = {
    llvm.ConstantOp: _constant,
    llvm.UndefOp: lambda op: "undef",
    llvm.AddressOfOp: lambda op: f'@"{op.global_name.root_reference.data}"',
}


class _Function:
    """The names of one function's values and blocks while it is printed."""

    def __init__(self, declare, metadata: list[str]) -> None:
        self.names: dict[int, str] = {}  # by id(value): SSAValue.__hash__ is a Python call
        self.blocks: dict[Block, str] = {}
        self.declare = declare
        self.metadata = metadata

    def loop_id(self, hints: tuple[str, ...]) -> str:
        """A new distinct ``!llvm.loop`` node holding ``hints``."""
        md, own = self.metadata, len(self.metadata)
        md.append(f"distinct !{{!{own}" + "".join(f", !{own + 1 + k}" for k in range(len(hints))) + "}")
        md.extend(f"!{{{LOOP_HINTS[h]}}}" for h in hints)
        return f"!{own}"

    def v(self, value: SSAValue) -> str:
        name = self.names.get(id(value))
        if name is None:
            owner = value.owner
            inline = _INLINE.get(type(owner))
            if inline is None:
                raise LoopToLLVMError(f"a value of '{getattr(owner, 'name', 'block')}' is used before it is defined")
            name = self.names[id(value)] = inline(owner)
        return name

    def tv(self, value: SSAValue) -> str:
        return f"{ty(value._type)} {self.v(value)}"  # noqa: SLF001  (``type`` is a Python property)


def _function(fn: llvm.FuncOp, out: list[str], declare, metadata: list[str]) -> None:
    name = fn.sym_name.data
    ft = fn.function_type
    arg_attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
    params = []
    for i, t in enumerate(ft.inputs.data):
        noalias = i < len(arg_attrs) and "llvm.noalias" in arg_attrs[i].data
        params.append(f"{ty(t)}{' noalias' if noalias else ''}")
    ret = ty(ft.output)
    if not fn.body.blocks:
        out.append(f'declare {ret} @"{name}"({", ".join(params)})\n')
        return
    f = _Function(declare, metadata)
    blocks = list(fn.body.blocks)
    incoming: dict[int, list[str]] = {}  # by id, as names
    for i, block in enumerate(blocks):
        f.blocks[block] = f"b{i}"
    for i, arg in enumerate(blocks[0].args):
        f.names[id(arg)] = f"%a{i}"
    n = 0
    for block in blocks[1:]:
        for arg in block.args:
            f.names[id(arg)] = f"%v{n}"
            incoming[id(arg)] = []
            n += 1
    for block in blocks:
        for op in block.ops:
            if op.results and type(op) not in _INLINE:
                f.names[id(op.results[0])] = f"%v{n}"
                n += 1
    linkage = fn.linkage.linkage.data
    head = "define" if linkage == "external" else f"define {linkage}"
    args = ", ".join(f"{p} {f.names[id(a)]}" for p, a in zip(params, blocks[0].args))
    out.append(f'{head} {ret} @"{name}"({args}){" noinline" if linkage != "external" else ""}\n{{\n')
    body: list[list[str]] = []
    for block in blocks:
        lines: list[str] = []
        for op in block.ops:
            t = type(op)
            if t in _INLINE:
                continue
            printer = _PRINTERS.get(t)
            if printer is None:
                raise LoopToLLVMError(f"'{op.name}' cannot be printed as LLVM IR (in @{name})")
            text = printer(f, op)
            lines.append(f"  {f.names[id(op.results[0])]} = {text}\n" if op.results else f"  {text}\n")
            if t is llvm.BrOp or t is llvm.CondBrOp:
                here = f.blocks[block]
                edges = [(op._successors[0], op._operands)] if t is llvm.BrOp else [  # noqa: SLF001
                    (op.then_block, op.then_arguments), (op.else_block, op.else_arguments)]  # fmt: skip
                for succ, values in edges:
                    for arg, value in zip(succ.args, values, strict=True):
                        incoming[id(arg)].append(f"[{f.v(value)}, %{here}]")
        body.append(lines)
    for block, lines in zip(blocks, body):
        out.append(f"{f.blocks[block]}:\n")
        for arg in block.args if block is not blocks[0] else ():
            out.append(f"  {f.names[id(arg)]} = phi {ty(arg.type)} {', '.join(incoming[id(arg)])}\n")
        out.extend(lines)
    out.append("}\n\n")


def _global(op: llvm.GlobalOp) -> str:
    kind = "constant" if op.constant is not None else "global"
    t, value = op.global_type, op.value
    if value is None:
        init = f"{ty(t)} zeroinitializer"
    elif isinstance(value, DenseIntOrFPElementsAttr):
        raw = np.ascontiguousarray(dense_to_numpy(value).reshape(-1)).tobytes()
        init = f'[{len(raw)} x i8] c"{_escape(raw)}"' if raw.strip(b"\0") else f"[{len(raw)} x i8] zeroinitializer"
    elif isinstance(value, IntegerAttr):
        init = f"{ty(t)} {value.value.data}"
    elif isinstance(value, FloatAttr):
        init = f"{ty(t)} {_float(value.value.data, t)}"
    else:
        raise LoopToLLVMError(f"llvm.mlir.global @{op.sym_name.data}: initializer {value} cannot be printed")
    return f'@"{op.sym_name.data}" = {op.linkage.linkage.data} {kind} {init}{_align(op)}\n'


_HEX = np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8)


def _escape(raw: bytes) -> str:
    """Every byte as ``\\XX`` (vectorised: weights can be megabytes)."""
    b = np.frombuffer(raw, dtype=np.uint8)
    out = np.empty((b.size, 3), dtype=np.uint8)
    out[:, 0], out[:, 1], out[:, 2] = ord("\\"), _HEX[b >> 4], _HEX[b & 15]
    return out.tobytes().decode("ascii")


def print_llvm_ir(module: ModuleOp, target_triple: str) -> str:
    """The module's LLVM IR text."""
    out = [f'target triple = "{target_triple}"\n\n']
    decls: dict[str, str] = {}
    metadata: list[str] = []

    def declare(name: str, ret: Attribute | None, args: list[Attribute]) -> None:
        if name not in decls:
            decls[name] = f"declare {ty(ret) if ret is not None else 'void'} @\"{name}\"({', '.join(ty(a) for a in args)})\n"

    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            out.append(_global(op))
    out.append("\n")
    for op in module.ops:
        if isinstance(op, llvm.FuncOp):
            _function(op, out, declare, metadata)
        elif not isinstance(op, llvm.GlobalOp):
            raise LoopToLLVMError(f"'{op.name}' at module level cannot be printed as LLVM IR")
    out.extend(decls.values())
    out.extend(f"!{i} = {node}\n" for i, node in enumerate(metadata))
    return "".join(out)
