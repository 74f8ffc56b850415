"""Which loop of a conv or GEMM kernel the thread pool splits.

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

from math import prod

from xdsl.ir import Operation, SSAValue

from graphopt.dialects.graph import Conv2dNchwcOp, Conv2dOp, DepthwiseConv2dNchwcOp, MatmulOp, tensor_of

#: Threads the balance is judged for (the machines this targets have 2..4).
BALANCE_THREADS = (2, 4)

#: A per-call padded input copy smaller than this (f32 elements) stays on one
#: thread: waking the pool for a second region costs more than it saves.
MIN_PARALLEL_COPY_ELEMENTS = 1 << 17

#: The rows of one GEMM panel (M x K multiply-adds per column) are split when
#: they are at least this many: 2^17 x 32 columns is about 8 MFLOP, 80 us on
#: one core, against 10-30 us for a parallel region.
MIN_PARALLEL_PANEL_MK = 1 << 17


#: A kernel whose buffers are all small still runs its parallel loops on the
#: pool when its convs and matmuls do at least this many multiply-adds: 2^21
#: is about 40 us of GEMM on one core, against 5-15 us for a region.
MIN_PARALLEL_MULTIPLY_ADDS = 1 << 21

#: A depthwise multiply-add counts as this many: it runs along one channel's
#: row, not on a register tile (depthwise 960 @7, 0.42 M multiply-adds, takes
#: 0.13 ms, a 16th of the GEMM rate).
DEPTHWISE_WEIGHT = 16


def multiply_adds(roots: list[SSAValue], inputs) -> int:
    """The work of the kernel computing ``roots`` from ``inputs`` (the values
    it reads): the multiply-adds of its convs and matmuls, depthwise ones
    weighted by ``DEPTHWISE_WEIGHT``."""
    total, seen, stack = 0, set(), list(roots)
    while stack:
        v = stack.pop()
        if v in seen or v in inputs or not isinstance(op := v.owner, Operation):
            continue
        seen.add(v)
        if isinstance(op, Conv2dOp):
            w = tensor_of(op.weight).get_shape()
            macs = prod(tensor_of(op.result).get_shape()) * prod(w[1:])
            total += macs * (DEPTHWISE_WEIGHT if w[1] == 1 and op.group_count > 1 else 1)
        elif isinstance(op, Conv2dNchwcOp):  # one group; the output's blocks hold every channel
            total += prod(tensor_of(op.result).get_shape()) * prod(tensor_of(op.weight).get_shape()[1:])
        elif isinstance(op, DepthwiseConv2dNchwcOp):  # a tap per output element, no register tile over K
            total += prod(tensor_of(op.result).get_shape()) * prod(tensor_of(op.weight).get_shape()[1:3]) * DEPTHWISE_WEIGHT
        elif isinstance(op, MatmulOp):
            total += prod(tensor_of(op.result).get_shape()) * tensor_of(op.lhs).get_shape()[-1]
        stack.extend(op.operands)
    return total


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


#: A rows-outer pointwise GEMM (``gemm.rows_outer``) splits its pixels
#: rather than its row tiles when it has at least this many full panels.
MIN_PIXEL_BLOCK_PANELS = 16


def pixel_blocks(panels: int, m: int, n: int) -> int:
    """Into how many blocks of its ``panels`` full panels of B (pixels) a
    rows-outer pointwise GEMM of ``m`` output channels and ``n`` pixels
    splits, or 0 to split its row tiles instead.  Split over row tiles,
    every thread reads all of B, half of it copied by the other core; split
    over pixels, every thread copies and reads only its own panels and reads
    all of A, the smaller operand when ``m < n`` (the pointwise convs at
    28x28 and up).  4 blocks when they divide evenly, else 2."""
    if panels < MIN_PIXEL_BLOCK_PANELS or m >= n:
        return 0
    return 4 if panels % 4 == 0 else 2


def parallel_copy(elements: int) -> bool:
    """Whether a per-call copy of ``elements`` values is worth a parallel loop."""
    return elements >= MIN_PARALLEL_COPY_ELEMENTS
