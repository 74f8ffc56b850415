"""``convert-parallel-to-llvm``: ``scf.parallel`` onto libgomp's thread pool.

Runs right after ``convert-loop-to-llvm``, before ``scf`` becomes ``cf``.
Each one-dimensional ``scf.parallel`` without reductions (what the schedule
emits, see ``lowering.kernel_emitter``) is outlined, as MLIR's OpenMP
lowering does:

* the body moves into a new private function ``@<kernel>_par<i>(ptr)``; the
  values it captures travel in a context struct the caller fills (one
  ``llvm.alloca`` in the caller's entry block, one field per value).  What
  the outlined function can re-create is not passed, so it keeps what the
  serial code knew: constants and globals; pure arithmetic, recomputed from
  the values it derives from (an index ``32 * jb + 256 * g`` stays that, not
  an opaque number); the variable of an enclosing loop that runs once (its
  lower bound, a constant).  A stack buffer (``memref.alloca``) that every
  iteration stores to before it reads it, and that nothing reads after the
  loop, is scratch (a row, a register tile, a panel): each thread allocates
  its own.  Any other buffer (one read first, or one the loop fills for
  later code, such as a conv's padded input copy) is shared;
* the outlined function splits the iteration space statically into one
  contiguous chunk per thread (``omp_get_thread_num``/``omp_get_num_threads``),
  ``ceil(trips / team)`` iterations each in unsigned arithmetic over the
  constant trip count, and runs its chunk as an ``scf.for``: which thread
  runs an iteration never changes what it computes;
* a serial ``scf.for`` whose body is only pure arithmetic and the parallel
  loop (a conv's panel loop around its parallel output rows) is outlined
  with it: one region instead of one per iteration, each thread running
  its chunk of the inner loop in every iteration (:func:`region_root`).
  No barrier then separates the iterations, which is safe because the
  chunks are the same in every iteration and the nest never reads a
  buffer it writes (other than per-thread scratch);
* the caller reads the thread count from the module global
  ``graphopt_num_threads`` (an ``i32`` the runtime sets; 0 = libgomp's
  default, ``OMP_NUM_THREADS`` or every core), caps it at the trip count, and
  calls ``GOMP_parallel(fn, ctx, n, 0)``, or ``fn(ctx)`` directly for a
  team of one.

libgomp keeps its worker threads between calls (one team per calling
thread), so no thread is created per call.  The JIT loads ``libgomp``; a
shared library links ``-lgomp``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    VectorType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    SymbolRefAttr,
    UnrealizedConversionCastOp,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import MemoryEffect, NoMemoryEffect, is_side_effect_free

from graphopt.lowering.op_builder import build, walk_ops
from graphopt.lowering.to_llvm.common import PTR, LoopToLLVMError, access_props, call, gep, int_attr, llvm_type
from graphopt.lowering.to_llvm.scalar import declare_externals
from graphopt.transforms.levels import require_lowered

__all__ = ["NUM_THREADS_GLOBAL", "ConvertParallelToLLVMPass", "outline_parallel", "region_root"]

NUM_THREADS_GLOBAL = "graphopt_num_threads"
"""The ``i32`` the runtime sets to the thread count (0: libgomp's default)."""

_EXTERNALS = {
    "GOMP_parallel": llvm.LLVMFunctionType([PTR, PTR, i32, i32]),
    "omp_get_thread_num": llvm.LLVMFunctionType([], i32),
    "omp_get_num_threads": llvm.LLVMFunctionType([], i32),
}


def _enclosing_func(op: Operation) -> func.FuncOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    if parent is None:
        raise LoopToLLVMError("scf.parallel outside a function is not supported")
    return parent


def _inside(op: Operation | None, region_op: Operation) -> bool:
    return op is not None and region_op.is_ancestor(op)


#: Per op class: True when its only memory-effect traits are NoMemoryEffect
#: (or ``Pure``, which is one), False when it has none, None when its effects
#: depend on the op.
_PURE_BY_CLASS: dict[type[Operation], bool | None] = {}


def _pure(op: Operation) -> bool:
    """``is_side_effect_free(op)``, decided once per class where the class
    decides it (the traits lookup is slow, and a region holds thousands of
    ops of a dozen classes)."""
    known = _PURE_BY_CLASS.get(type(op), 0)
    if known == 0:
        traits = op.get_traits_of_type(MemoryEffect)
        known = False if not traits else True if all(_no_effect(t) for t in traits) else None
        _PURE_BY_CLASS[type(op)] = known
    return is_side_effect_free(op) if known is None else known  # type: ignore[return-value]


def _no_effect(trait: MemoryEffect) -> bool:
    """The trait is NoMemoryEffect's (its ``get_effects`` not overridden)."""
    return isinstance(trait, NoMemoryEffect) and type(trait).get_effects.__func__ is NoMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]


