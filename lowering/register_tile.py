"""The register tile of the GEMM-class micro-kernels: its shape for a
target, and how it reaches the fused epilogue.

:class:`GemmTile` is the shape, derived from the target's vector unit (see
:meth:`GemmTile.for_target`): vectors of ``f32_lanes`` lanes, NR = 2 vectors
of columns, MR rows, so that the ``MR x 2`` accumulators, the two B vectors
and one broadcast A element fit the vector registers -- 8 x 32 in 16 of the
32 zmm registers with AVX-512, 6 x 16 in 12 of the 16 ymm registers with
AVX2 (BLIS's Haswell sgemm kernel), 8 x 8 with NEON's 32 registers.

The micro-kernel stores its accumulators into a small tile buffer; while it
emits the epilogue it announces the tile (:func:`set_tile`), and the compute
rules of the anchor ops read their element from it (:func:`tile_value`)
instead of recomputing the dot product.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp, tensor_of
from graphopt.lowering.kernel_emitter import KernelEmitter, ScalarSource
from graphopt.target import Target

#: Rows of a register tile at most: more rows gain little once the
#: accumulators hide the FMA latency, and the tile transpose of the NCHW
#: conv epilogue takes 8 rows.
MAX_TILE_ROWS = 8
#: Vectors of columns per tile row (NR = 2 vectors, as BLIS and MLAS).
TILE_VECTORS = 2


@dataclass(frozen=True)
class GemmTile:
    """A register tile: ``rows`` (MR) x ``vectors`` vectors of ``lanes`` f32
    (NR = ``cols`` columns), for a target with ``registers`` vector registers."""

    lanes: int
    rows: int
    vectors: int
    registers: int

    @classmethod
    def for_target(cls, target: Target) -> GemmTile:
        """The tile for ``target``: NR = 2 vectors of its f32 lanes, MR = as
        many rows as leave the two B vectors and one broadcast A element in
        registers, at most 8 (AVX-512 8 x 32, AVX2 6 x 16, NEON 8 x 8)."""
        return _tile(target.f32_lanes, target.vector_registers)

    @property
    def cols(self) -> int:
        """NR: columns of C per tile (and per packed panel of B)."""
        return self.lanes * self.vectors

    def rows_fit(self, rows: int, vectors: int | None = None) -> bool:
        """Whether ``rows`` x ``vectors`` accumulators, the B vectors and a
        broadcast fit the registers (no spill in the FMA loop)."""
        v = self.vectors if vectors is None else vectors
        return rows * v + v + 1 <= self.registers


@functools.lru_cache(maxsize=None)
def _tile(lanes: int, registers: int) -> GemmTile:
    rows = min(MAX_TILE_ROWS, (registers - TILE_VECTORS - 1) // TILE_VECTORS)
    return GemmTile(lanes, rows, TILE_VECTORS, registers)


def set_tile(em: KernelEmitter, tile: tuple | None) -> None:
    """Announce (or withdraw) the register tile the epilogue reads: ``(anchor,
    output indices, tile buffer, *indices into the tile)``."""
    em.gemm_tile = tile


def store_from_tile(em: KernelEmitter, root: SSAValue, out: SSAValue, tile: tuple) -> None:
    """``out[idx] = root[idx]`` for the tile's output indices ``idx``
    (``tile[1]``), the anchor's element read from the tile announced for
    just this element: the scalar epilogue of every tiled kernel."""
    idx = list(tile[1])
    set_tile(em, tile)
    val = em.value_at(root, idx)
    set_tile(em, None)
    em.store(val, out, idx)


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


# --------------------------------------------------------------------------
# transposed tile
# --------------------------------------------------------------------------

TRANSPOSE_ROWS = 8


def transposes(lanes: int) -> bool:
    """Whether :func:`transpose_tile` handles vectors of ``lanes`` (at least
    8: each final vector holds all 8 rows of a channel)."""
    return lanes >= TRANSPOSE_ROWS


@functools.lru_cache(maxsize=None)
def _transpose_network(lanes: int) -> tuple[list, list[int]]:
    """Three stages of two-input shuffles ``(a, b, out, mask)`` transposing 8
    rows of ``lanes`` lanes (stage k pairs the rows differing in bit k and
    splits their lanes by a channel bit), and each final vector's first
    channel: it holds channels ``j .. j + lanes / 8``, rows in order."""
    vecs, stages = [[(j, r) for j in range(lanes)] for r in range(TRANSPOSE_ROWS)], []
    for k in range(3):
        bit, jbit, new, stage = 1 << k, lanes >> (k + 1), list(vecs), []
        for v in (v for v in range(TRANSPOSE_ROWS) if not v & bit):
            union = vecs[v] + vecs[v | bit]
            for out in (v, v | bit):
                mask = sorted((i for i, (j, _) in enumerate(union) if bool(j & jbit) == (out != v)), key=lambda i: union[i])
                new[out] = [union[i] for i in mask]
                stage.append((v, v | bit, out, mask))
        vecs = new
        stages.append(stage)
    return stages, [vec[0][0] for vec in vecs]


def transpose_tile(em: KernelEmitter, tile: SSAValue, dst: SSAValue, rows: int, nvec: int, lanes: int) -> None:
    """``dst[8 c + r] = tile[r, c]`` for ``r < rows <= 8``, ``c < lanes * nvec``,
    in registers: a channel-lane conv tile ``T[pixel][channel]`` becomes whole
    vectors of one channel's pixels for its NCHW output (lanes past ``rows``
    undefined); vectors of ``lanes >= 8`` (:func:`transposes`)."""
    vt = VectorType(f32, [lanes])
    stages, first = _transpose_network(lanes)
    for v in range(nvec):
        loaded = [em.vload(tile, [em.index(r), em.index(v * lanes)], vt) for r in range(rows)]
        vecs = [loaded[min(r, rows - 1)] for r in range(TRANSPOSE_ROWS)]
        for stage in stages:
            done = list(vecs)
            for a, b, out, mask in stage:
                done[out] = em.shuffle(vecs[a], vecs[b], mask, vt)
            vecs = done
        for vec, j in zip(vecs, first):
            em.vstore(vec, dst, [em.index((v * lanes + j) * TRANSPOSE_ROWS)])


# --------------------------------------------------------------------------
# vector epilogue
# --------------------------------------------------------------------------
#
# When the tile's rows run along the output's contiguous axes (a matmul's
# columns, a pointwise conv's pixels), the fused epilogue can run on whole
# vectors of the tile: one ``vector.load`` of a vector of tile elements, the
# epilogue ops on vectors, one ``vector.store`` of consecutive output elements,
# instead of a scalar loop that recomputes the output indices per element
# (for a pointwise conv a division by the row width).  The ops are evaluated
# in the same order as the scalar rules, so results are bitwise equal, but
# for the sign of a zero: on vectors the maximum and minimum are
# ``arith.maximumf``/``minimumf`` (xDSL's ``arith.select`` takes no vector
# condition), which order ``-0 < +0``, where the scalar rules, as numpy,
# return the second operand of two zeros.  Relu agrees exactly.

#: Epilogue ops that run on vectors: ``(emitter, operand vectors, op) -> vector``.
_VECTOR_BINARY = {
    graph.AddOp: arith.AddfOp,
    graph.SubOp: arith.SubfOp,
    graph.MulOp: arith.MulfOp,
    graph.DivOp: arith.DivfOp,
    graph.MaximumOp: arith.MaximumfOp,
}
_VECTOR_UNARY = (graph.ReluOp, graph.ClipOp)

_TILE, _SCALAR, _LOAD, _OP = range(4)


@dataclass
class VectorEpilogue:
    """How each value between the anchor and the root is computed on vectors:
    the anchor from the tile, values constant along the lanes as a broadcast
    scalar, kernel inputs varying along the lanes as a vector load, epilogue
    ops from their operands' vectors."""

    anchor: GraphOp
    root: SSAValue
    out_shape: tuple[int, ...]
    lane_axes: tuple[int, ...]
    kinds: dict[SSAValue, int] = field(default_factory=dict)

    def _lane_extents(self, v: SSAValue) -> tuple[int, ...]:
        shape = tensor_of(v).get_shape()
        off = len(self.out_shape) - len(shape)
        return tuple(shape[a - off] if a >= off else 1 for a in self.lane_axes)

    def _classify(self, v: SSAValue, sources: dict, depends: bool) -> int | None:
        if v is self.anchor.results[0]:
            return _TILE
        lanes = self._lane_extents(v)
        if tensor_of(v).element_type != f32:
            return None
        full = tuple(self.out_shape[a] for a in self.lane_axes)
        source = sources.get(v)
        if source is not None:
            if isinstance(source, ScalarSource) or all(e == 1 for e in lanes):
                return _SCALAR
            return _LOAD if isinstance(source, SSAValue) and lanes == full else None
        op = v.owner
        if not isinstance(op, GraphOp):
            return None
        if not depends and all(e == 1 for e in lanes):
            return _SCALAR  # computed once per row by the scalar rules
        if isinstance(op, _VECTOR_UNARY) or type(op) in _VECTOR_BINARY:
            return _OP
        return None

    @classmethod
    def plan(cls, anchor: GraphOp, root: SSAValue, sources: dict, lane_axes: tuple[int, ...]) -> VectorEpilogue | None:
        """The plan, or ``None`` when some value of the epilogue cannot run
        on vectors (then the scalar epilogue runs)."""
        out_shape = tuple(tensor_of(root).get_shape())
        if tuple(tensor_of(anchor.results[0]).get_shape()) != out_shape:
            return None
        ep = cls(anchor, root, out_shape, lane_axes)
        stack = [root]
        while stack:
            v = stack.pop()
            if v in ep.kinds:
                continue
            kind = ep._classify(v, sources, _depends_on(v, anchor, sources))
            if kind is None:
                return None
            ep.kinds[v] = kind
            if kind == _OP:
                stack.extend(v.owner.operands)
        return ep

    def emit(self, em: KernelEmitter, idx: list[SSAValue], tile: SSAValue, lanes: int) -> SSAValue:
        """The root's vector of ``lanes`` elements starting at output ``idx``,
        the anchor's being ``tile``."""
        vt = VectorType(f32, [lanes])
        done: dict[SSAValue, SSAValue] = {}

        def splat(x: SSAValue) -> SSAValue:
            return em.splat(x, vt)

        def vec(v: SSAValue) -> SSAValue:
            if v in done:
                return done[v]
            kind = self.kinds[v]
            if kind == _TILE:
                r = tile
            elif kind == _SCALAR:
                r = splat(em.value_at(v, _broadcast_indices(em, v, idx)))
            elif kind == _LOAD:
                r = em.emit(vector.LoadOp(em.sources[v], _broadcast_indices(em, v, idx), vt)).results[0]
            else:
                op = v.owner
                if isinstance(op, graph.ReluOp):
                    r = em.emit(arith.MaximumfOp(vec(op.input), splat(em.scalar_constant(0.0, f32)))).results[0]
                elif isinstance(op, graph.ClipOp):
                    lo, hi = op.typed_bounds()
                    low = em.emit(arith.MaximumfOp(vec(op.input), splat(em.scalar_constant(lo, f32)))).results[0]
                    r = em.emit(arith.MinimumfOp(low, splat(em.scalar_constant(hi, f32)))).results[0]
                else:
                    r = em.emit(_VECTOR_BINARY[type(op)](vec(op.lhs), vec(op.rhs))).results[0]
            done[v] = r
            return r

        return vec(self.root)


def _depends_on(v: SSAValue, anchor: GraphOp, sources: dict) -> bool:
    """Whether ``v`` is computed from the anchor inside the kernel."""
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if x in seen or x in sources:
            continue
        seen.add(x)
        op = x.owner
        if op is anchor:
            return True
        if isinstance(op, GraphOp):
            stack.extend(op.operands)
    return False


def _broadcast_indices(em: KernelEmitter, operand: SSAValue, out_idx: list[SSAValue]) -> list[SSAValue]:
    shape = tensor_of(operand).get_shape()
    off = len(out_idx) - len(shape)
    return [em.index(0) if d == 1 else out_idx[off + k] for k, d in enumerate(shape)]
