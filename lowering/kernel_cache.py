"""Kernel de-duplication: kernels that would be emitted identical become one function.

TVM's compile engine caches lowered functions by structural hash.  Here a
kernel is keyed before it is emitted (emitting a kernel only to find it is a
copy cost most of the lowering: ResNet-50 has 110 kernels, 43 distinct), by
what emission reads: :func:`source_key` describes the graph ops of its group
in order -- name, properties, attributes (a bare op's memory plan left out:
only the driver reads it), result types, operands numbered by definition --
a dense constant by its type only (it is a kernel argument, so two convs that
differ only in their weights share one kernel), which inputs are buffers (and
dense constants, which a GEMM schedule packs) or scalars (by value), the roots
and the buffer types.  Equal keys give equal kernels, so
``lower-graph-to-loop`` emits the first and points the other call sites at
it.  The key is exact: attributes compare by value (xDSL compares floats by
their bits, so ``-0.0`` and ``0.0`` differ), so any difference in an inlined
constant, an attribute, a shape or a dtype means a different kernel.  A
kernel without a key (an op reads a value from outside) is not shared.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from xdsl.ir import Block, Operation, Region, SSAValue

from graphopt.transforms.memory.plan_attr import OFFSETS_KEY

__all__ = ["KernelCache", "source_key"]


class _Foreign(Exception):
    """An operand defined outside the group: the kernel is not keyed."""


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


def _op(op: Operation, ids: dict[SSAValue | Block, int], parts: list[Hashable]) -> None:
    try:
        operands = tuple(ids[v] for v in op.operands)
        successors = tuple(ids[b] for b in op.successors)
    except KeyError:
        raise _Foreign from None
    attributes = op.attributes
    if OFFSETS_KEY in attributes:
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
                _op(op, ids, parts)
        parts.append(tuple(ids[r] for r in roots))
    except (_Foreign, KeyError):
        return None
    return tuple(parts)


class KernelCache:
    """The kernels emitted so far in one module, by :func:`source_key`."""

    def __init__(self) -> None:
        self.by_source: dict[Hashable, str] = {}
        self.hits = 0
