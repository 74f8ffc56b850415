"""Group codegen: one loop nest per group output, producers inlined.

A fused group becomes ONE kernel.  For each of the group's outputs (its
roots) the emitter builds the loop nest over the output's shape and asks for
the root's value at the nest's indices.  ``value_at(v, indices)`` answers by
loading from a buffer when ``v`` is a kernel input, or by running the compute
rule of ``v``'s producer (``lowering.compute_rules``), which in turn asks for
its operands at derived indices -- so producers are inlined and
intermediates never go through memory.

Scheduling by dependence
------------------------
Every SSA value the emitter creates is placed in the outermost *scope* (loop
body) where all its operands are available.  A scope inserts new ops before
the loop it is currently building, so:

* loop-invariant values (constants, broadcast reads, a softmax row's max and
  sum) are computed once per iteration of the loops they depend on, not per
  element;
* ``value_at`` memoises per scope on ``(value, indices)``: a diamond reads its
  anchor once per element, and a value computed in an outer scope is reused
  by every inner one.

Less IR to begin with
---------------------
Every later step (conversion, printing, LLVM) pays per op, so ``emit`` makes
no op it can avoid: index arithmetic on ``index()`` constants folds to a
constant (``constant_of`` knows them by the op that made them), ``x + 0``,
``x * 1`` and ``x * 0`` are no ops, and a pure op equal to one already in its
scope is that op (CSE as it is emitted).  A loop of one trip is no loop: its
body is emitted in place with its index a constant of the current scope, and
a fold of values living in a scope is a constant of that scope, so what
depends on the index (a load from a buffer the kernel writes) stays where
the loop would have kept it.

A worklist, not the Python stack
--------------------------------
A rule asks for its operands while it runs, so inlining recurses a few
Python frames per op.  To lower a group of any depth at the default recursion
limit, ``value_at`` keeps the recursion shallow: a demand more than
``MAX_INLINE_DEPTH`` rules below the nearest *driver* (a ``value_at`` that
runs a worklist) is not computed there but raised as :class:`_Pending` to the
driver, which computes it first and then re-runs the rule that asked (now a
memo hit).  A demand is only handed up when no loop was opened since the
driver began, so unwinding loses nothing but a few pure scalar ops, which
:func:`sweep_dead_ops` removes; a ``value_at`` inside a loop a rule has just
opened starts a driver of its own.

Parallel loops
--------------
The schedule marks the outer loop of a big enough nest parallel: it is built
as a one-dimensional ``scf.parallel`` instead of ``scf.for``
(``lower-loop-to-llvm`` runs it on the thread pool, see
``lowering.to_llvm.parallel``).  :meth:`KernelEmitter.store_nest` picks the
outermost loop that is not the innermost one (so vectorised inner loops and
their remainders are the same whatever the thread count) with enough
iterations; GEMM kernels mark their outer panel loops, conv kernels their
output-row or panel loop and their padded input copy
(``lowering.parallel_split`` chooses).  Only loops whose
iterations write disjoint output elements are marked, and no reduction loop
is ever parallel, so results are bitwise identical for every thread count.
A loop requested inside a parallel one stays serial.  When a nest is
finished, each of its parallel loops whose region (the loop, with the serial
loops around it that ``lower-loop-to-llvm`` runs in the same region) does
too little work to pay for waking the pool becomes an ``scf.for`` again
(``parallel_split.worth_a_region``, on the work ``parallel_split.nest_work``
estimates for the target's lanes).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
import functools
import math
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import is_side_effect_free

from graphopt.target import Target
from graphopt import errors, rules
from graphopt.dialects.graph import FLOAT_TYPES, GraphOp
from graphopt.lowering import parallel_split
from graphopt.lowering.op_builder import attach, build, with_defaults
from graphopt.lowering.stream_prefetch import chunk_elements, prefetch_streams
from graphopt.lowering.to_llvm.cf import set_loop_hints
from graphopt.lowering.to_llvm.parallel import region_root


class LoweringError(errors.LoweringError):
    """A graph op cannot be lowered (for example: no compute rule for it)."""


MAX_INLINE_DEPTH = 16
"""Rules evaluated inside one another before a demand goes to the worklist."""


MIN_PARALLEL_TRIPS = 2
PREFERRED_PARALLEL_TRIPS = 8
"""``store_nest`` prefers an outer loop with at least this many iterations."""


class _Pending(Exception):
    """A demand handed to the nearest driver (see the module docstring)."""

    def __init__(self, value: SSAValue, indices: tuple[SSAValue, ...]):
        self.value, self.indices = value, indices


@dataclass
class _Driver:
    depth: int  # rule depth where the driver runs
    open_loops: int = 0  # loops opened since, still open


_MISSING = object()


@dataclass(eq=False)
class Scope:
    """A block ops are emitted into; new ops go before the loop being built."""

    block: Block
    parent: Scope | None
    depth: int
    open_loops: list[Operation] = field(default_factory=list)
    memo: dict[Hashable, SSAValue] = field(default_factory=dict)
    ops: dict[Hashable, Operation] = field(default_factory=dict)  # pure ops, for CSE
    terminator: Operation | None = None

    def insert(self, op: Operation) -> None:
        attach(self.block, op, self.open_loops[-1] if self.open_loops else self.terminator)

    def lookup(self, key: Hashable) -> SSAValue | None:
        scope: Scope | None = self
        while scope is not None:
            hit = scope.memo.get(key, _MISSING)  # one hash per scope (a key holds values, hashed in Python)
            if hit is not _MISSING:
                return hit
            scope = scope.parent
        return None


@dataclass
class ScalarSource:
    """A group input that is a splat constant: a scalar, no buffer."""

    value: float | int
    element_type: Attribute


class KernelEmitter:
    """Emits the body of one kernel function (see the module docstring)."""

    def __init__(
        self,
        entry: Block,
        sources: dict[SSAValue, SSAValue | ScalarSource],
        roots: Sequence[SSAValue] = (),
        target: Target | None = None,
    ):
        """``sources`` maps each group-level input value to the kernel's memref
        argument holding it, or to a scalar for splat constants; ``roots`` are
        the values the kernel computes; ``target`` is what the kernel is
        scheduled for (lanes, register tiles, the work of a parallel loop:
        ``em.target``; default this machine)."""
        self.target = target or Target.default()
        self.root = Scope(entry, None, 0)
        self.current = self.root
        self.sources = sources
        self.scope_of: dict[SSAValue, Scope] = {}
        self._innermost: tuple[SSAValue, int] | None = None
        self._depth = 0  # rules being evaluated, one inside the other
        self._drivers: list[_Driver] = []
        self.rerun = False  # a rule was re-run: dead scalar ops may be left
        self._in_parallel = 0  # parallel loops open around the current scope
        self.constant_of: dict[SSAValue, int] = {}  # index constants, filled by index()

    # -- placement ---------------------------------------------------------------

    def scope_for(self, values: Sequence[SSAValue]) -> Scope:
        """The innermost scope any of ``values`` lives in."""
        best = self.root
        for v in values:
            s = self.scope_of.get(v, self.root)
            if s.depth > best.depth:
                best = s
        return best

    @contextmanager
    def at(self, scope: Scope) -> Iterator[None]:
        saved = self.current
        self.current = scope
        try:
            yield
        finally:
            self.current = saved

    def pure(
        self, cls: type[Operation], operands: Sequence[SSAValue], result_type: Attribute, properties: dict | None = None
    ) -> SSAValue:
        """:meth:`emit` of a ``cls`` op not built yet: one that folds or equals
        an op of its scope is never built (most index arithmetic)."""
        operands = tuple(operands)
        scope = self.scope_for(operands)
        if (fold := _INDEX_FOLDS.get(cls)) is not None and (value := _folded(fold, operands, self.constant_of)) is not None:
            return self.index_in(scope, value)
        if (pure := _PURE.get(cls)) is None:  # the class's first op: emit() learns its purity
            return self.emit(build(cls, operands, (result_type,), properties)).results[0]
        props = with_defaults(cls, properties)
        key = (cls, operands, tuple(props.items()), (), (result_type,)) if pure else None
        if key is not None and (hit := scope.ops.get(key)) is not None:
            return hit.results[0]
        op = build(cls, operands, (result_type,), props)
        if key is not None:
            scope.ops[key] = op
        scope.insert(op)
        self.scope_of[op.results[0]] = scope
        return op.results[0]

    def here(self, cls: type[Operation], operands: Sequence[SSAValue], result_types: Sequence[Attribute] = ()) -> Operation:
        """:meth:`emit_here` of a ``cls`` op, built directly."""
        return self.emit_here(build(cls, operands, result_types))

    def fma(self, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
        return self.pure(vector.FMAOp, (a, b, acc), acc.type)

    def splat(self, x: SSAValue, vt: Attribute) -> SSAValue:
        return self.pure(vector.BroadcastOp, (x,), vt)

    def addf(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.pure(arith.AddfOp, (a, b), a.type)

    def collapse(self, buffer: SSAValue, groups: tuple[tuple[int, ...], ...]) -> SSAValue:
        """``buffer`` (identity layout) with each group of consecutive
        dimensions merged into one (``memref.collapse_shape``), made once per
        kernel, where the buffer is defined."""

        def make() -> SSAValue:
            t = buffer.type
            assert isinstance(t, MemRefType)
            shape = t.get_shape()
            result_type = MemRefType(t.element_type, [math.prod(shape[d] for d in g) for g in groups])
            return self.emit(build(memref.CollapseShapeOp, (buffer,), (result_type,), {"reassociation": _groups_attr(groups)})).results[0]

        return self.cached(("collapse", groups), [buffer], make)

    def pick(self, a: SSAValue, b: SSAValue, pred: str) -> SSAValue:
        """``a if a <pred> b or isnan(a) else b`` on floats or float vectors:
        numpy's ``maximum`` (``ogt``) and ``minimum`` (``olt``) exactly, signed
        zeros included (``maximum(+0, -0)`` is ``-0``), and three AVX-512
        instructions a vector where ``arith.maximumf``, which orders ``-0 <
        +0``, takes six."""
        t = a.type
        cond_t = VectorType(i1, t.get_shape()) if isinstance(t, VectorType) else i1
        code = {"ogt": 2, "olt": 4, "uno": 14}
        wins, nan = (
            self.pure(arith.CmpfOp, (x, y), cond_t, {"predicate": IntegerAttr(code[p], i64)})
            for x, y, p in ((a, b, pred), (a, a, "uno"))
        )
        return self.pure(arith.SelectOp, (self.pure(arith.OrIOp, (wins, nan), cond_t), a, b), t)

    def shuffle(self, a: SSAValue, b: SSAValue, mask: Sequence[int], vt: Attribute) -> SSAValue:
        return self.pure(vector.ShuffleOp, (a, b), vt, {"mask": _mask(tuple(mask))})

    def vload(self, buffer: SSAValue, indices: Sequence[SSAValue], vt: Attribute) -> SSAValue:
        """A vector load in the current scope (from a buffer the kernel writes)."""
        return self.here(vector.LoadOp, (buffer, *indices), (vt,)).results[0]

    def vstore(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.here(vector.StoreOp, (value, buffer, *indices))

    def emit(self, op: Operation) -> Operation:
        """Insert a pure scalar op in the outermost scope its operands allow;
        returns it, or (``op`` dropped) its fold or an equal op there (CSE)."""
        folded = self._fold(op)
        scope = self.scope_for(op.operands)
        key = _cse_key(op) if folded is None else None
        if key is not None and (hit := scope.ops.get(key)) is not None:
            folded = hit
        if folded is not None:
            op.drop_all_references()  # never inserted: its operands lose the use
            return folded
        if key is not None:
            scope.ops[key] = op
        scope.insert(op)
        for r in op.results:
            self.scope_of[r] = scope
        return op

    def _fold(self, op: Operation) -> Operation | None:
        fold = _INDEX_FOLDS.get(type(op))
        if fold is None:
            return None
        value = _folded(fold, op.operands, self.constant_of)
        if value is None:
            return None
        return self.index_in(self.scope_for(op.operands), value).owner  # type: ignore[return-value]

    def emit_here(self, op: Operation) -> Operation:
        """Insert an op with effects (a store) exactly in the current scope."""
        self.current.insert(op)
        for r in op.results:
            self.scope_of[r] = self.current
        return op

    def cached(
        self, key: Hashable, deps: Sequence[SSAValue], compute: Callable[[], SSAValue]
    ) -> SSAValue:
        """Memoise ``compute()`` under ``key`` in the scope of ``deps``, computing
        it there (hoisted) the first time."""
        target = self.scope_for(deps)
        full_key = (key, tuple(deps))
        if (hit := target.lookup(full_key)) is not None:
            return hit
        saved, self.current = self.current, target  # self.at(target), without a generator per call
        try:
            result = compute()
        finally:
            self.current = saved
        target.memo[full_key] = result
        return result

    # -- constants -------------------------------------------------------------------

    def index(self, value: int) -> SSAValue:
        def make() -> SSAValue:
            v = self.pure(arith.ConstantOp, (), INDEX, {"value": _index_attr(value)})
            self.constant_of[v] = value
            return v

        return self.cached(("index", value), (), make)

    def index_in(self, scope: Scope, value: int) -> SSAValue:
        """The constant ``value`` placed in ``scope``: what a fold of values
        living there gives, so what depends on them (a load from a buffer
        the kernel writes) is still not hoisted above them."""
        if scope is self.root:
            return self.index(value)
        if (hit := scope.ops.get(("index", value))) is None:
            hit = scope.ops[("index", value)] = build(arith.ConstantOp, (), (INDEX,), {"value": _index_attr(value)})
            scope.insert(hit)
            self.scope_of[hit.results[0]] = scope
            self.constant_of[hit.results[0]] = value
        return hit.results[0]

    def scalar_constant(self, value: float | int, element_type: Attribute) -> SSAValue:
        def make() -> SSAValue:
            if element_type in FLOAT_TYPES:
                attr: Attribute = FloatAttr(float(value), element_type)  # type: ignore[arg-type]
            else:
                assert isinstance(element_type, IntegerType)
                v = int(value)
                if element_type.width.data == 1:
                    v = 1 if v else 0
                attr = IntegerAttr(v, element_type)
            return self.pure(arith.ConstantOp, (), element_type, {"value": attr})

        return self.cached(("scalar", float(value), element_type), (), make)

    # -- values at indices ---------------------------------------------------------

    def value_at(self, value: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """The element of tensor ``value`` at ``indices`` (index SSA values)."""
        idx = tuple(indices)
        if (hit := self._memo(value, idx)) is not None:
            return hit
        driver = self._drivers[-1] if self._drivers else None
        if driver is None or driver.open_loops:
            return self._drive(value, idx)
        if self._depth - driver.depth >= MAX_INLINE_DEPTH:
            raise _Pending(value, idx)
        return self._evaluate(value, idx)

    def _memo(self, value: SSAValue, idx: tuple[SSAValue, ...]) -> SSAValue | None:
        return self.scope_for(idx).lookup((("value", value), idx))

    def _evaluate(self, value: SSAValue, idx: tuple[SSAValue, ...]) -> SSAValue:
        return self.cached(("value", value), idx, lambda: self._compute(value, idx))

    def _drive(self, value: SSAValue, idx: tuple[SSAValue, ...]) -> SSAValue:
        """Compute ``value`` at ``idx`` with a worklist of pending demands."""
        self._drivers.append(_Driver(self._depth))
        try:
            work = [(value, idx)]
            while work:
                v, i = work[-1]
                if self._memo(v, i) is not None:
                    work.pop()
                    continue
                try:
                    self._evaluate(v, i)
                    work.pop()
                except _Pending as pending:
                    self.rerun = True
                    work.append((pending.value, pending.indices))
        finally:
            self._drivers.pop()
        result = self._memo(value, idx)
        assert result is not None
        return result

    def _compute(self, value: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        source = self.sources.get(value)
        if isinstance(source, ScalarSource):
            return self.scalar_constant(source.value, source.element_type)
        if source is not None:
            return self.pure(memref.LoadOp, (source, *indices), source.type.element_type)  # type: ignore[union-attr]
        op = value.owner
        if not isinstance(op, GraphOp):
            raise LoweringError(f"cannot compute {value} inside a kernel")
        rule = rules.COMPUTE.lookup(op)
        if rule is None:
            raise LoweringError(f"{op.name}: no compute rule to lower this op to loops")
        assert isinstance(value.type, TensorType)
        self._depth += 1
        try:
            return rule(self, op, op.results.index(value), list(indices))
        finally:
            self._depth -= 1

    # -- loops -------------------------------------------------------------------------

    def wants_parallel(self, trips: int) -> bool:
        """Whether a loop of ``trips`` iterations asked to be parallel is
        emitted as one (it may still become serial when its nest is done:
        :meth:`_serial_when_small`)."""
        return not self._in_parallel and trips >= MIN_PARALLEL_TRIPS

    def _serial_when_small(self, nest: Operation) -> None:
        """Turn each parallel loop of the finished ``nest`` whose region's
        work would not pay for waking the pool back into an ``scf.for``."""
        lanes, l1_bytes = self.target.f32_lanes, self.target.l1d_bytes
        for par in [op for op in nest.walk() if isinstance(op, scf.ParallelOp)]:
            work = parallel_split.nest_work(region_root(par), lanes, l1_bytes)
            if not parallel_split.worth_a_region(work, parallel_split.trip_count(par)):
                _to_serial(par)

    def _open_loop(
        self, extent: int, inits: Sequence[SSAValue], start: int = 0, parallel: bool = False
    ) -> tuple[scf.ForOp | scf.ParallelOp, Scope]:
        lb, ub, step = self.index(start), self.index(extent), self.index(1)
        block = Block(arg_types=[INDEX, *(v.type for v in inits)])
        for_op: scf.ForOp | scf.ParallelOp
        if parallel:
            assert not inits
            for_op = scf.ParallelOp([lb], [ub], [step], Region(block))
            self._in_parallel += 1
        else:
            for_op = build(scf.ForOp, (lb, ub, step, *inits), [v.type for v in inits], regions=[Region(block)])
        self.current.insert(for_op)
        self.current.open_loops.append(for_op)
        if self._drivers:
            self._drivers[-1].open_loops += 1
        scope = Scope(block, self.current, self.current.depth + 1)
        for arg in block.args:
            self.scope_of[arg] = scope
        return for_op, scope

    @contextmanager
    def _straight(self, value: int) -> Iterator[SSAValue]:
        """A one-trip loop's body, in place; its index is a constant of the
        current scope (see the module docstring).  It counts as an open loop
        for the worklist: no rule unwinds through a body that stored."""
        driver = self._drivers[-1] if self._drivers else None
        if driver is not None:
            driver.open_loops += 1
        try:
            yield self.index_in(self.current, value)
        finally:
            if driver is not None:
                driver.open_loops -= 1

    def _close_loop(
        self, for_op: scf.ForOp | scf.ParallelOp, scope: Scope, yielded: Sequence[SSAValue]
    ) -> None:
        if isinstance(for_op, scf.ParallelOp):
            attach(scope.block, build(scf.ReduceOp, ()))
            self._in_parallel -= 1
        else:
            attach(scope.block, build(scf.YieldOp, yielded))
        parent = scope.parent
        assert parent is not None and parent.open_loops[-1] is for_op
        parent.open_loops.pop()
        if self._drivers:
            self._drivers[-1].open_loops -= 1
        for r in for_op.results:
            self.scope_of[r] = parent
        if parent is self.root:  # a nest is done: its regions can be weighed
            self._serial_when_small(for_op)

    def reduce(
        self,
        extents: Sequence[int],
        inits: Sequence[SSAValue],
        body: Callable[[list[SSAValue], list[SSAValue]], Sequence[SSAValue]],
        unroll: Sequence[bool] = (),
    ) -> list[SSAValue]:
        """A loop nest over ``extents`` carrying accumulators ``inits``;
        ``body(ivs, accs)`` returns the next accumulators.  Returns the finals.
        A level whose ``unroll`` entry is true is emitted straight, one copy
        of its body per index (LLVM unrolls no loop; see llvm_optimizer)."""

        def level(k: int, ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
            if k == len(extents):
                return list(body(ivs, accs))
            if extents[k] == 1 or (k < len(unroll) and unroll[k]):
                for i in range(extents[k]):
                    with self._straight(i) as iv:
                        accs = level(k + 1, [*ivs, iv], accs)
                return accs
            for_op, scope = self._open_loop(extents[k], accs)
            with self.at(scope):
                nxt = level(k + 1, [*ivs, scope.block.args[0]], list(scope.block.args[1:]))
            self._close_loop(for_op, scope, nxt)
            return list(for_op.results)

        return level(0, [], list(inits))

    def loop(
        self, extent: int, body: Callable[[SSAValue], None], start: int = 0, parallel: bool = False,
        unroll: bool = False,
    ) -> None:  # fmt: skip
        """A loop over ``range(start, extent)`` whose ``body(iv)`` has effects
        (stores); ``parallel`` asks for an ``scf.parallel`` (the iterations
        must write disjoint elements), granted as :meth:`wants_parallel` says;
        ``unroll`` emits the body straight once per index instead."""
        if extent - start == 1 or unroll:
            for i in range(start, extent):
                with self._straight(i) as iv:
                    body(iv)
            return
        parallel = parallel and self.wants_parallel(extent - start)
        for_op, scope = self._open_loop(extent, (), start, parallel)
        with self.at(scope):
            body(scope.block.args[0])
        self._close_loop(for_op, scope, ())

    def loop_blocks(self, extent: int, size: int, block: Callable[[SSAValue, int], None]) -> None:
        """``block(start, length)`` over ``range(extent)`` cut into blocks of
        ``size``: the full blocks in a loop (or inline when there is one),
        then the shorter last block, so every length is a constant."""
        full, rest = divmod(extent, size)
        if full:
            self.loop(full, lambda b: block(self.idx_mul(b, size), size))
        if rest:
            block(self.index(full * size), rest)

    def store(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.here(memref.StoreOp, (value, buffer, *indices))

    def load(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """A load from a buffer this kernel writes: never memoised."""
        return self.pure(memref.LoadOp, (buffer, *indices), buffer.type.element_type)  # type: ignore[attr-defined]

    def load_here(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """A load in the current scope (not hoisted to its operands' scope)."""
        return self.here(memref.LoadOp, (buffer, *indices), (buffer.type.element_type,)).results[0]  # type: ignore[attr-defined]

    def local_buffer(self, shape: Sequence[int], element_type: Attribute) -> SSAValue:
        """A small kernel-local buffer (a stack ``memref.alloca`` at entry)."""
        alloca = memref.AllocaOp.get(element_type, shape=list(shape))
        self.root.insert(alloca)
        self.scope_of[alloca.memref] = self.root
        return alloca.memref

    @property
    def innermost(self) -> tuple[SSAValue, int] | None:
        """The innermost iv of the output nest being emitted, and its extent."""
        return self._innermost

    def store_nest(
        self,
        value: SSAValue,
        buffer: SSAValue,
        loop_order: Sequence[int] | None = None,
        offset: Sequence[int] | None = None,
    ) -> None:
        """Compute every element of ``value`` and store it into ``buffer``,
        shifted by ``offset`` (per dimension) when given."""
        assert isinstance(value.type, TensorType) and isinstance(buffer.type, MemRefType)
        shape = value.type.get_shape()
        order = list(range(len(shape))) if loop_order is None else list(loop_order)
        ivs: dict[int, SSAValue] = {}
        par = self._parallel_level([shape[d] for d in order])

        def level(k: int) -> None:
            if k == len(order):
                idx = [ivs[d] for d in range(len(shape))]
                v = self.value_at(value, idx)
                at = idx if offset is None else [
                    self.idx_add(i, self.index(o)) if o else i for i, o in zip(idx, offset, strict=True)
                ]
                self.here(memref.StoreOp, (v, buffer, *at))
                return
            if shape[order[k]] == 1:
                if k == len(order) - 1:
                    self._innermost = None
                with self._straight(0) as iv:
                    ivs[order[k]] = iv
                    level(k + 1)
                return
            chunk = chunk_elements(shape, order[k], buffer.type) if k == len(order) - 1 and k != par else None
            if chunk is not None:  # a streamed nest: chunks of a line, each prefetching (stream_prefetch)
                outer, outer_scope = self._open_loop(shape[order[k]] // chunk, ())
                with self.at(outer_scope):
                    j0 = self.idx_mul(outer_scope.block.args[0], chunk)
                    for_op, scope = self._open_loop(chunk, ())
                    with self.at(scope):
                        ivs[order[k]] = self.pure(arith.AddiOp, (j0, scope.block.args[0]), INDEX)
                        level(k + 1)
                    self._close_loop(for_op, scope, ())
                    prefetch_streams(self, for_op, ivs[order[k]], j0)
                self._close_loop(outer, outer_scope, ())
                return
            for_op, scope = self._open_loop(shape[order[k]], (), parallel=k == par)
            ivs[order[k]] = scope.block.args[0]
            if k == len(order) - 1:
                self._innermost = (scope.block.args[0], shape[order[k]])
                innermost.append(for_op)
            with self.at(scope):
                level(k + 1)
            self._close_loop(for_op, scope, ())

        innermost: list[Operation] = []
        level(0)
        self._innermost = None
        # No outer loop to split: the innermost one is split when each of its
        # elements is a loop of its own (a reduction), which LLVM does not
        # vectorise across elements, so a chunk boundary changes nothing.
        if par is None and innermost and isinstance(for_op := innermost[0], scf.ForOp):
            inner = [o for o in for_op.body.walk() if isinstance(o, scf.ForOp | scf.ParallelOp)]
            if self.wants_parallel(shape[order[-1]]) and inner and not any(
                isinstance(o, scf.ParallelOp) for o in inner
            ):
                self._serial_when_small(_to_parallel(for_op))
        if shape and shape[order[-1]] in SHORT_VECTOR_TRIPS:
            for for_op in innermost:
                if isinstance(for_op, scf.ForOp) and for_op.parent is not None and _plain_body(for_op):
                    set_loop_hints(for_op, ("vectorize.enable",))

    def _parallel_level(self, extents: Sequence[int]) -> int | None:
        """The loop of a nest run in parallel: the outermost but the innermost
        with ``PREFERRED_PARALLEL_TRIPS`` iterations, else with two."""
        outer = list(extents[:-1])
        for least in (PREFERRED_PARALLEL_TRIPS, MIN_PARALLEL_TRIPS):
            for k, e in enumerate(outer):
                if e >= least and self.wants_parallel(e):
                    return k
        return None

    # -- index arithmetic ------------------------------------------------------------

    def idx_mul(self, a: SSAValue, c: int) -> SSAValue:
        if c == 1:
            return a
        if c == 0:
            return self.index_in(self.scope_for([a]), 0)
        return self.pure(arith.MuliOp, (a, self.index(c)), INDEX)

    def idx_add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if a in self.constant_of and b not in self.constant_of:
            a, b = b, a  # the constant second: one form for CSE
        # ``a + 0`` is ``a`` unless the 0 lives deeper (a one-trip index).
        if self.constant_of.get(b) == 0 and self.scope_for([a, b]) is self.scope_for([a]):
            return a
        if self.constant_of.get(a) == 0 and self.scope_for([a, b]) is self.scope_for([b]):
            return b
        return self.pure(arith.AddiOp, (a, b), INDEX)

    def idx_div(self, a: SSAValue, c: int) -> SSAValue:
        if c == 1:
            return a
        return self.pure(arith.DivUIOp, (a, self.index(c)), INDEX)

    def idx_rem(self, a: SSAValue, c: int) -> SSAValue:
        if c == 1:
            return self.index_in(self.scope_for([a]), 0)
        return self.pure(arith.RemUIOp, (a, self.index(c)), INDEX)


_INDEX_FOLDS: dict[type[Operation], Callable[[int, int], int | None]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivUIOp: lambda a, b: a // b if a >= 0 and b > 0 else None,
    arith.RemUIOp: lambda a, b: a % b if a >= 0 and b > 0 else None,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
}
"""Index arithmetic ``emit`` folds when every operand is in ``constant_of``."""

INDEX = IndexType()


#: Innermost trip counts whose loop of a generic nest (its body plain: loads,
#: stores, arithmetic) is marked for LLVM's loop vectoriser.  It leaves loops
#: of fewer than 16 iterations scalar when their pointers may alias (no
#: kernel argument is ``noalias``: in-place kernels), so a copy over an NCHWc block of 8 floats (AVX2) or 4 (NEON)
#: moved a float at a time; forced, it keeps its runtime alias check (an
#: in-place kernel takes the scalar loop) and moves a vector.  Measured,
#: AVX2 build on Zen 4: ResNet-50's 32x56x56x8 -> 28x28 slice 8 vmovss ->
#: one vmovups a pixel, 0.078 -> 0.037 ms warm (``kernel_profile.py``).
SHORT_VECTOR_TRIPS = (4, 8, 12)


def _plain_body(loop: scf.ForOp) -> bool:
    """A loop body of loads, stores and arithmetic only: LLVM vectorises it
    when asked (a nested loop, a branch or a call would leave the request
    unmet, and LLVM warns on stderr)."""
    return all(type(op) is scf.YieldOp or op.name.split(".")[0] in ("arith", "memref") for op in loop.body.walk())


@functools.lru_cache(maxsize=4096)
def _index_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, INDEX)


@functools.lru_cache(maxsize=None)
def _groups_attr(groups: tuple[tuple[int, ...], ...]) -> ArrayAttr:
    """A ``collapse_shape`` reassociation (attributes are costly to build, and immutable)."""
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])


