"""Building xDSL ops with their fields set directly.

IRDL's generic constructor (argument lists, segment checks, setters) costs
about ten times what an op needs, and a model's lowering builds tens of
thousands of ops: the kernel emitter and the LLVM conversion build theirs
here.  The result is the op IRDL would build, defaults included.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue, SSAValues, Use
from xdsl.irdl import AttrSizedSegments, OptionalDef

_Op = TypeVar("_Op", bound=Operation)


def build(
    cls: type[_Op], operands: Sequence[SSAValue], result_types: Sequence[Attribute] = (),
    properties: dict | None = None, successors: Sequence[Block] = (), regions: Sequence[Region] = (),
) -> _Op:  # fmt: skip
    """``cls`` from its operands, result types and properties, its fields set
    directly: IRDL's generic argument handling and ``Operation.__init__``'s
    setters cost ten times more, and a model's lowering builds tens of
    thousands of ops.  ``properties`` are the ones the class's own
    constructor sets, segment sizes included; IRDL's defaults are added."""
    assert not _plan(cls)[2] or "operandSegmentSizes" in (properties or {}), cls.name
    op = _new(cls)
    operands = SSAValues(operands)
    uses = []
    for index, value in enumerate(operands):  # Use(op, index) and IRWithUses.add_use, inlined
        use = _new(Use)
        use._operation, use._index, use._prev_use = op, index, None  # noqa: SLF001
        use._next_use = first = value.first_use  # noqa: SLF001
        if first is not None:
            first._prev_use = use  # noqa: SLF001
        value.first_use = use
        uses.append(use)
    op._operands, op._operand_uses = operands, tuple(uses)  # noqa: SLF001
    results = []
    for index, t in enumerate(result_types):
        r = _new(OpResult)
        r._type, r.op, r.index, r.first_use, r._name = t, op, index, None, None  # noqa: SLF001
        results.append(r)
    op.results = SSAValues(results)
    op.properties = with_defaults(cls, properties)
    op.attributes = default_attributes(cls)
    op.location = UNKNOWN_LOC
    op.parent = op._next_op = op._prev_op = None  # noqa: SLF001
    op.regions = ()
    op._successors = op._successor_uses = ()  # noqa: SLF001
    if successors:
        op.successors = successors
    for region in regions:
        op.add_region(region)
    return op


#: Per op class: its default properties (as items) and attributes, and
#: whether it has operand segments (its builder must be given their sizes).
_PLANS: dict[type[Operation], tuple[tuple, dict, bool]] = {}


def _plan(cls: type[Operation]) -> tuple[tuple, dict, bool]:
    plan = _PLANS.get(cls)
    if plan is None:
        props, attrs = defaults(cls)
        segmented = any(isinstance(o, AttrSizedSegments) for o in cls.get_irdl_definition().options)
        plan = _PLANS[cls] = (tuple(props.items()), attrs, segmented)
    return plan


_new = object.__new__


@functools.cache
def defaults(cls: type[Operation]) -> tuple[dict, dict]:
    """The default properties and attributes IRDL gives a new ``cls`` op."""
    d = cls.get_irdl_definition()
    return tuple(
        {n: f.default_value for n, f in fields.items() if not isinstance(f, OptionalDef) and f.default_value is not None}
        for fields in (d.properties, d.attributes)
    )  # type: ignore[return-value]


def attach(block: Block, op: Operation, before: Operation | None = None) -> None:
    """Insert the new ``op`` into ``block`` before ``before`` (at the end when
    None): ``Block.insert_op_before`` without its check that ``op`` does not
    hold ``block``, a walk up to the module per op (an op just built holds no
    block of the module)."""
    assert op.parent is None and (before is None or before.parent is block)
    op.parent = block
    prev = block._last_op if before is None else before._prev_op  # noqa: SLF001
    op._prev_op, op._next_op = prev, before  # noqa: SLF001
    if prev is None:
        block._first_op = op  # noqa: SLF001
    else:
        prev._next_op = op  # noqa: SLF001
    if before is None:
        block._last_op = op  # noqa: SLF001
    else:
        before._prev_op = op  # noqa: SLF001


def walk_ops(root: Operation) -> list[Operation]:
    """``list(root.walk())`` (pre-order: each op before the ops of its
    regions), following the block and op links directly: xDSL's walk nests
    three generators per level, several times the cost on a model's tens
    of thousands of ops."""
    ops = [root]

    def collect(op: Operation) -> None:
        for region in op.regions:
            block = region._first_block  # noqa: SLF001
            while block is not None:
                inner = block._first_op  # noqa: SLF001
                while inner is not None:
                    ops.append(inner)
                    if inner.regions:
                        collect(inner)
                    inner = inner._next_op  # noqa: SLF001
                block = block._next_block  # noqa: SLF001

    collect(root)
    return ops


def with_defaults(cls: type[Operation], properties: dict | None) -> dict:
    """``properties`` and then IRDL's defaults for the others, in IRDL's order."""
    props = dict(properties) if properties else {}
    for name, value in _plan(cls)[0]:
        if name not in props:
            props[name] = value
    return props


def default_attributes(cls: type[Operation]) -> dict:
    """A new dict of the default attributes IRDL gives a new ``cls`` op."""
    attrs = _plan(cls)[1]
    return dict(attrs) if attrs else {}
