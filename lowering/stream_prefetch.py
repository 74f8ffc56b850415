"""Software prefetch of the streams of a large elementwise kernel.

A fused elementwise chain over arrays larger than L2 is one loop that LLVM
vectorises: some fifteen to twenty instructions per 16-lane vector (the
maxima, a divide), so the reorder buffer holds only about twenty iterations,
1 KB of each input in flight, and one core reaches half of its DRAM
bandwidth (the 8-op chain over 16 MB: 13-16 GB/s against a STREAM triad of
25-33).  Such a nest's innermost loop runs in chunks of one cache line, and
each chunk prefetches (``loop.prefetch``) the line ``AHEAD_BYTES`` further
on in every large input it reads in order, and for a write the line it
will store in the output (fetching it for ownership, the store's miss
started early); LLVM still vectorises the chunk (a call in the loop itself
would keep it scalar), its prefetches after it.  Measured on the 8-op
chain at one thread, each step in one process against the one before:
2.49 -> 1.22-1.69 ms with input prefetches 2 KB ahead into L2; 1.36 -> 1.14
ms 4 KB ahead into L1 (3 KB and 6 KB within noise, chunks of 2, 4 or 8 lines
no faster than one); 1.11 -> 0.95 ms with the output's write prefetch (at
two threads 0.65 -> 0.56 ms wall).  A read prefetch of the output 2 KB
ahead into L2 had gained nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from graphopt.dialects.loop import PrefetchOp, element_num_bytes

if TYPE_CHECKING:
    from graphopt.lowering.kernel_emitter import KernelEmitter

#: Arrays of at least this size are streamed from L3 or memory (2x L2).
MIN_STREAM_BYTES = 4 << 20
#: How far ahead of the chunk each input is prefetched.
AHEAD_BYTES = 4096
LINE_BYTES = 64
LOCALITY = 3


def chunk_elements(shape: Sequence[int], innermost_dim: int, buffer: MemRefType) -> int | None:
    """Elements per chunk (one line) of a nest's innermost loop over
    ``innermost_dim`` writing ``buffer``, or None when it is not streamed."""
    size = element_num_bytes(buffer.element_type)
    chunk = LINE_BYTES // size if LINE_BYTES % size == 0 else 0
    if innermost_dim != len(shape) - 1 or chunk < 2 or shape[-1] % chunk or shape[-1] == chunk:
        return None
    return chunk if math.prod(shape) * size >= MIN_STREAM_BYTES else None


def prefetch_streams(em: KernelEmitter, inner: scf.ForOp, j: SSAValue, j0: SSAValue) -> None:
    """After the inner loop of a chunk (``j = j0 + iv``), in the chunk, a
    prefetch of each large memref it loads or stores at ``[outer..., j]``
    (outer indices from outside the chunk), ``AHEAD_BYTES`` on, on the
    memref's flat view (clamped to its last element); for a store, a write
    prefetch, which starts the line's fetch for ownership."""
    block = inner.body.block
    seen: set[SSAValue] = set()
    for op in block.ops:
        if not isinstance(op, memref.LoadOp | memref.StoreOp) or op.indices[-1] is not j or op.memref in seen:
            continue
        t = op.memref.type
        assert isinstance(t, MemRefType)
        shape, size = t.get_shape(), element_num_bytes(t.element_type)
        total = math.prod(shape)
        if total * size < MIN_STREAM_BYTES or any(
            isinstance(i.owner, Operation) and i.owner.parent_block() is block for i in op.indices[:-1]
        ):
            continue
        seen.add(op.memref)
        linear, stride = em.idx_add(j0, em.index(AHEAD_BYTES // size)), shape[-1]
        for d in reversed(range(len(shape) - 1)):
            linear = em.idx_add(linear, em.idx_mul(op.indices[d], stride))
            stride *= shape[d]
        at = em.pure(arith.MinSIOp, (linear, em.index(total - 1)), linear.type)
        flat = em.collapse(op.memref, (tuple(range(len(shape))),))
        em.emit_here(PrefetchOp(flat, [at], LOCALITY, write=isinstance(op, memref.StoreOp)))
