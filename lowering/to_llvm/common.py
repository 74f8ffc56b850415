"""What every per-dialect conversion to ``llvm`` shares.

Types: a memref is a bare ``!llvm.ptr`` to dense row-major data, ``index`` is
``i64``, other scalars are unchanged; an ``i1`` element is stored as one byte.

Each conversion is a pattern-based :class:`ConversionPass`.  Run on its own,
where a converted op meets a value whose type it has not converted yet (an
``index`` from an arith op, a memref from a function argument),
:func:`as_llvm` bridges it with ``builtin.unrealized_conversion_cast`` and
:func:`replace_with_llvm` casts results back, as MLIR's conversions do; xDSL's
``reconcile-unrealized-casts`` removes the casts once every dialect is
converted.

``lower-loop-to-llvm`` instead applies the patterns of all these steps in ONE
walk with types converted in place (:func:`in_place_types`): results are not
cast back and block arguments are retyped directly, since every user is
converted in the same walk.  A memref that became a ``!llvm.ptr`` keeps its
memref type in a side table (:func:`memref_type`), which is all its users
need of it.  A cast is made only where a use is met before its definition is
converted, or where one pointer stands for two memref types (a
``collapse_shape``); such casts are folded after the walk.  The two
ways give the same LLVM IR (tests/unit/test_loop_to_llvm.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from graphopt.errors import LoweringError
from graphopt.lowering.op_builder import attach, build, default_attributes, walk_ops, with_defaults
from graphopt.transforms.levels import require_lowered

PTR = llvm.LLVMPointerType()


class LoopToLLVMError(LoweringError):
    """The loop-level module cannot be lowered (unsupported op, bad ABI...)."""


_BY_CLASS: dict[type, Attribute | None] = {MemRefType: PTR, IndexType: i64}
_UNKNOWN = object()


def llvm_type(t: Attribute) -> Attribute:
    """The llvm-dialect type of a loop-level type: a memref is a pointer,
    ``index`` is ``i64``, other scalars and vectors are themselves (decided
    by the type's class, cached: ``isinstance`` on xDSL's abstract type
    classes and hashing a type are slow, and a module has few classes)."""
    how = _BY_CLASS.get(type(t), _UNKNOWN)
    if how is _UNKNOWN:
        if not isinstance(t, IntegerType | AnyFloat | llvm.LLVMPointerType | VectorType):
            raise LoopToLLVMError(f"type {t} is not supported by lower-loop-to-llvm")
        how = _BY_CLASS[type(t)] = None
    return t if how is None else how


def storage_type(t: Attribute) -> Attribute:
    """How an element is stored in memory (i1 -> i8, index -> i64)."""
    if isinstance(t, IntegerType) and t.width.data == 1:
        return i8
    return llvm_type(t)


def static_memref(t: Attribute, what: str) -> MemRefType:
    if type(t) is MemRefType and by_identity(_STATIC, t, lambda: _is_static(t)):  # checked once per type object
        return t
    if not isinstance(t, MemRefType):
        raise LoopToLLVMError(f"{what}: expected a memref, got {t}")
    if not _is_static(t):
        raise LoopToLLVMError(f"{what}: only static identity-layout memrefs are supported, got {t}")
    return t


def _is_static(t: MemRefType) -> bool:
    return not any(d < 0 for d in t.get_shape()) and isinstance(t.layout, NoneAttr)


_STATIC: dict = {}
_SHAPES: dict = {}


def memref_shape(t: MemRefType) -> tuple[int, ...]:
    """``t.get_shape()``, built once per type object (it unpacks the shape's
    attributes; the accesses of a kernel ask for the same few types)."""
    return by_identity(_SHAPES, t, t.get_shape)


def num_elements(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


class InPlaceTypes:
    """The state of an in-place conversion walk."""

    def __init__(self) -> None:
        self.memref_of: dict[SSAValue, MemRefType] = {}  # a ptr value -> the memref it stands for
        self.casts: list[UnrealizedConversionCastOp] = []  # casts left for after the walk

    def fold_casts(self) -> bool:
        """After the walk every value has its llvm type: a cast whose input
        is its result's llvm type is that input.  False if others are left."""
        folded = True
        for cast in self.casts:
            if len(cast.inputs) != 1 or len(cast.results) != 1:
                folded = False
                continue
            src, res = cast.inputs[0], cast.results[0]
            if src.type == res.type or src.type == llvm_type(res.type):
                res.replace_all_uses_with(src)
                cast.detach()
                cast.erase()
            else:
                folded = False
        self.casts.clear()
        return folded