def _op(cls: type[Operation], operands=(), result_types=(), properties: dict | None = None, regions=()) -> Operation:
    """A ``cls`` op built directly (:func:`graphopt.lowering.op_builder.build`)."""
    return build(cls, operands, result_types, properties, regions=regions)


_INDEX = IndexType()
_NO_OVERFLOW = arith.IntegerOverflowAttr("none")
_CMPI_EQ = IntegerAttr(0, i64)
_CMPI_ULT = IntegerAttr(6, i64)
_CMPI_UGE = IntegerAttr(9, i64)


def _index_const(value: int) -> Operation:
    return _op(arith.ConstantOp, (), (_INDEX,), {"value": int_attr(value, _INDEX)})


def _arith(cls: type[Operation], a: SSAValue, b: SSAValue) -> Operation:
    """An index ``arith`` binary op, as its constructor builds it."""
    props = {"overflowFlags": _NO_OVERFLOW} if issubclass(cls, arith.SignlessIntegerBinaryOperationWithOverflow) else None
    return _op(cls, (a, b), (a.type,), props)




def _defining_op(v: SSAValue) -> Operation | None:
    return v.owner if isinstance(v.owner, Operation) else None


class _Outliner:
    """Outlines one ``scf.parallel`` (see the module docstring)."""

    def __init__(self, par: scf.ParallelOp, name: str):
        self.par, self.name = par, name
        self.root: Operation = region_root(par)  # what moves into the region
        self.clones: dict[SSAValue, SSAValue] = {}
        self.body = Block(arg_types=[PTR])
        self.passed: list[SSAValue] = []

    def _recomputed(self, v: SSAValue) -> bool:
        """Whether ``v`` is re-created in the outlined function instead of
        travelling in the context: constants, globals, pure arithmetic (its
        operands are captured in turn, so the body sees how an index derives
        from a loop variable, as the serial code did), the variable of an
        enclosing loop of one iteration (its lower bound) and scratch
        buffers (each thread allocates its own)."""
        op = _defining_op(v)
        if op is None:
            return _single_trip_lb(v) is not None
        if isinstance(op, memref.AllocaOp):
            return self._private(v)
        return not op.regions and _pure(op)

    def _private(self, buf: SSAValue) -> bool:
        """A stack buffer is scratch (one per thread) when every iteration
        writes it before reading it and nothing reads it after the loop."""
        return _first_access(self.root, buf) is not False and _dead_after(self.root, buf)

    def _clone_into_body(self, v: SSAValue) -> SSAValue:
        if v in self.clones:
            return self.clones[v]
        op = _defining_op(v)
        if op is None:  # the variable of a one-iteration loop
            self.clones[v] = self._clone_into_body(_single_trip_lb(v))  # type: ignore[arg-type]
            return self.clones[v]
        operands = [self._clone_into_body(o) for o in op.operands]
        new = op.clone(value_mapper={o: n for o, n in zip(op.operands, operands)})
        self.body.add_op(new)
        for old, res in zip(op.results, new.results):
            self.clones[old] = res
        return self.clones[v]

    def captured(self) -> list[SSAValue]:
        """Values the region (its loops, their bounds) uses from outside, in
        first-use order."""
        par, root = self.par, self.root
        values: dict[SSAValue, None] = dict.fromkeys((par.lowerBound[0], par.upperBound[0], par.step[0]))
        ops = walk_ops(root)
        # One walk: the ops of the region, by identity (``is_ancestor`` per
        # operand walked up to the region for every use).
        self.inside = inside = {id(op) for op in ops}
        for inner in ops:
            for v in inner._operands:  # noqa: SLF001
                where = v.block.parent_op() if type(v) is BlockArgument else v.owner
                if id(where) not in inside:
                    values.setdefault(v, None)
        return list(values)

    def outline(self) -> func.FuncOp:
        par = self.par
        captured = self.captured()
        remat: list[SSAValue] = []
        self.passed = []
        state: set[SSAValue] = set()

        def visit(v: SSAValue) -> None:
            if v in state:
                return
            state.add(v)
            if not self._recomputed(v):
                self.passed.append(v)
                return
            op = _defining_op(v)
            if op is None:
                visit(_single_trip_lb(v))  # type: ignore[arg-type]
            elif not isinstance(op, memref.AllocaOp):
                for o in op.operands:
                    visit(o)
            remat.append(v)

        for v in captured:
            visit(v)
        fields = [llvm_type(v.type) for v in self.passed]
        self.offsets, self.ctx_bytes = _layout(fields)
        ctx = self.body.args[0]
        for i, v in enumerate(self.passed):
            field = gep(ctx, self.offsets[i] // _byte_size(fields[i]), fields[i], inbounds=False)
            load = _op(llvm.LoadOp, (field.results[0],), (fields[i],), access_props())
            self.body.add_ops([field, load])
            value = load.results[0]
            if fields[i] != v.type:
                cast = _op(UnrealizedConversionCastOp, (value,), (v.type,))
                self.body.add_op(cast)
                value = cast.results[0]
            self.clones[v] = value
        for v in remat:
            self._clone_into_body(v)
        mapping = {v: self.clones[v] for v in captured}

        lb, ub, step = (mapping[v] for v in (par.lowerBound[0], par.upperBound[0], par.step[0]))
        tid = call("omp_get_thread_num", (), i32)
        nt = call("omp_get_num_threads", (), i32)
        self.body.add_ops([tid, nt])
        ops: list[Operation] = []

        def add(op: Operation) -> SSAValue:
            ops.append(op)
            return op.results[0]

        # Unsigned arithmetic: the trip count is >= 0 and the team >= 1, so
        # ceil(trips / team) = (trips + team - 1) / team exactly.
        tid_i = add(_op(arith.IndexCastOp, (tid.results[0],), (_INDEX,)))
        nt_i = add(_op(arith.IndexCastOp, (nt.results[0],), (_INDEX,)))
        trips = _trip_count(add, lb, ub, step)
        one = add(_index_const(1))
        zero = add(_index_const(0))
        chunk = add(_arith(arith.DivUIOp, add(_arith(arith.AddiOp, trips, add(_arith(arith.SubiOp, nt_i, one)))), nt_i))
        begin = add(_arith(arith.MinUIOp, add(_arith(arith.MuliOp, tid_i, chunk)), trips))
        end = add(_arith(arith.MinUIOp, add(_arith(arith.AddiOp, begin, chunk)), trips))
        self.body.add_ops(ops)

        loop_block = Block(arg_types=[_INDEX])
        t = loop_block.args[0]
        iv: SSAValue = t
        if _constant_index(step) != 1:
            iv = _r(loop_block, _arith(arith.MuliOp, t, step))
        if _constant_index(lb) != 0:
            iv = _r(loop_block, _arith(arith.AddiOp, lb, iv))
        old_block = par.body.block
        old_block.args[0].replace_all_uses_with(iv)
        # With a constant trip count, the chunk is the iterations of the
        # whole range that fall in [begin, end): the loop keeps its constant
        # bounds, from which LLVM knows the range of every index the body
        # derives from it (a reshape's divisions and remainders fold as in
        # the serial loop; over [begin, end) a channel shuffle ran 1.67x
        # slower, even on one thread).  Skipping an iteration costs a compare.
        whole = _constant_index(trips) is not None
        body_block = Block() if whole else loop_block
        for inner in list(old_block.ops):
            inner.detach()
            if isinstance(inner, scf.ReduceOp):
                inner.erase()
                continue
            body_block.add_op(inner)
        body_block.add_op(_op(scf.YieldOp))
        if whole:
            after = _r(loop_block, _op(arith.CmpiOp, (t, begin), (i1,), {"predicate": _CMPI_UGE}))
            before = _r(loop_block, _op(arith.CmpiOp, (t, end), (i1,), {"predicate": _CMPI_ULT}))
            mine = _r(loop_block, _op(arith.AndIOp, (after, before), (i1,)))
            loop_block.add_ops([scf.IfOp(mine, [], Region(body_block)), _op(scf.YieldOp)])
            chunk_loop = _op(scf.ForOp, (zero, trips, one), regions=[Region(loop_block)])
        else:
            chunk_loop = _op(scf.ForOp, (begin, end, one), regions=[Region(loop_block)])
        if self.root is par:
            self.body.add_ops([chunk_loop, _op(func.ReturnOp)])
        else:  # the serial loops around it move into the region, the chunk in place of the loop
            par_block = par.parent_block()
            assert par_block is not None
            par_block.insert_op_before(chunk_loop, par)
            par.detach()
            par.erase()
            self.root.detach()
            self.body.add_ops([self.root, _op(func.ReturnOp)])
        # The moved ops now read the outlined function's copies (the region's
        # ops, ``par`` aside when it is not moved: what else the body holds
        # is new and reads the copies already).
        inside = self.inside
        for old, new in mapping.items():
            for use in list(old.uses):
                user = use.operation
                if id(user) in inside and user is not par:
                    user.operands[use.index] = new
        # What only the body used is now computed there: drop the originals.
        for v in reversed(remat):
            op = _defining_op(v)
            if op is not None and op.parent is not None and not isinstance(op, memref.AllocaOp) \
                    and not any(r.uses for r in op.results):
                op.detach()
                op.erase()
        return func.FuncOp(self.name, ([PTR], []), Region(self.body), visibility="private")

    def call_site(self, entry: Block) -> list[Operation]:
        """What replaces the ``scf.parallel``: fill the context, run the pool."""
        par = self.par
        # Pointer-sized slots: an opaque pointer, as every field access expects.
        size = _op(llvm.ConstantOp, (), (i64,), {"value": int_attr(max(-(-self.ctx_bytes // 8), 1), i64)})
        alloca = _op(llvm.AllocaOp, (size.results[0],), (PTR,), {"alignment": int_attr(64, i64), "elem_type": PTR})
        first = entry.first_op
        if first is None:
            entry.add_ops([size, alloca])
        else:
            entry.insert_ops_before([size, alloca], first)
        ctx = alloca.results[0]
        ops: list[Operation] = []

        def add(op: Operation) -> SSAValue:
            ops.append(op)
            return op.results[0] if op.results else None  # type: ignore[return-value]

        for i, v in enumerate(self.passed):
            value = v
            t = llvm_type(v.type)
            if t != v.type:
                value = add(_op(UnrealizedConversionCastOp, (v,), (t,)))
            field = add(gep(ctx, self.offsets[i] // _byte_size(t), t, inbounds=False))
            add(_op(llvm.StoreOp, (value, field), (), access_props()))
        g = add(_op(llvm.AddressOfOp, (), (PTR,), {"global_name": SymbolRefAttr(NUM_THREADS_GLOBAL)}))
        nt = add(_op(arith.IndexCastOp, (add(_op(llvm.LoadOp, (g,), (i32,), access_props())),), (_INDEX,)))
        trips = _trip_count(add, par.lowerBound[0], par.upperBound[0], par.step[0])
        # The team: the thread count, at most one thread per iteration; 0 (or
        # less) asks libgomp for its default team, which the chunks of the
        # outlined function fit whatever its size.
        zero = add(_index_const(0))
        team = add(_arith(arith.MinSIOp, add(_arith(arith.MaxSIOp, nt, zero)), trips))
        one = add(_index_const(1))
        serial = add(_op(arith.CmpiOp, (team, one), (i1,), {"predicate": _CMPI_EQ}))
        team32 = _op(arith.IndexCastOp, (team,), (i32,))
        fn = _op(llvm.AddressOfOp, (), (PTR,), {"global_name": SymbolRefAttr(self.name)})
        flags = _op(llvm.ConstantOp, (), (i32,), {"value": int_attr(0, i32)})
        pool = call("GOMP_parallel", (fn.results[0], ctx, team32.results[0], flags.results[0]), None)
        add(scf.IfOp(
            serial, [],
            [func.CallOp(self.name, [ctx], []), _op(scf.YieldOp)],
            [team32, fn, flags, pool, _op(scf.YieldOp)],
        ))  # fmt: skip
        return ops


def region_root(par: scf.ParallelOp) -> Operation:
    """The outermost op of the nest that runs as ``par``'s region: ``par``, or
    the serial ``scf.for`` loops around it whose bodies hold nothing but pure
    arithmetic and the next loop in, when ``par``'s bounds are defined
    outside them (the chunks are the same in every iteration) and no buffer
    ``par`` writes is also read in it (so no thread needs another's result
    of an earlier iteration; per-thread scratch aside)."""
    root: Operation = par
    accessed = _accessed_buffers(par)
    if accessed is None:
        return par
    written, read = accessed
    while isinstance(loop := root.parent_op(), scf.ForOp) and not loop.iter_args:
        if any(op is not root and not isinstance(op, scf.YieldOp) and (op.regions or not _pure(op))
               for op in loop.body.block.ops):  # fmt: skip
            break
        if any(_defined_in(v, loop) for v in (par.lowerBound[0], par.upperBound[0], par.step[0])):
            break
        if any(not _private_to(loop, buf) for buf in written & read):
            break
        root = loop
    return root


def _defined_in(v: SSAValue, op: Operation) -> bool:
    where = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
    return _inside(where, op)


#: Ops that write no memory though xDSL does not call them pure (integer
#: division may trap; the schedule divides by constants).
_NO_WRITE = (memref.LoadOp, vector.LoadOp, memref.AllocaOp, scf.ForOp, scf.YieldOp, scf.ReduceOp,
             arith.DivUIOp, arith.RemUIOp, arith.DivSIOp, arith.RemSIOp)


_STORES = (memref.StoreOp, vector.StoreOp)
_LOADS = (memref.LoadOp, vector.LoadOp)


def _accessed_buffers(par: scf.ParallelOp) -> tuple[set[SSAValue], set[SSAValue]] | None:
    """The buffers the body of ``par`` stores to and loads from (one walk),
    or None when it has any other effect than loads and stores (a call, a
    view: not hoisted)."""
    written: set[SSAValue] = set()
    read: set[SSAValue] = set()
    for op in walk_ops(par)[1:]:  # the ops of its body
        cls = type(op)
        if cls in _STORES:
            written.add(op._operands[1])  # noqa: SLF001
        elif cls in _LOADS:
            read.add(op._operands[0])  # noqa: SLF001
        elif cls not in _NO_WRITE and (
            not _pure(op) or any(isinstance(v.type, MemRefType) for v in op._operands)  # noqa: SLF001
        ):
            return None
    return written, read


def _private_to(loop: Operation, buf: SSAValue) -> bool:
    """Whether ``buf`` is scratch of every thread running ``loop``'s nest
    (see :meth:`_Outliner._private`), or allocated inside it."""
    if _defined_in(buf, loop):
        return True
    return isinstance(_defining_op(buf), memref.AllocaOp) and _first_access(loop, buf) is not False \
        and _dead_after(loop, buf)


def _constant_index(v: SSAValue) -> int | None:
    op = _defining_op(v)
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _single_trip_lb(v: SSAValue) -> SSAValue | None:
    """The lower bound of the ``scf.for`` whose variable ``v`` is, when that
    loop runs exactly once (its variable is then a constant)."""
    loop = v.owner.parent_op() if isinstance(v.owner, Block) else None
    if not isinstance(loop, scf.ForOp) or loop.body.block.args[0] is not v:
        return None
    lb, ub, step = (_constant_index(x) for x in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0 or not lb < ub <= lb + step:
        return None
    return loop.lb


def _first_access(where: Operation, buf: SSAValue) -> bool | None:
    """In program order, whether the first op of ``where`` using ``buf``
    stores to it (True), uses it otherwise (False), or there is none."""
    for inner in walk_ops(where):
        operands = inner._operands  # noqa: SLF001
        if buf in operands:
            return type(inner) in _STORES and operands[1] is buf
    return None


def _dead_after(par: Operation, buf: SSAValue) -> bool:
    """Whether the contents of ``buf`` are dead when ``par`` ends: the next
    use in program order (around the enclosing loops, whose next iteration
    starts their body again) is a store, or there is none."""
    op = par
    while True:
        nxt = op.next_op
        while nxt is not None:
            if (first := _first_access(nxt, buf)) is not None:
                return first
            nxt = nxt.next_op
        block = op.parent_block()
        parent = block.parent_op() if block is not None else None
        if block is None or parent is None or isinstance(parent, func.FuncOp | llvm.FuncOp):
            return True
        if isinstance(parent, scf.ForOp | scf.ParallelOp | scf.WhileOp):
            for before in block.ops:
                if before is op:
                    break
                if (first := _first_access(before, buf)) is not None:
                    return first
        op = parent


def _layout(fields: list) -> tuple[list[int], int]:
    """Byte offsets of the context fields, each a multiple of its size (so a
    field is addressed as element ``offset / size`` of its own type), and the
    context's size."""
    offsets, at = [], 0
    for t in fields:
        size = _byte_size(t)
        at = -(-at // size) * size
        offsets.append(at)
        at += size
    return offsets, at


def _byte_size(t) -> int:
    if isinstance(t, VectorType):
        if isinstance(t.element_type, IntegerType) and t.element_type.width.data == 1:
            raise LoopToLLVMError(f"scf.parallel cannot capture a value of type {t}")
        n = 1
        for d in t.get_shape():
            n *= d
        size = max(1, n * _byte_size(t.element_type))
        return 1 << (size - 1).bit_length()  # LLVM's allocation size
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, AnyFloat):
        return t.bitwidth // 8
    return 8  # pointers


def _r(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]


def _trip_count(add, lb: SSAValue, ub: SSAValue, step: SSAValue) -> SSAValue:
    """``max(ceil((ub - lb) / step), 0)``: a constant when the bounds are
    (as the schedule emits them), else computed."""
    bounds = [_constant_index(v) for v in (lb, ub, step)]
    if None not in bounds and bounds[2] > 0:  # type: ignore[operator]
        lo, hi, st = bounds
        return add(_index_const(max(-(-(hi - lo) // st), 0)))
    zero = add(_index_const(0))
    span = add(_arith(arith.SubiOp, ub, lb))
    return add(_arith(arith.MaxSIOp, add(_arith(arith.CeilDivSIOp, span, step)), zero))


def outline_parallel(module: ModuleOp) -> None:
    """Outline every ``scf.parallel`` of ``module`` (innermost first)."""
    pars: list[scf.ParallelOp] = []
    allocas: list[memref.AllocaOp] = []
    for op in walk_ops(module):  # one walk: the loops, and the stack buffers they may leave unused
        if type(op) is scf.ParallelOp:
            pars.append(op)
        elif type(op) is memref.AllocaOp:
            allocas.append(op)
    if not pars:
        return
    counters: dict[str, int] = {}
    taken = {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp | llvm.FuncOp)}
    for par in reversed(pars):
        if len(par.lowerBound) != 1 or par.initVals or par.res:
            raise LoopToLLVMError(
                "lower-loop-to-llvm runs only one-dimensional scf.parallel loops without "
                f"reductions; this one has {len(par.lowerBound)} dimension(s) and "
                f"{len(par.initVals)} reduction(s)"
            )
        owner = _enclosing_func(par)
        base = owner.sym_name.data
        while True:
            i = counters.get(base, 0)
            counters[base] = i + 1
            name = f"{base}_par{i}"
            if name not in taken:
                break
        taken.add(name)
        outliner = _Outliner(par, name)
        # The call site takes the place of the region's root (moved into it).
        place = outliner.root.next_op
        assert place is not None  # a loop body ends with its terminator
        outlined = outliner.outline()
        owner.parent_block().insert_op_before(outlined, owner)  # type: ignore[union-attr]
        parent_block = place.parent_block()
        assert parent_block is not None
        parent_block.insert_ops_before(outliner.call_site(owner.body.blocks[0]), place)
        if outliner.root is par:
            par.detach()
            par.erase()
    # Stack buffers every parallel loop now allocates for itself (the
    # outlined functions' own allocas are used).
    for op in allocas:
        if op.memref.first_use is None:
            op.detach()
            op.erase()
    declare_externals(module, _EXTERNALS)
    if not any(isinstance(g, llvm.GlobalOp) and g.sym_name.data == NUM_THREADS_GLOBAL for g in module.ops):
        module.body.block.add_op(
            llvm.GlobalOp(i32, NUM_THREADS_GLOBAL, "common", value=IntegerAttr(0, i32), alignment=4)
        )


@dataclass(frozen=True)
class ConvertParallelToLLVMPass(ModulePass):
    name = "convert-parallel-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_lowered(op, self.name)
        outline_parallel(op)
