"""``merge-functions``: internal functions that differ only in integer
constants become one function that takes those constants as parameters.

Swift's MergeFunctions with constant parameterisation (LLVM's own pass merges
only identical functions).  A model's kernels repeat with other sizes:
DenseNet-121 holds 93 conv ``_par`` bodies, most of them copies that differ
only in the strides, trip counts and offsets that depend on a 1x1 conv's
input channels.  LLVM's time grows with the volume of IR it is given, so
each copy it is spared pays.

The internal ``llvm.func`` ops (kernels and their parallel bodies, never the
exported drivers) are keyed in one pass over their ops (the idea of
:mod:`graphopt.lowering.kernel_cache`): the key holds everything but the
values of the integer constants at *free* positions, which are collected in
order.  Functions with equal keys form a group.  In a group of two or more,
the positions whose constants differ become parameters (one per distinct
column of values: a stride used twice is passed once); the first member's
body becomes ``<first>_merged`` with those parameters appended, and every
member becomes a thunk that calls it with its own constants, so names,
signatures and the ``GOMP_parallel`` callback ABI (one ``ptr``) are kept.
The merged function is internal and so printed ``noinline``: LLVM keeps one
copy (it specialises nothing on literal constants).

A position is free where LLVM can take a register as well as an immediate:
an operand of integer arithmetic, ``icmp``, ``select``, a store's value, a
call's argument, a branch argument, a return value, a GEP index over the
pointer or into an array (a value operand or a constant index).  Not free: alloca sizes, intrinsic arguments
(``immarg``), vector lane indices, shuffle masks, struct field indices, any
constant that is not an i32 or i64 scalar, and a division's or remainder's
divisor (a constant divisor is a multiply, a register one a division).
Functions with a loop marked for LLVM's unrolling (``graphopt.llvm_unroll``,
``unroll.full``; :mod:`.cf`) are left alone: they rely on constant trip
counts.  A group that would need more than :data:`MAX_PARAMETERS`
parameters is not merged.

DenseNet-121 at -O2: 338 functions of 45.9k LLVM instructions become 348 of
19.7k (140 thunks, 10 merged functions, 37 parameters), 16.1k instead of
36.5k after LLVM's O3; no model runs slower.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from graphopt.lowering.to_llvm.cf import loop_hints
from graphopt.lowering.op_builder import build
from graphopt.lowering.to_llvm.common import int_attr
from graphopt.transforms.levels import LLVM, require_level

__all__ = ["MAX_PARAMETERS", "MergeFunctionsPass", "merge_constant_variants"]

#: Parameters a merged function may take; a group needing more is not merged.
MAX_PARAMETERS = 16
#: Ops (constants not counted) a function must hold to be worth a thunk.
MIN_OPS = 8
#: Loop hints that need constant trip counts.
_UNROLL_HINTS = frozenset(("llvm-unroll", "unroll.full"))
_EVERY = range(1 << 16)

#: Per op class, the operand positions whose integer constants may become
#: parameters (see the module docstring).
_FREE_OPERANDS: dict[type[Operation], Iterable[int]] = {
    **dict.fromkeys((
        llvm.AddOp, llvm.SubOp, llvm.MulOp, llvm.AndOp, llvm.OrOp, llvm.XOrOp, llvm.ShlOp,
        llvm.LShrOp, llvm.AShrOp, llvm.ICmpOp, llvm.CallOp, llvm.BrOp, llvm.CondBrOp, llvm.ReturnOp,
    ), _EVERY),
    **dict.fromkeys((llvm.SDivOp, llvm.UDivOp, llvm.SRemOp, llvm.URemOp), (0,)),
    **dict.fromkeys((llvm.TruncOp, llvm.ZExtOp, llvm.SExtOp, llvm.SIToFPOp, llvm.StoreOp), (0,)),
    llvm.SelectOp: (1, 2),
    llvm.InsertElementOp: (1,),
    llvm.GEPOp: range(1, 1 << 16),
}  # fmt: skip
_PARAMETER_WIDTHS = (32, 64)


@dataclass
class _Shape:
    """One function's key, and its free constants in the order met."""

    fn: llvm.FuncOp
    key: Hashable
    #: ``(op, operand index)``, or ``(gep, -1 - position)`` for a GEP's constant index.
    sites: list[tuple[Operation, int]]
    types: list[Attribute]
    values: list[int]