@functools.lru_cache(maxsize=1024)
def _mask(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def _folded(fold: Callable[[int, int], int | None], operands: Sequence[SSAValue], constant_of: dict) -> int | None:
    """The value of index arithmetic on constants, if it folds in range."""
    values = [constant_of.get(v) for v in operands]
    if None in values:
        return None
    value = fold(*values)
    return value if value is not None and -(1 << 62) < value < 1 << 62 else None


_PURE: dict[type[Operation], bool] = {arith.RemUIOp: True, arith.ExtSIOp: True}
"""Per op class, whether it is pure (xDSL 0.74 leaves these two without the trait)."""


def _cse_key(op: Operation) -> Hashable | None:
    """What makes two pure, region-free ops equal; ``None`` for any other op
    (a load from a buffer the kernel writes is never merged)."""
    if op.regions or op.successors:
        return None
    pure = _PURE.get(type(op))
    if pure is None:
        pure = _PURE[type(op)] = is_side_effect_free(op)
    if not pure:
        return None
    props = tuple(op.properties.items()) if op.properties else ()
    attrs = tuple(op.attributes.items()) if op.attributes else ()
    return type(op), tuple(op.operands), props, attrs, tuple(r.type for r in op.results)


def _to_parallel(for_op: scf.ForOp) -> scf.ParallelOp:
    """Turn a finished ``scf.for`` without carried values into ``scf.parallel``."""
    return _rebuild_loop(for_op, scf.YieldOp, scf.ReduceOp(), lambda region: scf.ParallelOp(
        [for_op.lb], [for_op.ub], [for_op.step], region))  # fmt: skip


def _to_serial(par: scf.ParallelOp) -> scf.ForOp:
    """Turn a finished one-dimensional ``scf.parallel`` back into an ``scf.for``."""
    return _rebuild_loop(par, scf.ReduceOp, scf.YieldOp(), lambda region: build(
        scf.ForOp, (par.lowerBound[0], par.upperBound[0], par.step[0]), (), regions=[region]))  # fmt: skip


def _rebuild_loop(loop: Operation, old_terminator: type[Operation], terminator: Operation,
                  make: Callable[[Region], Operation]) -> Operation:  # fmt: skip
    """Give ``loop``'s body ``terminator`` for its ``old_terminator`` and move
    it into the loop ``make`` builds, in ``loop``'s place."""
    body = loop.regions[0].block
    last = body.last_op
    assert isinstance(last, old_terminator)
    last.detach()
    last.erase()
    body.add_op(terminator)
    new = make(loop.detach_region(loop.regions[0]))
    block = loop.parent_block()
    assert block is not None
    block.insert_op_before(new, loop)
    loop.detach()
    loop.erase()
    return new


def sweep_dead_ops(block: Block) -> None:
    """Erase the unused pure ops (and unused stack buffers) a re-run rule left."""
    for op in reversed(list(block.walk())):
        if op.results and not any(r.uses for r in op.results) and (
            isinstance(op, memref.AllocaOp) or is_side_effect_free(op)
        ) and not op.regions:
            op.detach()
            op.erase()