_IN_PLACE: ContextVar[InPlaceTypes | None] = ContextVar("in_place_types", default=None)


@contextmanager
def in_place_types() -> Iterator[InPlaceTypes]:
    """Patterns applied inside convert types in place (module docstring)."""
    state = InPlaceTypes()
    token = _IN_PLACE.set(state)
    try:
        yield state
    finally:
        _IN_PLACE.reset(token)


def memref_type(value: SSAValue) -> Attribute:
    """The memref type ``value`` stands for (its own type unless it is a
    pointer converted in place)."""
    state = _IN_PLACE.get()
    if state is not None and (t := state.memref_of.get(value)) is not None:
        return t
    return value.type


def before(op: Operation) -> InsertPoint:
    """``InsertPoint.before(op)`` for an op in a block, without the dataclass
    constructor's check (the conversions ask for one per op converted)."""
    block = op.parent
    if block is None:
        raise ValueError("Operation insertion point must have a parent block")
    at = _new(InsertPoint)
    at.__dict__.update(block=block, insert_before=op)
    return at


_new = object.__new__


def _cast(rewriter: PatternRewriter, value: SSAValue, to: Attribute, at: InsertPoint) -> SSAValue:
    cast = build(UnrealizedConversionCastOp, (value,), (to,))
    rewriter.insert(cast, at)
    if (state := _IN_PLACE.get()) is not None:
        state.casts.append(cast)
    return cast.results[0]


def as_llvm(rewriter: PatternRewriter, value: SSAValue, at: InsertPoint) -> SSAValue:
    """``value`` with its llvm type: itself, the source of a cast, or a new cast."""
    t = value._type  # noqa: SLF001
    target = llvm_type(t)
    if target is t:  # (llvm_type gives a memref or index another type)
        return value
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and owner.inputs[0].type == target:
        return owner.inputs[0]
    return _cast(rewriter, value, target, at)


def cast_back(rewriter: PatternRewriter, value: SSAValue, to: Attribute, at: InsertPoint) -> SSAValue:
    """``value`` standing for a value of type ``to``: a cast, or, converting
    in place, ``value`` itself (a pointer records the memref it stands for)."""
    if value.type == to:
        return value
    state = _IN_PLACE.get()
    if state is None:
        return _cast(rewriter, value, to, at)
    if isinstance(to, MemRefType):
        known = state.memref_of.get(value)
        if known is not None and known != to:
            return _cast(rewriter, value, to, at)  # one pointer, two memref types
        state.memref_of[value] = to
    return value


def replace_with_llvm(rewriter: PatternRewriter, op: Operation, new_ops: Sequence[Operation], results: Sequence[SSAValue]) -> None:
    """Replace ``op`` by ``new_ops`` whose llvm-typed ``results`` stand for
    ``op``'s results, casting back where the types differ."""
    rewriter.insert(list(new_ops), before(op))
    after = before(op)
    rewriter.replace(
        op, [], [cast_back(rewriter, r, old.type, after) for r, old in zip(results, op.results, strict=True)]
    )