class _Keys:
    """Keys functions (:meth:`shape`).  Attributes enter a key as numbers,
    looked up by identity first: hashing an xDSL attribute is a Python call,
    and the conversion shares attribute objects among a module's tens of
    thousands of ops.  Equal attributes that are distinct objects get one
    number (by value, once per object).  The IR is not changed while
    functions are keyed, so the identities stay valid."""

    def __init__(self) -> None:
        self._attribute_by_id: dict[int, tuple[Attribute, int]] = {}
        self._attribute_by_value: dict[Attribute, int] = {}
        self._raw_indices: dict[int, tuple[DenseArrayBase, tuple[int, ...]]] = {}

    def attribute(self, attr: Attribute) -> int:
        hit = self._attribute_by_id.get(id(attr))
        if hit is None:
            number = self._attribute_by_value.setdefault(attr, len(self._attribute_by_value))
            hit = self._attribute_by_id[id(attr)] = (attr, number)  # holds attr: its id stays its own
        return hit[1]

    def op(self, op: Operation, properties: dict[str, Attribute]) -> tuple:
        """What ``op`` is but for its operands and successors."""
        number = self.attribute
        described = (type(op), *properties, *map(number, properties.values()), *[number(r._type) for r in op.results])  # noqa: SLF001
        attributes = op.attributes
        if attributes:
            described += ("attributes", *attributes, *map(number, attributes.values()))
        return described

    def raw_indices(self, gep: llvm.GEPOp) -> tuple[int, ...]:
        """A GEP's constant indices (``GEP_USE_SSA_VAL`` for a value index)."""
        array = gep.rawConstantIndices
        hit = self._raw_indices.get(id(array))
        if hit is None:
            hit = self._raw_indices[id(array)] = (array, tuple(array.get_values()))
        return hit[1]

    def shape(self, fn: llvm.FuncOp) -> _Shape | None:
        """The key and free constants of ``fn``; ``None`` if it is not to be merged."""
        if fn.linkage.linkage.data != "internal" or not fn.body.blocks:
            return None
        attribute = self.attribute
        ids: dict[int, int] = {}  # by id(value or block)
        #: per constant result: (op, integer value or None, its operand as a
        #: parameter, its operand as a constant)
        constants: dict[int, tuple[llvm.ConstantOp, int | None, tuple, tuple]] = {}
        sites: list[tuple[Operation, int]] = []
        types: list[Attribute] = []
        values: list[int] = []
        parts: list[Hashable] = [
            tuple((k, attribute(v)) for k, v in fn.properties.items() if k != "sym_name"),
            tuple((k, attribute(v)) for k, v in fn.attributes.items()),
        ]
        blocks = list(fn.body.blocks)
        for block in blocks:  # successors may point forward
            ids[id(block)] = len(ids)
        count, ops = len(ids), 0
        for block in blocks:
            for arg in block.args:
                ids[id(arg)] = count
                count += 1
            parts.append(tuple(attribute(arg.type) for arg in block.args))
            op = block.first_op
            while op is not None:
                cls = type(op)
                if cls is llvm.ConstantOp:
                    result = op.results[0]
                    attr, t = op.value, result.type
                    free = type(attr) is IntegerAttr and isinstance(t, IntegerType) and t.width.data in _PARAMETER_WIDTHS
                    constants[id(result)] = (op, attr.value.data if free else None, (-1, attribute(t)), (-2, attribute(attr), attribute(t)))
                    op = op._next_op  # noqa: SLF001
                    continue
                if op.regions or (cls is llvm.BrOp and op.attributes and _UNROLL_HINTS.intersection(loop_hints(op))):
                    return None
                ops += 1
                operands = [ids.get(id(v)) for v in op._operands]  # noqa: SLF001  (IRDL's accessors are slow)
                if None in operands:
                    free_operands = _FREE_OPERANDS.get(cls, ())
                    for index, value in enumerate(op._operands):  # noqa: SLF001
                        if operands[index] is not None:
                            continue
                        const = constants.get(id(value))
                        if const is None:  # defined later in block order, or outside
                            return None
                        if const[1] is not None and index in free_operands:
                            sites.append((op, index))
                            types.append(value.type)
                            values.append(const[1])
                            operands[index] = const[2]  # type: ignore[call-overload]
                        else:
                            operands[index] = const[3]  # type: ignore[call-overload]
                properties = op.properties
                raw: tuple = ()
                if cls is llvm.GEPOp:
                    raw = self.raw_indices(op)  # abstracted below
                    properties = {k: v for k, v in properties.items() if v is not op.rawConstantIndices}
                    free_raw = 1 + _array_levels(op.elem_type)
                    abstract: list[int | str] = []
                    for position, index in enumerate(raw):
                        if index != llvm.GEP_USE_SSA_VAL and position < free_raw:
                            sites.append((op, -1 - position))
                            types.append(i32)
                            values.append(index)
                            abstract.append("free")
                        else:
                            abstract.append(index)
                    raw = tuple(abstract)
                successors = op._successors  # noqa: SLF001
                parts.append((
                    self.op(op, properties), raw, tuple(operands),
                    tuple(ids[id(b)] for b in successors) if successors else (),
                ))  # fmt: skip
                for r in op.results:
                    ids[id(r)] = count
                    count += 1
                op = op._next_op  # noqa: SLF001
        if ops < MIN_OPS:
            return None
        return _Shape(fn, tuple(parts), sites, types, values)


