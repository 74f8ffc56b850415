"""Shared machinery of the arith and math conversions to ``llvm``.

A conversion is a table of handlers, one per op class.  A handler receives an
:class:`Emitter` (which inserts llvm ops before the op being converted), the
op and its operands already in llvm types, and returns the converted results.
:class:`ScalarPattern` applies a table; ops on non-scalar types (vectors,
tensors) are left alone for the conversion that handles them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod

from xdsl.dialects import llvm
from xdsl.dialects.builtin import AnyFloat, Float32Type, Float64Type, IndexType, IntegerType, ModuleOp, VectorType, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from graphopt.lowering.to_llvm.common import as_llvm, before, build, by_identity, call, call_intrinsic, cast_back, const as _const, constant_int, int_attr, llvm_type, morph, shared


class Emitter:
    """Inserts llvm ops at ``at`` (before the op converted); records libm
    functions it calls."""

    def __init__(self, rewriter: PatternRewriter, at: InsertPoint, externals: dict[str, llvm.LLVMFunctionType]):
        self.rewriter, self.at, self.externals = rewriter, at, externals
        self.created: list[Operation] = []
        self.morphed = False

    def emit(self, op: Operation) -> Operation:
        self.rewriter.insert(op, self.at)
        self.created.append(op)
        return op

    def morph(self, op: Operation, cls: type[Operation], operands: Sequence[SSAValue], properties: dict | None = None) -> list[SSAValue]:
        """``op`` itself becomes the ``cls`` op (:func:`.common.morph`), last."""
        results = morph(self.rewriter, op, cls, operands, properties)
        self.created.append(results[0].owner)  # type: ignore[arg-type]
        self.morphed = True
        return results

    def libm_call(self, name: str, args: Sequence[SSAValue], ret: Attribute) -> SSAValue:
        self.externals[name] = llvm.LLVMFunctionType([a.type for a in args], ret)
        return self.emit(call(name, args, ret)).results[0]


def const(e: Emitter, value: int | float, t: Attribute, op: Operation | None = None) -> SSAValue:
    """The constant (:func:`.common.const`); ``op``, an ``arith.constant``,
    may become it."""
    v = _const(e.rewriter, e.at, value, t, op)
    e.created.append(v.owner)  # type: ignore[arg-type]
    e.morphed |= v.owner is op
    return v


def _r(op: Operation) -> list[SSAValue]:
    return list(op.results)


def _width(t: Attribute) -> int:
    t = llvm_type(t)
    assert isinstance(t, IntegerType)
    return t.width.data


def _fsuffix(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    width = getattr(t, "bitwidth", None)
    return f"f{width}"


def _tsuffix(t: Attribute) -> str:
    """The type-mangling suffix of an overloaded float intrinsic (``f32``,
    ``v8f64``).  xDSL's own ``llvm.FSqrtOp``... translate to unmangled names
    (``llvm.sqrt``), so an f32 and an f64 use in one module would clash."""
    if isinstance(t, VectorType):
        return f"v{prod(t.get_shape())}{_fsuffix(t.element_type)}"
    return _fsuffix(t)


def _isuffix(t: Attribute) -> str:
    return f"i{_width(t)}"


def _intrinsic(e: Emitter, name: str, args: Sequence[SSAValue], ret: Attribute) -> list[SSAValue]:
    return _r(e.emit(call_intrinsic(name, args, [ret])))



Handler = Callable[[Emitter, Operation, list[SSAValue]], list[SSAValue]]


def _icmp(e: Emitter, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    p = int_attr(llvm.ICmpPredicateFlag(pred).to_int(), i64)
    rt = VectorType(i1, a.type.get_shape()) if isinstance(a.type, VectorType) else i1
    return e.emit(build(llvm.ICmpOp, (a, b), (rt,), {"predicate": p})).results[0]


def _select(e: Emitter, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(build(llvm.SelectOp, (c, a, b), (a.type,))).results[0]


_SCALAR, _ELEMENTWISE = 1, 3
_INTEGER_TYPES = (IntegerType, IndexType)
_KINDS: dict[type, int] = {}


def _kind(t: Attribute) -> int:
    """1 for a scalar, 2 for a 1-D vector of scalars, else 0 (by the type's
    class, cached: ``isinstance`` on ``AnyFloat`` is slow)."""
    k = _KINDS.get(type(t))
    if k is None:
        k = _KINDS[type(t)] = 1 if isinstance(t, IntegerType | IndexType | AnyFloat) else 2 if isinstance(t, VectorType) else 0
    if k == 2:  # a vector: by the type object (a module has a few dozen)
        return by_identity(_VECTOR_KINDS, t, lambda: 2 if t.get_num_dims() == 1 and isinstance(t.element_type, IntegerType | AnyFloat) else 0)  # type: ignore[attr-defined]
    return k


_VECTOR_KINDS: dict = {}


@dataclass
class ScalarPattern(RewritePattern):
    """Convert every op with a handler in ``handlers``; ``externals`` collects
    the libm functions called, to be declared in the module."""

    handlers: dict[type[Operation], Handler]
    externals: dict[str, llvm.LLVMFunctionType] = field(default_factory=dict)
    elementwise: frozenset[type[Operation]] = frozenset()  # also on vectors
    folders: Mapping[type[Operation], object] = field(default_factory=dict)  # ops ``fold`` may fold
    fold: Callable[[Emitter, Operation, list[SSAValue]], list[SSAValue] | None] | None = None
    pure: frozenset[type[Operation]] = frozenset()  # integer ops an equal op of the block replaces

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cls = type(op)
        handler = self.handlers.get(cls)
        if handler is None:
            return
        ok = _SCALAR if cls not in self.elementwise else _ELEMENTWISE
        for v in op._operands:  # noqa: SLF001
            if not _kind(v._type) & ok:  # noqa: SLF001
                return
        for v in op.results:
            if not _kind(v._type) & ok:  # noqa: SLF001
                return
        at = before(op)
        key, table = None, shared()
        if cls in self.pure and table is not None and type(op.results[0]._type) in _INTEGER_TYPES:  # noqa: SLF001
            # Keyed by the op's own operands, constants by value, as
            # memref.element_ptr: one walk and the steps give the same IR.
            args = tuple(("c", k) if (k := constant_int(v)) is not None else v for v in op._operands)  # noqa: SLF001
            key = ("pure", at.block, type(op), op.results[0].type, tuple(op.properties.items()), args)
            if (hit := table.get(key)) is not None:
                rewriter.replace(op, [], hit)
                return
        flags = getattr(op.properties.get("fastmath"), "data", None)
        operands = [as_llvm(rewriter, v, at) for v in op._operands]  # noqa: SLF001
        e = Emitter(rewriter, at, self.externals)
        results = self.fold(e, op, operands) if type(op) in self.folders and self.fold is not None else None
        if results is None:
            results = handler(e, op, operands)
        else:  # an operand itself stands for the result: no cast back
            results = [op.operands[operands.index(r)] if r in operands else r for r in results]
        if flags:
            for new in e.created:
                if isinstance(new, llvm.AbstractFloatArithOp | llvm.FNegOp):
                    new.properties["fastmathFlags"] = llvm.FastMathAttr(flags)
        if not e.morphed:  # a morphed op is its own result
            results = [cast_back(rewriter, r, old.type, at) for r, old in zip(results, op.results, strict=True)]
            rewriter.replace(op, [], results)
        if key is not None:
            table[key] = results  # type: ignore[index]


def declare_externals(module: ModuleOp, externals: dict[str, llvm.LLVMFunctionType]) -> None:
    """Add an external ``llvm.func`` for every function called, once."""
    have = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)}
    for name, ft in externals.items():
        if name not in have:
            module.body.block.add_op(llvm.FuncOp(name, ft, linkage=llvm.LinkageAttr("external")))
