"""Which loops the thread pool runs, and which loop of a conv or GEMM
kernel it splits.

Whether a parallel loop is worth a region
-----------------------------------------
A parallel loop runs as one libgomp region (``lowering.to_llvm.parallel``):
the pool's worker is woken, runs its chunk, and the caller joins it.
Measured on the project's machine (Zen 4, 2 vCPUs; real-time priority, so
that other processes' load does not count; a loop of two chunks of vector
FMAs, at 1 thread against 2):

* the worker still spinning from the region before (``runtime.thread_pool``
  spins about 50 us): a region costs 1.6-1.7 us; 2 threads win from 4 us of
  work on (the rule's case: :data:`FORK_JOIN_SECONDS`);
* the worker asleep (after 200 us of serial code, such as a serial kernel
  of a model): 15.5 us (18.5 with the vCPUs on different dies, below); 2
  threads win from 30-35 us of work on (1.3-1.37x at 70 us, 1.6x at 140);
* at normal priority on the loaded machine (load average 6 on its 2 vCPUs),
  an empty region costs about 300 us: the worker waits for a CPU.

What the worker writes, the next kernel reads from the other core.  The two
vCPUs sit on one die or on two (a cache line's ping-pong 50-90 ns or
330-360 ns), and across dies reading back what the other core wrote costs
(:data:`CROSS_CORE_BYTES_PER_SECOND`).

A loop the schedule asks to run in parallel stays parallel only when the
time the other thread saves the caller pays for a region (with the worker
spinning, as it does between a model's parallel kernels) and for reading
back what that thread wrote across dies (:func:`worth_a_region`);
else it is emitted as a serial ``scf.for``.  Its work is counted from the
loop nest that becomes the region (:func:`nest_work`: vector instructions,
bytes stored and loaded, times the trip counts of its loops); the time
derived from it is a lower bound of the measured time of nearly every
kernel: a loop whose work is underestimated stays on one thread, which
costs no more than one thread.  Before the rule, ShuffleNet opened 253
regions per call, 46 us of work each on average and a third of them under
20 us (its grouped 1x1 convs open one per group and panel), and ran at
0.9x at 2 threads; MobileNetV2 opened 147 and ran at 0.84x with the vCPUs
on different dies.

Which loop of a conv splits
---------------------------
The implicit-GEMM conv (:mod:`graphopt.lowering.conv_gemm`) has two outer
loops whose iterations write disjoint outputs: the panels of 32 output
channels and the output rows.  Either split leaves every sum where it was
(no reduction is split), so the choice changes speed, never results:

* the split must balance: libgomp's static schedule gives each of ``T``
  threads ``ceil(trips / T)`` iterations, so 7 rows on 2 threads run as
  4 + 3 (88% busy) while 16 panels run as 8 + 8;
* each thread reads all of the operand the split does not cut: split over
  rows, every thread streams every weight panel; split over panels, every
  thread reads the whole padded input.  The same holds for a pointwise
  conv's GEMM (:func:`pixel_blocks`).  Cutting the bigger one moves less
  memory: the early ResNet stages (56x56, 64 channels) split rows, the late
  ones (14x14 and 7x7, 256..512 channels, megabytes of weights) panels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from xdsl.dialects import arith, math, memref, scf, vector
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, MemRefType, VectorType
from xdsl.ir import Block, Operation, SSAValue

#: Threads the balance is judged for (the machines this targets have 2..4).
BALANCE_THREADS = (2, 4)

#: What a region costs the caller: 1.6-1.7 us with the pool's worker still
#: spinning from the region before (``runtime.thread_pool`` spins about
#: 50 us), 15-16 us when it sleeps (see the module docstring).  The rule
#: counts the spinning worker: once the loops that pay for it are parallel,
#: regions follow each other within the spin in every light model, and
#: counting the sleeping one (16 us) kept whole models serial -- ShuffleNet
#: (0 regions a call, 0.99x at 2 threads; 1.35x counting 2 us), MobileNetV2
#: (1.06x; 1.55-1.70x), ResNet-50 (1.76x; 1.94x), SqueezeNet (1.36x; 1.74x).
#: A region whose worker does sleep loses at most the difference, 14 us.
FORK_JOIN_SECONDS = 2e-6

#: Bytes per second the caller gets of what the pool's worker wrote.  The
#: two vCPUs of the project's machine sit on one die (a cache line's
#: ping-pong 50-90 ns) or on two (330-360 ns), changing from minute to
#: minute; a core streams what the other wrote at 26 GB/s across dies
#: (74 GB/s on one, 78 from its own L2).  The rule counts the rate across
#: dies.  A serial kernel that reads such an output in a strided order does
#: worse (MobileNetV2 on two dies under the earlier per-kernel rule: 1-3
#: GB/s; counting that rate, 2 GB/s, kept those models serial), but
#: with the spinning worker counted most of a model's readers are parallel
#: loops themselves.
CROSS_CORE_BYTES_PER_SECOND = 26e9

#: The team a parallel loop is judged for: the smallest that opens a region.
SPLIT_THREADS = 2

#: One core's time per vector instruction of a loop nest, as counted by
#: :func:`nest_work`: the GEMM and conv micro-kernels of ShuffleNet,
#: SqueezeNet, Inception v1, MobileNetV2 and ResNet-50 ran at 0.165-0.26 ns
#: per counted instruction (0.13 ns at the fastest, 0.15 for the 7x7 stems);
#: other kernels slower (pools, concats and transposes 0.5-6 ns: their loads
#: and stores wait for memory).
VECTOR_OP_SECONDS = 0.15e-9

#: Instructions an integer division or remainder counts (by a constant, it
#: becomes a multiply and shifts): ShuffleNet's channel shuffles, 10 of them
#: an element, ran 3.8 ns an element.
DIVISION_INSTRUCTIONS = 2

#: Instructions a scalar ``exp``, ``log``, ``tanh`` or ``erf`` counts:
#: ``expand-math`` makes each a vectorised polynomial of 15-30 ops.
EXPANDED_MATH_INSTRUCTIONS = 20

#: Instructions any other transcendental (``powf``: LRN) counts per element:
#: it stays a libm call, one element at a time (AlexNet's LRN over
#: 96x54x54 ran 10.4 ns an element).
LIBM_CALL_INSTRUCTIONS = 64

#: Bytes a core stores per second into the kernel's buffers at most: stores
#: to kernel buffers ran at 12.7 GB/s at the fastest (a concat's copies of
#: 426 KB) and 0.5-10 GB/s in every other kernel of those models (the
#: STREAM copy moves 22-26 GB/s, two bytes per stored byte).
STORED_BYTES_PER_SECOND = 16e9

#: Bytes a core loads per second from a kernel's buffers at most: the
#: matrix-vector products of the models' classifiers, which read every
#: weight once, ran at 15-30 GB/s (AlexNet's 9216x4096: 23 GB/s;
#: ResNet-50's 2048x1000: 24-30).
LOADED_BYTES_PER_SECOND = 32e9

#: A per-call padded input copy smaller than this (f32 elements) stays on one
#: thread: waking the pool for a second region costs more than it saves.
MIN_PARALLEL_COPY_ELEMENTS = 1 << 17

#: The rows of one GEMM panel (M x K multiply-adds per column) are split when
#: they are at least this many: 2^17 x 32 columns is about 8 MFLOP, 80 us on
#: one core, against 10-30 us for a parallel region.
MIN_PARALLEL_PANEL_MK = 1 << 17


@dataclass
class LoopWork:
    """What a loop nest does (:func:`nest_work`): vector instructions; bytes
    stored outside the L1-sized stack buffers, and of those the bytes stored
    into the kernel's own buffers (its outputs: what the next kernel reads,
    half of it from the other core when this one is split); bytes loaded
    per buffer read (outside the L1-sized stack buffers)."""

    instructions: float = 0.0
    stored: float = 0.0
    outputs: float = 0.0
    loaded: dict[SSAValue, float] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        """One core's time: instructions, stores or loads, whichever take
        longest; a buffer loaded again and again counts its size once (a
        lower bound: it may stay in a cache)."""
        footprint = sum(min(n, _size(buffer)) for buffer, n in self.loaded.items())
        return max(self.instructions * VECTOR_OP_SECONDS, self.stored / STORED_BYTES_PER_SECOND,
                   footprint / LOADED_BYTES_PER_SECOND)  # fmt: skip

    def add(self, other: LoopWork, times: float = 1.0) -> None:
        self.instructions += times * other.instructions
        self.stored += times * other.stored
        self.outputs += times * other.outputs
        for buffer, n in other.loaded.items():
            self.loaded[buffer] = self.loaded.get(buffer, 0.0) + times * n


def worth_a_region(work: LoopWork, trips: int, threads: int = SPLIT_THREADS) -> bool:
    """Whether a parallel loop of ``trips`` iterations doing ``work`` gains by
    running on ``threads`` threads: the share of the static split the other
    threads take (all but the largest chunk) must save the caller more than
    the region costs (:data:`FORK_JOIN_SECONDS`) and than reading back the
    output they write (:data:`CROSS_CORE_BYTES_PER_SECOND`)."""
    if trips < 2:
        return False
    others = 1 - -(-trips // threads) / trips
    cost = FORK_JOIN_SECONDS + others * work.outputs / CROSS_CORE_BYTES_PER_SECOND
    return others * work.seconds >= cost


def nest_work(op: Operation, lanes: int, l1_bytes: int) -> LoopWork:
    """The work of the loop nest ``op`` (a loop, or any op holding loops),
    counted from its ops.  A vector op or an integer division counts one
    instruction; a scalar float op, load or store ``1 / lanes`` (LLVM
    vectorises the loops and the straight-line code the schedule leaves
    scalar); index arithmetic none (it becomes addressing); a
    transcendental what its expansion or libm call costs
    (:data:`EXPANDED_MATH_INSTRUCTIONS`, :data:`LIBM_CALL_INSTRUCTIONS`).  Stores count
    their bytes, except into stack buffers that fit in the ``l1_bytes`` of
    the L1 data cache (register tiles, rows of sums); stores into buffers
    that are not the kernel's stack (its arguments) count as outputs too.
    Each loop's body counts its trip count times (1 when its bounds are not
    constants), an ``scf.if`` its larger branch."""
    return _op_work(op, 1.0 / max(lanes, 1), l1_bytes)


def trip_count(loop: scf.ForOp | scf.ParallelOp) -> int:
    """Iterations of a one-dimensional loop with constant bounds, else 1."""
    if isinstance(loop, scf.ParallelOp):
        bounds = (loop.lowerBound[0], loop.upperBound[0], loop.step[0])
    else:
        bounds = (loop.lb, loop.ub, loop.step)
    lb, ub, step = (_constant(v) for v in bounds)
    if lb is None or ub is None or step is None or step <= 0:
        return 1
    return max(0, -(-(ub - lb) // step))


def _constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


#: Ops that cost nothing at run time (constants, terminators, views of buffers).
_FREE = (arith.ConstantOp, scf.YieldOp, scf.ReduceOp, memref.AllocaOp, memref.GetGlobalOp, memref.ViewOp,
         memref.SubviewOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp)  # fmt: skip
_DIVISIONS = (arith.DivUIOp, arith.RemUIOp, arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp)
_STORES = (memref.StoreOp, vector.StoreOp)
_LOADS = (memref.LoadOp, vector.LoadOp)
_EXPANDED_MATH = (math.ExpOp, math.LogOp, math.TanhOp, math.ErfOp)
_CALLED_MATH = (math.AcosOp, math.AcoshOp, math.AsinOp, math.AsinhOp, math.Atan2Op, math.AtanOp, math.AtanhOp,
                math.CbrtOp, math.CosOp, math.CoshOp, math.Exp2Op, math.ExpM1Op, math.Log10Op, math.Log1pOp,
                math.Log2Op, math.PowFOp, math.SinOp, math.SinhOp, math.TanOp)  # fmt: skip


def _op_work(op: Operation, scalar: float, l1_bytes: int) -> LoopWork:
    """:func:`nest_work` of one op; ``scalar`` is what a scalar op counts."""
    work = LoopWork()
    if isinstance(op, scf.ForOp | scf.ParallelOp):
        work.add(_block_work(op.body.block, scalar, l1_bytes), trip_count(op))
    elif isinstance(op, scf.IfOp):
        branches = [_block_work(r.block, scalar, l1_bytes) for r in op.regions if r.blocks]
        if branches:
            work.add(max(branches, key=lambda w: w.seconds))
    elif op.regions:
        for r in op.regions:
            for b in r.blocks:
                work.add(_block_work(b, scalar, l1_bytes))
    elif isinstance(op, memref.CopyOp):
        n = prod(_shape(op.source))
        size = n * _bytes(op.source.type.element_type)  # type: ignore[attr-defined]
        work.instructions = 2 * n * scalar
        work.stored = size
        work.outputs = 0.0 if _on_stack(op.target) else size
        work.loaded[op.source] = size
    elif not isinstance(op, _FREE):
        vector_type = next((x.type for x in (*op.results, *op.operands) if isinstance(x.type, VectorType)), None)
        elements = prod(vector_type.get_shape()) if vector_type is not None else 1
        if isinstance(op, _CALLED_MATH):
            work.instructions = LIBM_CALL_INSTRUCTIONS * elements
        elif isinstance(op, _EXPANDED_MATH):
            work.instructions = EXPANDED_MATH_INSTRUCTIONS * (1.0 if vector_type else scalar)
        elif isinstance(op, _DIVISIONS):
            work.instructions = DIVISION_INSTRUCTIONS * elements
        elif vector_type is not None:
            work.instructions = 1.0
        elif isinstance(op, memref.LoadOp | memref.StoreOp) or any(isinstance(r.type, AnyFloat) for r in op.results):
            work.instructions = scalar
        if isinstance(op, (*_STORES, *_LOADS)):
            buffer = op.operands[1] if isinstance(op, _STORES) else op.operands[0]
            if not _in_l1(buffer, l1_bytes):
                element = vector_type.element_type if vector_type is not None else buffer.type.element_type  # type: ignore[attr-defined]
                size = elements * _bytes(element)
                if isinstance(op, _STORES):
                    work.stored = size
                    work.outputs = 0.0 if _on_stack(buffer) else size
                else:
                    work.loaded[buffer] = size
    return work


def _block_work(block: Block, scalar: float, l1_bytes: int) -> LoopWork:
    work = LoopWork()
    for op in block.ops:
        work.add(_op_work(op, scalar, l1_bytes))
    return work


def _shape(buffer: SSAValue) -> tuple[int, ...]:
    t = buffer.type
    return tuple(t.get_shape()) if isinstance(t, MemRefType) else ()


def _size(buffer: SSAValue) -> int:
    """Bytes of a buffer of static shape (a dynamic one counts as unbounded)."""
    shape = _shape(buffer)
    if any(d < 0 for d in shape):
        return 1 << 62
    return prod(shape) * _bytes(buffer.type.element_type)  # type: ignore[attr-defined]


def _on_stack(buffer: SSAValue) -> bool:
    return isinstance(buffer.owner, memref.AllocaOp)


def _in_l1(buffer: SSAValue, l1_bytes: int) -> bool:
    """Whether ``buffer`` is a stack buffer that fits in the L1 data cache."""
    return _on_stack(buffer) and _size(buffer) <= l1_bytes


def _bytes(element_type) -> int:
    width = getattr(element_type, "bitwidth", None) or getattr(getattr(element_type, "width", None), "data", 32)
    return max(1, width // 8)


def balance(trips: int) -> float:
    """Mean fraction of the threads kept busy by a static split of ``trips``."""
    if trips <= 0:
        return 0.0
    fractions = [trips / (t * -(-trips // t)) for t in BALANCE_THREADS]
    return sum(fractions) / len(fractions)


def split_panels(rows: int, panels: int, weights: int, inputs: int) -> bool:
    """Whether a conv splits its output-channel panels (else its output rows);
    ``weights`` and ``inputs`` count the elements of one group's weights and
    padded input."""
    if panels < 2:
        return False
    if rows < 2:
        return True
    by_rows, by_panels = balance(rows), balance(panels)
    if abs(by_rows - by_panels) > 1e-9:
        return by_panels > by_rows
    return weights >= inputs


def split_panel_rows(m: int, k: int) -> bool:
    """Whether a GEMM panel that runs alone (the only full-width panel, or the
    zero-padded last one after a parallel panel loop: 4 columns of a
    pointwise conv at 14x14, a 7th of its work on the caller) splits its
    rows of tiles over the threads."""
    return m * k >= MIN_PARALLEL_PANEL_MK


#: A rows-outer pointwise GEMM with at least this many full panels of pixels
#: splits them in 4 blocks when they divide evenly (else in 2).
MIN_PIXEL_BLOCK_PANELS = 16


def pixel_blocks(panels: int, m: int, n: int) -> int:
    """Into how many blocks of its ``panels`` full panels of B (pixels) a
    rows-outer pointwise GEMM (``gemm.rows_outer``) of ``m`` output channels
    and ``n`` pixels splits, or 0 to split its row tiles instead.  Split
    over row tiles, every thread reads all of B, which the caller copies
    into panels on every call; split over pixels, every thread copies and
    reads only its own panels, and reads all of A (the weights, the smaller
    operand when ``m < n``).  B read by the other core is what costs: with
    the two vCPUs on different dies (ping-pong 330-360 ns, a core reads what
    the other wrote at 26 GB/s against 78 from its own L2), SqueezeNet's
    1x1 512->64 @13 (5 full panels) ran 118 us at 1 thread, 270 us at 2
    over row tiles and 93 us over 2 pixel blocks.  2 blocks from 2 panels
    on (the panels left over run on the caller), 4 from
    :data:`MIN_PIXEL_BLOCK_PANELS` when they divide evenly."""
    if panels < 2 or m >= n:
        return 0
    return 4 if panels >= MIN_PIXEL_BLOCK_PANELS and panels % 4 == 0 else 2


def parallel_copy(elements: int) -> bool:
    """Whether a per-call copy of ``elements`` values is worth a parallel loop."""
    return elements >= MIN_PARALLEL_COPY_ELEMENTS