def morph(rewriter: PatternRewriter, op: Operation, cls: type[Operation], operands: Sequence[SSAValue], properties: dict | None = None) -> list[SSAValue]:
    """Turn ``op`` into a ``cls`` op in place: the same results (retyped to
    their llvm types), position and uses, ``operands`` instead of its own.  A
    one-to-one conversion then builds, inserts and erases nothing, and no use
    is moved (a model's conversion rewrites tens of thousands of ops).  Run
    on its own, a step casts a retyped result back for its users, as
    :func:`replace_with_llvm` does (in place, a memref result that became a
    pointer records its memref type).  Returns the op's results."""
    own = op._operands  # noqa: SLF001
    if len(operands) != len(own) or any(a is not b for a, b in zip(operands, own)):
        op.operands = operands
    op.__class__ = cls
    op.properties = with_defaults(cls, properties)
    op.attributes = default_attributes(cls)
    rewriter.has_done_action = True
    state = _IN_PLACE.get()
    for r in op.results:
        old = r._type  # noqa: SLF001
        if (target := llvm_type(old)) is not old:  # a memref or index: another type
            uses = () if state is not None else list(r.uses)
            r._type = target  # noqa: SLF001  (the value keeps its uses)
            if state is not None and isinstance(old, MemRefType):
                state.memref_of[r] = old
            if uses:
                cast = UnrealizedConversionCastOp.get([r], [old])
                rewriter.insert(cast, InsertPoint.after(op))
                for use in uses:
                    use.operation.operands[use.index] = cast.results[0]
    return list(op.results)


def retype_block_arguments(rewriter: PatternRewriter, block: Block) -> None:
    """Give ``block``'s arguments their llvm types; uses see a cast back (or,
    converting in place, the retyped argument)."""
    state = _IN_PLACE.get()
    for arg in list(block.args):
        old_type = arg._type  # noqa: SLF001
        target = llvm_type(old_type)
        if target is old_type:  # (llvm_type gives a memref or index another type)
            continue
        if state is not None:  # retyped in place, as morph does
            arg._type = target  # noqa: SLF001
            if isinstance(old_type, MemRefType):
                state.memref_of[arg] = old_type
            continue
        new = Rewriter.replace_value_with_new_type(arg, target)
        uses = list(new.uses)
        if uses:
            cast = UnrealizedConversionCastOp.get([new], [old_type])
            rewriter.insert(cast, InsertPoint.at_start(block))
            for use in uses:
                use.operation.operands[use.index] = cast.results[0]


