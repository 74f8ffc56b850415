"""The register tile a GEMM-class micro-kernel hands to its fused epilogue.

The micro-kernel stores its accumulators into a small tile buffer; while it
emits the epilogue it announces the tile (:func:`set_tile`), and the compute
rules of the anchor ops read their element from it (:func:`tile_value`)
instead of recomputing the dot product.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from graphopt.dialects.graph import GraphOp, tensor_of
from graphopt.lowering.kernel_emitter import KernelEmitter


def set_tile(em: KernelEmitter, tile: tuple | None) -> None:
    """Announce (or withdraw) the register tile the epilogue reads: ``(anchor,
    output indices, tile buffer, *indices into the tile)``."""
    em.gemm_tile = tile


def tile_value(em: KernelEmitter, op: GraphOp, idx: list[SSAValue]) -> SSAValue | None:
    """The micro-kernel's result for ``op`` at ``idx``, if ``idx`` is the tile
    nest's own ``(batch..., i, j)``; ``None`` otherwise (the caller computes it)."""
    tile = getattr(em, "gemm_tile", None)
    if tile is None or tile[0] is not op or len(idx) != len(tile[1]):
        return None
    # An index into an axis of extent 1 is 0 whatever value names it
    # (broadcasting epilogues read such axes at the constant 0).
    shape = tensor_of(op.results[0]).get_shape()
    if any(a is not b and d != 1 for a, b, d in zip(idx, tile[1], shape)):
        return None
    _, _, buf, *at = tile
    return em.load(buf, at)