def _array_levels(t: Attribute) -> int:
    """How many GEP indices after the first index into arrays (a struct's
    field index or a vector's lane stays a constant)."""
    levels = 0
    while isinstance(t, llvm.LLVMArrayType):
        levels += 1
        t = t.type
    return levels


@dataclass(frozen=True)
class _Parameters:
    """The differing positions of a group and the parameter each reads."""

    types: list[Attribute]  # per parameter
    columns: list[tuple[int, ...]]  # per parameter: its value in each member
    sites: list[tuple[int, int]]  # (site number, parameter number)


def _parameters(group: list[_Shape]) -> _Parameters:
    """The sites whose constants differ among the members; sites of one type
    with the same value in every member share a parameter."""
    types: list[Attribute] = []
    columns: list[tuple[int, ...]] = []
    by_column: dict[tuple[Attribute, tuple[int, ...]], int] = {}
    sites: list[tuple[int, int]] = []
    first = group[0]
    for site, column in enumerate(zip(*(s.values for s in group))):
        if column.count(column[0]) == len(column):
            continue
        key = (first.types[site], column)
        number = by_column.get(key)
        if number is None:
            number = by_column[key] = len(types)
            types.append(first.types[site])
            columns.append(column)
        sites.append((site, number))
    return _Parameters(types, columns, sites)


def _use_parameters(shape: _Shape, parameters: _Parameters, args: list[SSAValue]) -> None:
    """Point the differing sites of ``shape`` (the body being moved into the
    merged function) at the parameter arguments ``args``."""
    by_op: dict[int, tuple[Operation, dict[int, SSAValue]]] = {}
    for site, number in parameters.sites:
        op, index = shape.sites[site]
        by_op.setdefault(id(op), (op, {}))[1][index] = args[number]
    for op, new in by_op.values():
        operands = list(op._operands)  # noqa: SLF001
        for index, value in new.items():
            if index >= 0:
                operands[index] = value
        raw_new = {-1 - index: value for index, value in new.items() if index < 0}
        if raw_new:  # a GEP: constant indices become value indices, in order
            raw = list(op.rawConstantIndices.get_values())
            ssa = iter(operands[1:])
            indices: list[SSAValue] = []
            for position, index in enumerate(raw):
                if position in raw_new:
                    raw[position] = llvm.GEP_USE_SSA_VAL
                    indices.append(raw_new[position])
                elif index == llvm.GEP_USE_SSA_VAL:
                    indices.append(next(ssa))
            op.rawConstantIndices = DenseArrayBase.from_list(i32, raw)
            operands = [operands[0], *indices]
        op.operands = operands


