"""The planners: naive, NNVM's ``plan_memory``, and greedy offset packing.

All of them map every intermediate of a :class:`Program` to a byte offset in
one workspace.

* ``naive``: each intermediate gets its own region.
* ``nnvm``: a faithful NNVM ``plan_memory`` -- refcounts, in-place first
  (FInplaceOption pairs, storage refcount 1), a best-fit free list searched
  in ``[size, size*16]`` then ``[size/16, size)``, outputs requested largest
  first.  Its storage blocks are placed side by side, so its total is the
  sum of the blocks.
* ``greedy``: offset packing (TFLite's greedy-by-size, XLA's heap simulator).
  Tensors are placed in a fixed order, each in the smallest gap between the
  already-placed tensors whose lifetimes overlap its own.  Three orders are
  tried (largest first, longest-lived first, most conflicts first) and the
  smallest result kept; an optional hill climb then swaps order entries and
  stops as soon as it reaches the lower bound (TVM USMP).

In-place reuse (``inplace.py`` says which pairs a kernel allows) is applied
before packing: an output that overwrites an input joins the input's storage
*unit*, whose lifetime is the union of theirs.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from graphopt.transforms.memory.liveness import Interval, Kind, Program, lower_bound

STRATEGIES = ("naive", "nnvm", "greedy")


@dataclass
class Plan:
    """Offsets of the intermediates and the workspace size they need."""

    offsets: dict[Hashable, int]
    workspace: int
    strategy: str
    #: (input, output) pairs that share storage.
    inplace: list[tuple[Hashable, Hashable]] = field(default_factory=list)


# --------------------------------------------------------------------------
# In-place units
# --------------------------------------------------------------------------


def inplace_units(program: Program) -> tuple[dict[Hashable, Hashable], list[tuple[Hashable, Hashable]]]:
    """Apply graph-opt's in-place rule: at each step, an output may take the
    storage of an input the step allows (``Step.inplace``) when that input is
    an intermediate read for the last time here, with the same size and
    element size, and not already taken by another output of the step.

    Returns the unit (root key) of every intermediate and the pairs taken."""
    unit: dict[Hashable, Hashable] = {k: k for k in program.internal()}
    pairs: list[tuple[Hashable, Hashable]] = []
    for index, step in enumerate(program.steps):
        taken: set[Hashable] = set()
        for src, dst in step.inplace:
            t_src, t_dst = program.tensors.get(src), program.tensors.get(dst)
            if t_src is None or t_dst is None:
                continue
            if t_src.kind is not Kind.INTERNAL or t_dst.kind is not Kind.INTERNAL:
                continue
            if program.last_read.get(src) != index or src in taken:
                continue
            if unit[dst] != dst or t_src.nbytes != t_dst.nbytes or t_src.itemsize != t_dst.itemsize:
                continue
            taken.add(src)
            unit[dst] = unit[src]
            pairs.append((src, dst))
    return unit, pairs


def unit_intervals(program: Program, unit: dict[Hashable, Hashable]) -> list[Interval]:
    merged: dict[Hashable, Interval] = {}
    for key in program.internal():
        iv = program.interval(key)
        root = unit[key]
        if root in merged:
            m = merged[root]
            m.start, m.end, m.size = min(m.start, iv.start), max(m.end, iv.end), max(m.size, iv.size)
        else:
            merged[root] = Interval(root, iv.size, iv.start, iv.end)
    return list(merged.values())


def lower_bounds(program: Program) -> tuple[int, int]:
    """(with in-place, without in-place) lower bounds of ``program``."""
    unit, _ = inplace_units(program)
    return lower_bound(unit_intervals(program, unit)), lower_bound(program.intervals())


# --------------------------------------------------------------------------
# Interval packing
# --------------------------------------------------------------------------


def conflicts(intervals: Sequence[Interval]) -> list[list[int]]:
    """For each interval, the indices of those whose lifetimes overlap it."""
    order = sorted(range(len(intervals)), key=lambda i: intervals[i].start)
    out: list[list[int]] = [[] for _ in intervals]
    active: list[int] = []
    for i in order:
        iv = intervals[i]
        active = [j for j in active if intervals[j].end >= iv.start]
        for j in active:
            out[i].append(j)
            out[j].append(i)
        active.append(i)
    return out


def pack(intervals: Sequence[Interval], order: Sequence[int], adj: list[list[int]]) -> tuple[list[int], int]:
    """Place intervals in ``order``; each goes to the smallest gap, among the
    already-placed intervals it conflicts with, that fits it (else on top)."""
    offsets = [-1] * len(intervals)
    total = 0
    for i in order:
        size = intervals[i].size
        placed = sorted((offsets[j], offsets[j] + intervals[j].size) for j in adj[i] if offsets[j] >= 0)
        best, best_gap, top = -1, None, 0
        for lo, hi in placed:
            gap = lo - top
            if gap >= size and (best_gap is None or gap < best_gap):
                best, best_gap = top, gap
            top = max(top, hi)
        offsets[i] = best if best >= 0 else top
        total = max(total, offsets[i] + size)
    return offsets, total


def _order_by(intervals: Sequence[Interval], key: Callable[[int], tuple]) -> list[int]:
    return sorted(range(len(intervals)), key=key)


def greedy_orders(intervals: Sequence[Interval], adj: list[list[int]]) -> dict[str, list[int]]:
    length = [iv.end - iv.start for iv in intervals]
    degree = [len(a) for a in adj]
    return {
        "size": _order_by(intervals, lambda i: (-intervals[i].size, -length[i], intervals[i].start, i)),
        "interval": _order_by(intervals, lambda i: (-length[i], -intervals[i].size, intervals[i].start, i)),
        "conflicts": _order_by(intervals, lambda i: (-degree[i], -intervals[i].size, intervals[i].start, i)),
    }


def greedy_pack(
    intervals: Sequence[Interval], hill_climb: int = 0, seed: int = 0
) -> tuple[list[int], int, str]:
    """Best of the greedy orders, optionally refined by a hill climb.
    Returns (offsets, total, name of the winning order)."""
    if not intervals:
        return [], 0, "size"
    adj = conflicts(intervals)
    best: tuple[list[int], int, str, list[int]] | None = None
    for name, order in greedy_orders(intervals, adj).items():
        offsets, total = pack(intervals, order, adj)
        if best is None or total < best[1]:
            best = (offsets, total, name, order)
    assert best is not None
    offsets, total, name, order = best
    bound = lower_bound(intervals)
    if hill_climb > 0 and total > bound:
        offsets, total, improved = _hill_climb(intervals, adj, order, offsets, total, bound, hill_climb, seed)
        if improved:
            name = f"{name}+hill-climb"
    return offsets, total, name


def _hill_climb(
    intervals: Sequence[Interval],
    adj: list[list[int]],
    order: list[int],
    offsets: list[int],
    total: int,
    bound: int,
    steps: int,
    seed: int,
) -> tuple[list[int], int, bool]:
    """Swap two order entries -- one of them a tensor touching the current
    peak -- and keep the change when the total does not grow."""
    rng = random.Random(seed)
    order = list(order)
    n = len(order)
    improved = False
    for _ in range(steps):
        if total <= bound or n < 2:
            break
        peak = [p for p, i in enumerate(order) if offsets[i] + intervals[i].size == total]
        a = rng.choice(peak)
        b = rng.randrange(n)
        if a == b:
            continue
        order[a], order[b] = order[b], order[a]
        new_offsets, new_total = pack(intervals, order, adj)
        if new_total <= total:
            improved |= new_total < total
            offsets, total = new_offsets, new_total
        else:
            order[a], order[b] = order[b], order[a]
    return offsets, total, improved


# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------


def plan_naive(program: Program) -> Plan:
    offsets: dict[Hashable, int] = {}
    top = 0
    for key in program.internal():
        offsets[key] = top
        top += program.tensors[key].size
    return Plan(offsets, top, "naive")


def plan_greedy(program: Program, inplace: bool = True, hill_climb: int = 0) -> Plan:
    if inplace:
        unit, pairs = inplace_units(program)
    else:
        unit, pairs = {k: k for k in program.internal()}, []
    intervals = unit_intervals(program, unit)
    offs, total, name = greedy_pack(intervals, hill_climb)
    by_unit = {iv.key: off for iv, off in zip(intervals, offs)}
    offsets = {k: by_unit[unit[k]] for k in program.internal()}
    return Plan(offsets, total, f"greedy ({name})", pairs)


class _NNVMAllocator:
    """NNVM's ``GraphAllocator``: storage blocks and a best-fit free list."""

    def __init__(self, match_range: int = 16):
        self.match_range = match_range
        self.max_bytes: list[int] = []
        self.free: list[tuple[int, int, int]] = []  # (max_bytes, insertion seq, sid)
        self.seq = 0

    def request(self, size: int) -> int:
        if self.match_range == 0:
            return self._alloc(size)
        keys = [f[0] for f in self.free]
        begin = bisect.bisect_left(keys, size // self.match_range)
        mid = bisect.bisect_left(keys, size)
        end = bisect.bisect_right(keys, size * self.match_range)
        if mid < end:  # the smallest free block at least as large
            return self._take(mid, size)
        if mid > begin:  # else the largest smaller block, grown
            return self._take(mid - 1, size)
        return self._alloc(size)

    def _take(self, index: int, size: int) -> int:
        _, _, sid = self.free.pop(index)
        self.max_bytes[sid] = max(self.max_bytes[sid], size)
        return sid

    def _alloc(self, size: int) -> int:
        self.max_bytes.append(size)
        return len(self.max_bytes) - 1

    def release(self, sid: int) -> None:
        self.seq += 1
        bisect.insort(self.free, (self.max_bytes[sid], self.seq, sid))


def plan_nnvm(program: Program, inplace: bool = True, match_range: int = 16) -> Plan:
    """NNVM ``plan_memory`` (see the module docstring), over intermediates only:
    caller memory (inputs, constants, graph outputs) is never planned."""
    alloc = _NNVMAllocator(match_range)
    storage: dict[Hashable, int] = {}
    storage_ref: dict[int, int] = {}
    pairs: list[tuple[Hashable, Hashable]] = []

    def internal(k: Hashable) -> bool:
        t = program.tensors.get(k)
        return t is not None and t.kind is Kind.INTERNAL

    for step in program.steps:
        if inplace:
            taken: set[Hashable] = set()
            for src, dst in step.nnvm_inplace:
                if src in taken or dst in storage or not internal(src) or not internal(dst):
                    continue
                sid = storage.get(src)
                t_src, t_dst = program.tensors[src], program.tensors[dst]
                if (
                    sid is not None
                    and storage_ref[sid] == 1
                    and program.refcount[dst] > 0
                    and t_src.nbytes == t_dst.nbytes
                    and t_src.itemsize == t_dst.itemsize
                ):
                    taken.add(src)
                    storage[dst] = sid
                    storage_ref[sid] += program.refcount[dst]
                    pairs.append((src, dst))
        # Largest first; equal sizes in reverse order (a multimap walked backwards).
        request = [(program.tensors[w].size, i, w) for i, w in enumerate(step.writes)
                   if internal(w) and w not in storage]
        for size, _, w in sorted(request, key=lambda e: (e[0], e[1]), reverse=True):
            sid = alloc.request(size)
            storage[w] = sid
            storage_ref[sid] = program.refcount[w]
        for r in step.reads:
            if internal(r) and r in storage:
                sid = storage[r]
                storage_ref[sid] -= 1
                if storage_ref[sid] == 0:
                    alloc.release(sid)
        for w in step.writes:
            if internal(w) and storage_ref[storage[w]] == 0:
                alloc.release(storage[w])

    block_offset: list[int] = []
    top = 0
    for size in alloc.max_bytes:
        block_offset.append(top)
        top += size
    offsets = {k: block_offset[storage[k]] for k in program.internal()}
    return Plan(offsets, top, "nnvm", pairs)


def plan(program: Program, strategy: str = "greedy", inplace: bool = True, hill_climb: int = 0) -> Plan:
    if strategy == "naive":
        return plan_naive(program)
    if strategy == "nnvm":
        return plan_nnvm(program, inplace)
    if strategy == "greedy":
        return plan_greedy(program, inplace, hill_climb)
    raise ValueError(f"unknown strategy '{strategy}'; expected one of {', '.join(STRATEGIES)}")


__all__ = [
    "STRATEGIES",
    "Plan",
    "conflicts",
    "greedy_pack",
    "inplace_units",
    "lower_bounds",
    "pack",
    "plan",
    "plan_greedy",
    "plan_naive",
    "plan_nnvm",
    "unit_intervals",
]
