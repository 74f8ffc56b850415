"""Kernel de-duplication: structurally identical kernels become one function.

TVM's compile engine caches lowered functions by structural hash; here the
key is the emitted kernel itself.  :func:`structural_key` is a hashable
description of a kernel ``func.func``: its type, and every op in order with
its name, attributes, properties, result types, operands and successors
(numbered by definition order), nested regions included -- everything but
the kernel's name.  Two kernels with equal keys are the same code, so
``lower-graph-to-loop`` keeps the first and points the other call sites at
it.  The key is exact: attributes compare by value (xDSL compares floats by
their bits, so ``-0.0`` and ``0.0`` differ), so any difference in an inlined
constant, an attribute, a shape or a dtype means a different kernel.  Large
constants are kernel arguments, so two convs that differ only in their
weights share one kernel.

Emitting a kernel only to find it is a copy costs most of the lowering (ResNet-50:
110 kernels, 43 distinct), so :func:`source_key` keys a kernel before it is
emitted, by what emission reads: the graph ops of its group (a dense constant by
its type only: it is an argument; a bare op without its memory plan, which only
the driver reads), which inputs are buffers (and dense constants, which a GEMM
schedule packs) or scalars (by value), the roots and the buffer types.  Equal
source keys give equal kernels.  Only a kernel without a source key is keyed by
its emitted body (keying every emitted kernel cost DenseNet-121 a sixth of its
lowering and found no copy the source keys miss).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from xdsl.dialects import func
from xdsl.ir import Block, Operation, Region, SSAValue

from graphopt.transforms.memory.plan_attr import OFFSETS_KEY

__all__ = ["KernelCache", "source_key", "structural_key"]


class _Foreign(Exception):
    """An operand defined outside the kernel: the kernel is not keyed."""


def structural_key(fn: func.FuncOp) -> Hashable | None:
    """The key of ``fn`` (``None`` if it uses a value defined outside itself)."""
    ids: dict[SSAValue | Block, int] = {}
    parts: list[Hashable] = [
        tuple(sorted((k, v) for k, v in fn.properties.items() if k != "sym_name")),
        tuple(sorted(fn.attributes.items())),
    ]
    try:
        _region(fn.body, ids, parts)
    except _Foreign:
        return None
    return tuple(parts)


def _region(region: Region, ids: dict[SSAValue | Block, int], parts: list[Hashable]) -> None:
    blocks = list(region.blocks)
    for block in blocks:  # successors may point forward
        ids[block] = len(ids)
    for block in blocks:
        args = []
        for arg in block.args:
            ids[arg] = len(ids)
            args.append(arg.type)
        parts.append(("block", ids[block], tuple(args)))
        for op in block.ops:
            _op(op, ids, parts)


def _op(
    op: Operation, ids: dict[SSAValue | Block, int], parts: list[Hashable], plan_free: bool = False
) -> None:
    try:
        operands = tuple(ids[v] for v in op.operands)
        successors = tuple(ids[b] for b in op.successors)
    except KeyError:
        raise _Foreign from None
    attributes = op.attributes
    if plan_free and OFFSETS_KEY in attributes:
        attributes = {k: v for k, v in attributes.items() if k != OFFSETS_KEY}
    parts.append((
        op.name,
        tuple(sorted(op.properties.items())) if op.properties else (),
        tuple(sorted(attributes.items())) if attributes else (),
        operands,
        successors,
        tuple(r.type for r in op.results),
        len(op.regions),
    ))  # fmt: skip
    for r in op.results:
        ids[r] = len(ids)
    for region in op.regions:
        _region(region, ids, parts)
        parts.append(("end",))


def source_key(
    ops: Iterable[Operation],
    inputs: Sequence[SSAValue],
    input_kinds: Sequence[Hashable],
    roots: Sequence[SSAValue],
    buffer_types: Sequence[Hashable],
    is_dense_constant,
) -> Hashable | None:
    """The key of a kernel before emission: ``ops`` (in order) compute
    ``roots`` from ``inputs`` (the kernel's values, described by
    ``input_kinds``); ``None`` if an op reads anything else."""
    ids: dict[SSAValue | Block, int] = {v: i for i, v in enumerate(inputs)}
    parts: list[Hashable] = [tuple(input_kinds), tuple(buffer_types)]
    try:
        for op in ops:
            if is_dense_constant(op):
                parts.append(("dense", op.results[0].type))
                ids[op.results[0]] = len(ids)
            else:
                _op(op, ids, parts, plan_free=True)
        parts.append(tuple(ids[r] for r in roots))
    except (_Foreign, KeyError):
        return None
    return tuple(parts)


class KernelCache:
    """Kernels emitted so far in one module, by structural key (and by
    source key, :func:`source_key`)."""

    def __init__(self) -> None:
        self._names: dict[Hashable, str] = {}
        self.by_source: dict[Hashable, str] = {}
        self.hits = 0

    def shared_name(self, kernel: func.FuncOp) -> str | None:
        """The name of an earlier kernel identical to ``kernel``, or ``None``
        (then ``kernel`` is recorded and must be kept)."""
        key = structural_key(kernel)
        if key is None:
            return None
        name = self._names.get(key)
        if name is None:
            self._names[key] = kernel.sym_name.data
            return None
        self.hits += 1
        return name