def _thunk(fn: llvm.FuncOp, call_properties: dict[str, Attribute], constants: list[tuple[Attribute, int]]) -> Region:
    """A body for ``fn`` that returns the merged function's result for its
    arguments and ``constants`` (the call's properties are the group's)."""
    ft = fn.function_type
    block = Block(arg_types=ft.inputs.data)
    extra: list[SSAValue] = []
    for t, value in constants:
        const = build(llvm.ConstantOp, (), (t,), {"value": int_attr(value, t)})
        block.add_op(const)
        extra.append(const.results[0])
    void = isinstance(ft.output, llvm.LLVMVoidType)
    call = build(llvm.CallOp, (*block.args, *extra), () if void else (ft.output,), call_properties)
    block.add_ops([call, build(llvm.ReturnOp, call.results)])
    return Region(block)


def _merge(group: list[_Shape], parameters: _Parameters, name: str, module: ModuleOp) -> None:
    """The first member's body becomes function ``name`` with the parameters
    appended; every member becomes a thunk."""
    first = group[0].fn
    body = first.detach_region(first.body)
    entry = body.blocks[0]
    args = [entry.insert_arg(t, len(entry.args)) for t in parameters.types]
    _use_parameters(group[0], parameters, args)
    ft = first.function_type
    properties = dict(first.properties)
    properties["sym_name"] = StringAttr(name)
    properties["function_type"] = llvm.LLVMFunctionType([*ft.inputs.data, *parameters.types], ft.output)
    if first.arg_attrs is not None:
        properties["arg_attrs"] = ArrayAttr([*first.arg_attrs.data, *(DictionaryAttr({}) for _ in parameters.types)])
    merged = llvm.FuncOp.create(properties=properties, attributes=dict(first.attributes), regions=[body])
    module.body.block.insert_op_before(merged, first)
    void = isinstance(ft.output, llvm.LLVMVoidType)
    call_properties = dict(llvm.CallOp(name, *entry.args, return_type=None if void else ft.output).properties)
    for member, shape in enumerate(group):
        if member:
            shape.fn.detach_region(shape.fn.body)
        constants = [(t, column[member]) for t, column in zip(parameters.types, parameters.columns)]
        shape.fn.add_region(_thunk(shape.fn, call_properties, constants))


@dataclass
class MergeStatistics:
    """What :func:`merge_constant_variants` did, for tests and benchmarks."""

    groups: int = 0  # groups merged
    functions: int = 0  # functions that became thunks
    parameters: int = 0  # parameters of all merged functions
    too_many_parameters: int = 0  # groups left alone


def merge_constant_variants(module: ModuleOp, max_parameters: int = MAX_PARAMETERS) -> MergeStatistics:
    """Merge the module's internal functions equal up to free integer constants, in place."""
    groups: dict[Hashable, list[_Shape]] = {}
    names: set[str] = set()
    keys = _Keys()
    for op in module.ops:
        if isinstance(op, llvm.FuncOp | llvm.GlobalOp):  # one symbol namespace
            names.add(op.sym_name.data)
        if isinstance(op, llvm.FuncOp):
            shape = keys.shape(op)
            if shape is not None:
                groups.setdefault(shape.key, []).append(shape)
    stats = MergeStatistics()
    for group in groups.values():
        if len(group) < 2:
            continue
        parameters = _parameters(group)
        if len(parameters.types) > max_parameters:
            stats.too_many_parameters += 1
            continue
        name = f"{group[0].fn.sym_name.data}_merged"
        while name in names:
            name += "_"
        names.add(name)
        _merge(group, parameters, name, module)
        stats.groups += 1
        stats.functions += len(group)
        stats.parameters += len(parameters.types)
    return stats


@dataclass(frozen=True)
class MergeFunctionsPass(ModulePass):
    """``merge-functions`` on an llvm-level module (see the module docstring)."""

    name = "merge-functions"

    max_parameters: int = MAX_PARAMETERS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, LLVM)
        merge_constant_variants(op, self.max_parameters)
