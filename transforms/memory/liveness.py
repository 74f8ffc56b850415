"""Liveness over the driver's execution order, as a small IR-free program model.

The execution order is the top-level op order of a graph function after
fusion: every ``fused.group`` and every bare graph op is one *step* (one
kernel call).  Constants and function arguments belong to the caller, results
that are returned go straight to the caller's output buffers, and results
nobody reads are never computed (the lowering drops them).  Everything else
is an *intermediate*: it lives in the workspace from the step that produces
it to its last reader.

The planners work on :class:`Program`, which keeps only sizes, reads, writes
and the in-place pairs each step allows, so unit tests can build programs by
hand and the IR is read in one place (:func:`program_of`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from graphopt.dialects.fused import GroupOp
from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph import GraphOp, numpy_dtype, tensor_of
from graphopt.transforms.memory.inplace import epilogue_pairs, ignored_operands, nnvm_pairs

ALIGNMENT = 64


def align(n: int, a: int = ALIGNMENT) -> int:
    return (n + a - 1) // a * a


class Kind(Enum):
    INTERNAL = "internal"  # an intermediate: planned in the workspace
    EXTERNAL = "external"  # caller memory: arguments, constants, graph outputs
    DEAD = "dead"  # produced but never read: not computed, no storage


@dataclass
class Tensor:
    key: Hashable
    nbytes: int
    itemsize: int = 4
    kind: Kind = Kind.INTERNAL

    @property
    def size(self) -> int:
        """The planned size: bytes rounded up to the alignment."""
        return align(self.nbytes)


@dataclass
class Step:
    """One kernel call.  ``reads`` lists every operand read (repeats count, and
    inputs the op ignores are left out); ``inplace`` lists the (input, output)
    pairs the kernel can compute in place (graph-opt's rule, see ``inplace``);
    ``nnvm_inplace`` the pairs NNVM's FInplaceOption would declare."""

    name: str
    reads: list[Hashable]
    writes: list[Hashable]
    inplace: list[tuple[Hashable, Hashable]] = field(default_factory=list)
    nnvm_inplace: list[tuple[Hashable, Hashable]] = field(default_factory=list)


@dataclass
class Interval:
    """A workspace request: ``size`` bytes live over steps ``start..end``."""

    key: Hashable
    size: int
    start: int
    end: int

    def overlaps(self, other: Interval) -> bool:
        return self.start <= other.end and other.start <= self.end


class Program:
    """Tensors and steps in execution order, with liveness derived from them."""

    def __init__(self, tensors: Sequence[Tensor], steps: Sequence[Step]):
        self.tensors: dict[Hashable, Tensor] = {t.key: t for t in tensors}
        self.steps = list(steps)
        self.producer: dict[Hashable, int] = {}
        self.last_read: dict[Hashable, int] = {}
        self.refcount: dict[Hashable, int] = {k: 0 for k in self.tensors}
        for i, step in enumerate(self.steps):
            for w in step.writes:
                self.producer[w] = i
            for r in step.reads:
                self.last_read[r] = i
                self.refcount[r] = self.refcount.get(r, 0) + 1

    def internal(self) -> list[Hashable]:
        """Intermediates, in production order."""
        return [
            w
            for step in self.steps
            for w in step.writes
            if self.tensors[w].kind is Kind.INTERNAL
        ]

    def interval(self, key: Hashable) -> Interval:
        start = self.producer[key]
        end = max(start, self.last_read.get(key, start))
        return Interval(key, self.tensors[key].size, start, end)

    def intervals(self) -> list[Interval]:
        return [self.interval(k) for k in self.internal()]


def lower_bound(intervals: Sequence[Interval]) -> int:
    """The largest total size live at any one step (no plan can do better)."""
    if not intervals:
        return 0
    n = max(iv.end for iv in intervals) + 2
    delta = [0] * n
    for iv in intervals:
        delta[iv.start] += iv.size
        delta[iv.end + 1] -= iv.size
    best = cur = 0
    for d in delta:
        cur += d
        best = max(best, cur)
    return best


def naive_bytes(intervals: Sequence[Interval]) -> int:
    return sum(iv.size for iv in intervals)


# --------------------------------------------------------------------------
# From IR
# --------------------------------------------------------------------------


def is_step(op) -> bool:
    return isinstance(op, GroupOp) or (isinstance(op, GraphOp) and not isinstance(op, ConstantOp))


def step_ops(fn) -> list:
    """The top-level ops of ``fn`` that become kernel calls, in order."""
    return [op for op in fn.body.block.ops if is_step(op)]


def program_of(fn) -> Program:
    """The program model of a graph ``func.func`` (see the module docstring)."""
    from xdsl.dialects import func

    block = fn.body.block
    ret = block.last_op
    returned = set(ret.arguments) if isinstance(ret, func.ReturnOp) else set()
    tensors: list[Tensor] = []
    steps: list[Step] = []
    for op in step_ops(fn):
        for r in op.results:
            t = tensor_of(r)
            itemsize = numpy_dtype(t.element_type).itemsize
            n = 1
            for d in t.get_shape():
                n *= d
            if r in returned:
                kind = Kind.EXTERNAL
            elif not any(is_step(u.operation) for u in r.uses):
                kind = Kind.DEAD
            else:
                kind = Kind.INTERNAL
            tensors.append(Tensor(r, n * itemsize, itemsize, kind))
        ignored = ignored_operands(op)
        reads = [v for i, v in enumerate(op.operands) if i not in ignored]
        name = op.group_name.data if isinstance(op, GroupOp) else op.name
        steps.append(
            Step(name, reads, list(op.results), epilogue_pairs(op), nnvm_pairs(op))
        )
    return Program(tensors, steps)


__all__ = [
    "ALIGNMENT",
    "Interval",
    "Kind",
    "Program",
    "Step",
    "Tensor",
    "align",
    "lower_bound",
    "naive_bytes",
    "program_of",
    "step_ops",
]