class InPlaceCastPattern(RewritePattern):
    """Converting in place, a cast an earlier step made is kept for
    :meth:`InPlaceTypes.fold_casts` (users see through it meanwhile)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if (state := _IN_PLACE.get()) is not None and isinstance(op, UnrealizedConversionCastOp):
            state.casts.append(op)


_T = TypeVar("_T")


def by_identity(table: dict[int, tuple[object, _T]], key: object, make: Callable[[], _T]) -> _T:
    """``make()`` cached in ``table`` by ``key``'s identity: hashing an xDSL
    attribute is slow, and a module shares a few hundred attribute objects.
    The entry holds ``key``, so its id is not reused while it is cached."""
    hit = table.get(id(key))
    if hit is None or hit[0] is not key:
        if len(table) > 4096:
            table.clear()
        hit = table[id(key)] = (key, make())
    return hit[1]


def int_attr(value: int, t: IntegerType) -> IntegerAttr:
    """An ``IntegerAttr``, built once per value and type object (building one
    checks its range, and the conversions ask for the same few indices again
    and again; hashing the type is several Python calls)."""
    by_value = by_identity(_INT_ATTRS, t, dict)
    attr = by_value.get(value)
    if attr is None:
        if len(by_value) > 4096:
            by_value.clear()
        attr = by_value[value] = IntegerAttr(value, t)
    return attr


_INT_ATTRS: dict = {}


@functools.lru_cache(maxsize=256)
def segments(*sizes: int) -> DenseArrayBase:
    """The ``operandSegmentSizes`` of an op with operand groups."""
    return DenseArrayBase.from_list(i32, sizes)


NO_WRAP = IntegerAttr(0, 32)  # the overflow flags of llvm.add... without flags
NSW = IntegerAttr(1, 32)  # nsw
_INBOUNDS = UnitAttr()
_ORDERING = IntegerAttr(0, i64)


_Op = TypeVar("_Op", bound=Operation)


def binop_props(cls: type[Operation], nsw: bool = False) -> dict | None:
    """The properties ``llvm.add``, ``llvm.fmul``... are built with."""
    return {"overflowFlags": NSW if nsw else NO_WRAP} if issubclass(cls, llvm.ArithmeticBinOpOverflow) else None


def binop(cls: type[_Op], a: SSAValue, b: SSAValue, nsw: bool = False) -> _Op:
    """``llvm.add``, ``llvm.fmul``... of ``a`` and ``b``."""
    return build(cls, (a, b), (a.type,), binop_props(cls, nsw))


@functools.lru_cache(maxsize=1024)
def _gep_props(indices: tuple[int, ...], t: Attribute, inbounds: bool) -> dict:
    props = {"rawConstantIndices": DenseArrayBase.from_list(i32, indices), "elem_type": t, "noWrapFlags": NO_WRAP}
    if inbounds:
        props["inbounds"] = _INBOUNDS
    return props


def gep(ptr: SSAValue, index: int | SSAValue, t: Attribute, inbounds: bool = True) -> llvm.GEPOp:
    """``getelementptr t, ptr, index``: a constant or an i64 value."""
    if isinstance(index, int):
        return build(llvm.GEPOp, (ptr,), (PTR,), _gep_props((index,), t, inbounds))
    return build(llvm.GEPOp, (ptr, index), (PTR,), _gep_props((llvm.GEP_USE_SSA_VAL,), t, inbounds))


_NO_FASTMATH = llvm.FastMathAttr(None)
_CCC = llvm.CallingConventionAttr("ccc")
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())


@functools.lru_cache(maxsize=256)
def _symbol(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


@functools.lru_cache(maxsize=256)
def _string(name: str) -> StringAttr:
    return StringAttr(name)


def call(callee: str, args: Sequence[SSAValue], ret: Attribute | None) -> llvm.CallOp:
    """``llvm.call @callee(args)`` returning ``ret`` (None: void), as
    ``llvm.CallOp(callee, *args, return_type=ret)`` builds it."""
    props = {"callee": _symbol(callee), "fastmathFlags": _NO_FASTMATH, "CConv": _CCC,
             "op_bundle_sizes": _NO_BUNDLES, "operandSegmentSizes": segments(len(args), 0)}  # fmt: skip
    return build(llvm.CallOp, args, () if ret is None else (ret,), props)


def call_intrinsic(name: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]) -> llvm.CallIntrinsicOp:
    """``llvm.call_intrinsic``, as ``llvm.CallIntrinsicOp(name, args, result_types)`` builds it."""
    props = {"intrin": _string(name), "op_bundle_sizes": _NO_BUNDLES, "operandSegmentSizes": segments(len(args), 0)}
    return build(llvm.CallIntrinsicOp, args, result_types, props)


def access_props(alignment: int | None = None) -> dict:
    """The properties of an ``llvm.load`` or ``llvm.store`` (one dict per
    alignment, shared: the builders copy it)."""
    props = _ACCESS_PROPS.get(alignment)
    if props is None:
        props = _ACCESS_PROPS[alignment] = {"ordering": _ORDERING}
        if alignment is not None:
            props["alignment"] = int_attr(alignment, i64)
    return props


_ACCESS_PROPS: dict[int | None, dict] = {}


#: Per conversion walk: values ops share (constants, addresses).
_SHARED: ContextVar[dict | None] = ContextVar("shared_values", default=None)


def shared() -> dict | None:
    """The table of values shared in this walk (None outside a walk)."""
    return _SHARED.get()


def reuse(key: tuple, make: Callable[[], SSAValue]) -> SSAValue:
    """The value made for ``key`` earlier in this walk, else ``make()``
    (recorded).  Keys name their block where the value is only valid there."""
    table = _SHARED.get()
    if table is None:
        return make()
    hit = table.get(key)
    if hit is None:
        hit = table[key] = make()
    return hit


def _entry_block(at: InsertPoint) -> Block | None:
    """The entry block of the function around ``at`` (it dominates ``at``)."""
    block: Block | None = at.block
    while block is not None and (op := block.parent_op()) is not None:
        if op.name in ("func.func", "llvm.func"):
            return op.regions[0].blocks.first
        block = op.parent_block()
    return None


def const(rewriter: PatternRewriter, at: InsertPoint, value: int | float, t: Attribute, op: Operation | None = None) -> SSAValue:
    """An ``llvm.mlir.constant`` of scalar type ``t``: one per value, type and
    function in a walk, at the function's entry (LLVM IR has no constant
    instructions, so where it sits changes nothing in the output).  Converting
    in place, the ``arith.constant`` ``op`` that is the first of its value
    becomes that constant (moved, its uses kept)."""
    t = llvm_type(t)
    if isinstance(t, IntegerType):
        v: int | float = int(bool(value)) if t.width.data == 1 else int(value)
        key: tuple = (v, t)
    else:
        v = float(value)
        key = (v.hex(), t)
    table = _SHARED.get()
    entry = None
    if table is not None:  # the entry of the block's function, once per block
        entry = table.get(("entry", at.block), _UNKNOWN)
        if entry is _UNKNOWN:
            entry = table[("entry", at.block)] = _entry_block(at)
    if entry is not None and (hit := table.get((entry, *key))) is not None:  # type: ignore[union-attr]
        return hit
    attr: Attribute = int_attr(v, t) if isinstance(t, IntegerType) else FloatAttr(v, t)  # type: ignore[arg-type]
    if op is not None and entry is not None and _IN_PLACE.get() is not None:
        op.detach()
        morph(rewriter, op, llvm.ConstantOp, (), {"value": attr})
    else:
        op = build(llvm.ConstantOp, (), (t,), {"value": attr})
    rewriter.insert(op, InsertPoint.at_start(entry) if entry is not None else at)
    if entry is not None:
        table[(entry, *key)] = op.results[0]  # type: ignore[index]
    return op.results[0]


@dataclass(frozen=True)
class ConversionPass(ModulePass):
    """A pass applying its ``patterns()`` (op class -> pattern) once over the
    module: every op is visited once, a conversion needs no second round."""

    name: ClassVar[str] = ""

    def patterns(self) -> dict[type[Operation], RewritePattern]:
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_lowered(op, self.name)
        self.convert(op)

    def finish(self, module: ModuleOp, patterns: dict[type[Operation], RewritePattern]) -> None:
        """What the conversion adds to the module once its walk is done."""

    def convert(self, op: ModuleOp) -> None:
        """The conversion without the level check (``lower-loop-to-llvm``
        checks the level once for all its steps)."""
        patterns = self.patterns()
        self.run(op, patterns)
        self.finish(op, patterns)

    @staticmethod
    def run(module: ModuleOp, patterns: dict[type[Operation], RewritePattern]) -> None:
        """Apply ``patterns`` to the module's ops in one forward walk.

        The ops are listed first and each is offered to its pattern once (ops
        a pattern inserts are already converted); an op erased meanwhile is
        skipped.  This is what xDSL's ``PatternRewriteWalker`` without
        recursion does, without its worklist bookkeeping for every inserted
        op."""
        token = _SHARED.set({})
        try:
            rewriter = ConversionRewriter(InsertPoint.at_end(module.body.block))
            for op in walk_ops(module):
                pattern = patterns.get(type(op))
                if pattern is None or not _attached(op, module):
                    continue
                rewriter.has_done_action = False
                rewriter.current_operation = op
                rewriter.insertion_point = before(op)
                try:
                    pattern.match_and_rewrite(op, rewriter)
                except Exception as err:  # located as PatternRewriteWalker does
                    op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
        finally:
            _SHARED.reset(token)


class ConversionRewriter(PatternRewriter):
    """The rewriter of :meth:`ConversionPass.run`: inserting links the ops in
    directly (:func:`graphopt.lowering.op_builder.attach`, without the check
    that each new op does not hold the block, a walk up to the module), and
    erasing gives no erased placeholder to results without uses.  Listeners
    are still told (a walk of :meth:`ConversionPass.run` registers none)."""

    def insert(self, op, insertion_point: InsertPoint | None = None):  # type: ignore[override]
        self.has_done_action = True
        ops = (op,) if isinstance(op, Operation) else op
        at = self.insertion_point if insertion_point is None else insertion_point
        block, before = at.block, at.insert_before
        for new in ops:
            if new.parent is not None:
                raise ValueError("Can't insert an operation that already has a parent")
            attach(block, new, before)
        for new in ops:
            self.handle_operation_insertion(new)
        return op

    def replace(self, op: Operation, new_ops, new_results=None, safe_erase: bool = True) -> None:  # type: ignore[override]
        """``PatternRewriter.replace`` (name hints carried over as it does),
        the uses moved directly."""
        self.has_done_action = True
        if isinstance(new_ops, Operation):
            new_ops = (new_ops,)
        if new_ops:
            self.insert(new_ops, before(op))
        if new_results is None:
            new_results = new_ops[-1].results if new_ops else []
        if len(op.results) != len(new_results):
            raise ValueError(f"Expected {len(op.results)} new results, but got {len(new_results)}")
        self.handle_operation_replacement(op, new_results)
        for old, new in zip(op.results, new_results):
            if new is None or old.first_use is not None:
                self.replace_all_uses_with(old, new, safe_erase=safe_erase)
            if new is not None and not new.name_hint and old.name_hint is not None:
                new.name_hint = old.name_hint
        if len(new_results) == 1 and (only := new_results[0]) is not None and (hint := only.name_hint) is not None:
            for new_op in new_ops:
                for res in new_op.results:
                    if not res.name_hint:
                        res.name_hint = hint
        self.erase(op, safe_erase=safe_erase)

    def erase(self, op: Operation, safe_erase: bool = True) -> None:
        self.has_done_action = True
        self.handle_operation_removal(op)
        if op.parent is not None:
            op.detach()
        if any(r.first_use is not None for r in op.results):
            op.erase(safe_erase=safe_erase)  # raises, or leaves erased placeholders
        else:
            op.drop_all_references()


def _attached(op: Operation, module: ModuleOp) -> bool:
    """``op`` is still in ``module`` (not erased, nor inside an erased op):
    its chain of parent blocks, regions and ops reaches the module."""
    node: Operation | Block | Region | None = op
    while node is not None and node is not module:
        node = node.parent
    return node is module


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of an element type (``i1`` -> ``bool``, index -> int64)."""
    if isinstance(t, Float16Type | Float32Type | Float64Type):
        return np.dtype(f"f{t.bitwidth // 8}")
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType) and t.width.data in (1, 8, 16, 32, 64):
        if t.width.data == 1:
            return np.dtype(np.bool_)
        return np.dtype(f"{'u' if t.signedness.data.name == 'UNSIGNED' else 'i'}{t.width.data // 8}")
    raise LoopToLLVMError(f"element type {t} has no numpy equivalent")


def dense_to_numpy(value: DenseIntOrFPElementsAttr, shape: Sequence[int] | None = None) -> np.ndarray:
    """The array of a dense attribute (a splat is broadcast to ``shape``);
    it shares the attribute's bytes where it can."""
    t = value.get_type()
    shape = tuple(t.get_shape() if shape is None else shape)  # type: ignore[union-attr]
    elt = value.get_element_type()
    raw = value.data.data
    if isinstance(elt, IntegerType) and elt.width.data == 1:
        arr = np.frombuffer(raw, dtype=np.uint8).astype(np.bool_)
    else:
        arr = np.frombuffer(raw, dtype=numpy_dtype(elt).newbyteorder("<"))
    n = int(np.prod(shape, dtype=np.int64))
    if arr.size == 1 and n != 1:
        arr = np.full(n, arr[0])
    if arr.size != n:
        raise LoopToLLVMError(f"a constant of {t} has {arr.size} elements, expected {n}")
    return arr.reshape(shape)


def constant_int(value: SSAValue) -> int | None:
    """The value of an integer constant (arith or llvm, through casts); by
    exact class, as the conversions ask it for every index they meet."""
    if type(value) is not OpResult:
        return None
    op = value.op
    if type(op) is UnrealizedConversionCastOp:
        source = op._operands[0]  # noqa: SLF001
        if type(source) is not OpResult:
            return None
        op = source.op
    if type(op) is not arith.ConstantOp and type(op) is not llvm.ConstantOp:
        return None
    attr = op.properties.get("value")
    return attr.value.data if type(attr) is IntegerAttr else None
