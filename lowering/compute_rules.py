"""Index-space compute rules: the registry lower-graph-to-loop inlines with.

A compute rule answers "what is element ``indices`` of result ``result_index``
of this op?" by emitting scalar ``arith``/``math`` code through the
:class:`KernelEmitter` and asking for operand elements with
``emitter.value_at(operand, derived_indices)``.  Rules are registered per op
class in :data:`graphopt.rules.COMPUTE` (looked up along the class hierarchy);
plugins add rules for their own ops with ``registry.add_rule(COMPUTE, ...)``.
The built-in rules are here and in ``rules_*``.

    @register_compute_rule(MyOp)
    def my_rule(em: KernelEmitter, op: MyOp, result_index: int, idx: list[SSAValue]) -> SSAValue:
        x = em.value_at(op.input, idx)
        return em.emit(arith.MulfOp(x, x)).results[0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Sequence

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import IntegerType
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Operation, SSAValue

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import (
    FLOAT_TYPES,
    AxisNormalizationOp,
    BinaryBroadcastOp,
    GraphOp,
    ReduceOp,
    UnaryElementwiseOp,
    tensor_of,
)
from graphopt.lowering.expand_math import emit_exp_nonpositive
from graphopt.lowering.register_tile import tile_value
from graphopt.lowering.kernel_emitter import KernelEmitter

ComputeRule = Callable[[KernelEmitter, GraphOp, int, list[SSAValue]], SSAValue]
LoopOrderRule = Callable[[GraphOp, int], list[int]]

#: ``@register_compute_rule(OpA, OpB)``: the compute rule of those classes
#: (and of their subclasses without a rule of their own).
register_compute_rule = rules.COMPUTE.register

#: ``@register_loop_order(OpA)``: the loop order an anchor's output nest prefers.
register_loop_order = rules.LOOP_ORDER.register


def anchor_under(
    root: SSAValue, is_anchor: Callable[[GraphOp], bool], inputs: Container[SSAValue] = (), unique: bool = False
) -> SSAValue | None:
    """The result of the first op ``is_anchor`` takes under ``root``, looking
    through an elementwise epilogue of the same shape (through its only such
    operand when ``unique``, else its first), not past ``inputs``."""
    value = root
    while value not in inputs and isinstance(op := value.owner, GraphOp):
        if is_anchor(op):
            return value
        same = [v for v in op.operands if v.type == value.type and isinstance(v.owner, GraphOp)]
        if op.fuse_pattern > FusePattern.BROADCAST or not same or (unique and len(same) != 1):
            return None
        value = same[0]
    return None


def preferred_loop_order(root: SSAValue, inputs: Container[SSAValue] = ()) -> list[int] | None:
    """The loop order the anchor under ``root`` asks for, not looking past the
    kernel's ``inputs``; ``None`` keeps row-major order."""
    value = anchor_under(root, lambda op: rules.LOOP_ORDER.lookup(op) is not None, inputs)
    if value is None:
        return None
    op = value.owner
    return rules.LOOP_ORDER.lookup(op)(op, op.results.index(value))  # type: ignore[misc, union-attr]


def axis_innermost(rank: int, axis: int) -> list[int]:
    return [d for d in range(rank) if d != axis] + [axis]


def elem_type(value: SSAValue) -> Attribute:
    return tensor_of(value).element_type


def is_float(t: Attribute) -> bool:
    return t in FLOAT_TYPES


def result(op: Operation) -> SSAValue:
    return op.results[0]


# --------------------------------------------------------------------------
# scalar helpers
# --------------------------------------------------------------------------


#: Fast-math flags of the rules' float ops.  ``REASSOC`` goes on the add of a
#: loop-carried reduction only: LLVM may then split the sum into vector
#: partial sums, added up at the end (a different rounding order from the
#: sequential sum, with a smaller error bound).  ``CONTRACT`` goes on the mul
#: and add of a multiply-accumulate, which LLVM may fuse into one FMA (one
#: rounding instead of two).  Nothing else is relaxed: NaN, inf and signed
#: zeros keep their IEEE meaning.
REASSOC = FastMathFlagsAttr([FastMathFlag.REASSOC])
CONTRACT = FastMathFlagsAttr([FastMathFlag.ALLOW_CONTRACT])
REASSOC_CONTRACT = FastMathFlagsAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT])


def s_add(em: KernelEmitter, a: SSAValue, b: SSAValue, flags: FastMathFlagsAttr | None = None) -> SSAValue:
    return result(em.emit(arith.AddfOp(a, b, flags) if is_float(a.type) else arith.AddiOp(a, b)))


def s_acc(em: KernelEmitter, acc: SSAValue, x: SSAValue) -> SSAValue:
    """``acc + x`` as the step of a reduction loop (``REASSOC``)."""
    return s_add(em, acc, x, REASSOC)


def s_mac(em: KernelEmitter, acc: SSAValue, a: SSAValue, b: SSAValue, reduction: bool) -> SSAValue:
    """``acc + a * b``, contractible to an FMA; ``reduction`` when ``acc`` is
    loop-carried (then the add may also be reassociated)."""
    if not is_float(acc.type):
        return s_add(em, acc, s_mul(em, a, b))
    prod = result(em.emit(arith.MulfOp(a, b, CONTRACT)))
    return s_add(em, acc, prod, REASSOC_CONTRACT if reduction else CONTRACT)


def s_sub(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(arith.SubfOp(a, b) if is_float(a.type) else arith.SubiOp(a, b)))


def s_mul(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(arith.MulfOp(a, b) if is_float(a.type) else arith.MuliOp(a, b)))


def s_div(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return result(em.emit(arith.DivfOp(a, b)))


def s_max(em: KernelEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    """NaN-propagating maximum, as numpy's ``maximum``."""
    return em.pick(a, b, "ogt") if is_float(a.type) else result(em.emit(arith.MaxSIOp(a, b)))


def s_max_reduce(em: KernelEmitter, acc: SSAValue, x: SSAValue) -> SSAValue:
    """The NaN-propagating maximum as a reduction step: ``arith.maximumf``,
    which LLVM's loop vectoriser recognises as a reduction (the select form
    of :func:`s_max` it does not)."""
    return result(em.emit(arith.MaximumfOp(acc, x) if is_float(acc.type) else arith.MaxSIOp(acc, x)))


def s_exp(em: KernelEmitter, a: SSAValue) -> SSAValue:
    return result(em.emit(mathd.ExpOp(a)))


def lowest(t: Attribute) -> float | int:
    if is_float(t):
        return -math.inf
    assert isinstance(t, IntegerType)
    return -(1 << (t.width.data - 1))


# --------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------

#: The unary ops that are one ``math`` op on a float element.
_UNARY_FLOAT: dict[type[UnaryElementwiseOp], type[Operation]] = {
    graph.ExpOp: mathd.ExpOp,
    graph.LogOp: mathd.LogOp,
    graph.SqrtOp: mathd.SqrtOp,
    graph.TanhOp: mathd.TanhOp,
    graph.RsqrtOp: mathd.RsqrtOp,
    graph.ErfOp: mathd.ErfOp,
    graph.SinOp: mathd.SinOp,
    graph.CosOp: mathd.CosOp,
}


@register_compute_rule(*_UNARY_FLOAT)
def _unary_math(em: KernelEmitter, op: UnaryElementwiseOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    return result(em.emit(_UNARY_FLOAT[type(op)](x)))  # type: ignore[call-arg]


@register_compute_rule(graph.NegOp)
def _neg(em: KernelEmitter, op: graph.NegOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    if is_float(x.type):
        return result(em.emit(arith.NegfOp(x)))
    return s_sub(em, em.scalar_constant(0, x.type), x)


@register_compute_rule(graph.ReluOp)
def _relu(em: KernelEmitter, op: graph.ReluOp, _: int, idx: list[SSAValue]) -> SSAValue:
    x = em.value_at(op.input, idx)
    return s_max(em, x, em.scalar_constant(0, x.type))


@register_compute_rule(graph.SigmoidOp)
def _sigmoid(em: KernelEmitter, op: graph.SigmoidOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``1 / (1 + e)`` for ``x >= 0`` and ``e / (1 + e)`` below, with ``e =
    exp(-|x|)``: exp never overflows, so the negative tail keeps its precision
    down to the denormals (plain ``1 / (1 + exp(-x))`` gives 0 below -88)."""
    x = em.value_at(op.input, idx)
    one = em.scalar_constant(1.0, x.type)
    e = s_exp(em, result(em.emit(arith.NegfOp(result(em.emit(mathd.AbsFOp(x)))))))
    s = s_div(em, one, s_add(em, one, e))
    negative = result(em.emit(arith.CmpfOp(x, em.scalar_constant(0.0, x.type), "olt")))
    return result(em.emit(arith.SelectOp(negative, s_mul(em, e, s), s)))


def broadcast_indices(
    em: KernelEmitter, operand: SSAValue, out_idx: Sequence[SSAValue]
) -> list[SSAValue]:
    """Indices into ``operand`` for output element ``out_idx`` under numpy
    broadcasting (leading dims dropped, size-1 dims read at 0)."""
    return shape_broadcast_indices(em, tensor_of(operand).get_shape(), out_idx)


def shape_broadcast_indices(em: KernelEmitter, shape: Sequence[int], out_idx: Sequence[SSAValue]) -> list[SSAValue]:
    """:func:`broadcast_indices` into an operand of ``shape``."""
    offset = len(out_idx) - len(shape)
    return [em.index(0) if d == 1 else out_idx[offset + k] for k, d in enumerate(shape)]


_BINARY: dict[type[BinaryBroadcastOp], Callable[[KernelEmitter, SSAValue, SSAValue], SSAValue]] = {
    graph.AddOp: s_add,
    graph.SubOp: s_sub,
    graph.MulOp: s_mul,
    graph.DivOp: s_div,
    graph.MaximumOp: s_max,
}


@register_compute_rule(*_BINARY)
def _binary(em: KernelEmitter, op: BinaryBroadcastOp, _: int, idx: list[SSAValue]) -> SSAValue:
    a = em.value_at(op.lhs, broadcast_indices(em, op.lhs, idx))
    b = em.value_at(op.rhs, broadcast_indices(em, op.rhs, idx))
    return _BINARY[type(op)](em, a, b)


# --------------------------------------------------------------------------
# matmul and reductions
# --------------------------------------------------------------------------


#: Output rows narrower than this use the dot-product form.
MATMUL_ROW_MIN_WIDTH = 4


@register_compute_rule(graph.MatmulOp)
def _matmul(em: KernelEmitter, op: graph.MatmulOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``out[b..., i, j] = sum_k a[b..., i, k] * b[b..., k, j]``.

    When the output nest's innermost loop runs over ``j`` (the usual case: the
    matmul is the anchor, read by its elementwise epilogue at the nest's own
    indices), a whole output row is computed first, once per ``(b..., i)``,
    into a stack buffer in ``i, k, j`` order -- the inner ``j`` loop is
    contiguous and vectorises -- and the element is a load from that row.
    Otherwise each element is a dot product over ``k``.
    """
    if (tiled := tile_value(em, op, idx)) is not None:
        return tiled
    batch, i, j = idx[:-2], idx[-2], idx[-1]
    a_shape = tensor_of(op.lhs).get_shape()
    b_shape = tensor_of(op.rhs).get_shape()
    k_extent = a_shape[-1]
    n_extent = b_shape[-1]
    t = elem_type(op.result)
    a_batch, b_batch = (shape_broadcast_indices(em, s[:-2], batch) for s in (a_shape, b_shape))
    inner = em.innermost
    if (
        inner is not None
        and inner[0] is j
        and inner[1] == n_extent >= MATMUL_ROW_MIN_WIDTH
        and all(em.scope_for([v]).depth < em.scope_for([j]).depth for v in (*batch, i))
    ):
        row = em.cached(
            ("matmul.row", op), [*a_batch, *b_batch, i],
            lambda: _matmul_row(em, op, a_batch, b_batch, i, k_extent, n_extent, t),
        )
        return em.load(row, [j])

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        (k,) = ivs
        a = em.value_at(op.lhs, [*a_batch, i, k])
        b = em.value_at(op.rhs, [*b_batch, k, j])
        return [s_mac(em, accs[0], a, b, reduction=True)]

    return em.reduce([k_extent], [em.scalar_constant(0, t)], body)[0]


def _matmul_row(
    em: KernelEmitter,
    op: graph.MatmulOp,
    a_batch: list[SSAValue],
    b_batch: list[SSAValue],
    i: SSAValue,
    k_extent: int,
    n_extent: int,
    t: Attribute,
) -> SSAValue:
    """``row[:] = a[b.., i, :] @ b[b.., :, :]`` into a fresh stack buffer."""
    row = em.local_buffer([n_extent], t)
    zero = em.scalar_constant(0, t)
    em.loop(n_extent, lambda jj: em.store(zero, row, [jj]))

    def k_body(k: SSAValue) -> None:
        a = em.value_at(op.lhs, [*a_batch, i, k])

        def j_body(jj: SSAValue) -> None:
            b = em.value_at(op.rhs, [*b_batch, k, jj])
            em.store(s_mac(em, em.load(row, [jj]), a, b, reduction=False), row, [jj])

        em.loop(n_extent, j_body)

    em.loop(k_extent, k_body)
    return row


def reduced_input_indices(
    op_axes: Sequence[int], keepdims: bool, in_rank: int, out_idx: Sequence[SSAValue], red_ivs: Sequence[SSAValue]
) -> list[SSAValue]:
    """Input indices of a reduction: reduced axes take the loop ivs."""
    axes = sorted(op_axes)
    red = dict(zip(axes, red_ivs))
    kept = iter(out_idx)
    out: list[SSAValue] = []
    for d in range(in_rank):
        if d in red:
            out.append(red[d])
            if keepdims:
                next(kept)
        else:
            out.append(next(kept))
    return out


def reduce_axes(
    em: KernelEmitter,
    op: ReduceOp,
    idx: list[SSAValue],
    init: float | int,
    combine: Callable[[KernelEmitter, SSAValue, SSAValue], SSAValue],
) -> SSAValue:
    """``combine(acc, x)`` folded from ``init`` over the input elements that
    reduce to output element ``idx`` (one loop nest over the reduced axes)."""
    in_shape = tensor_of(op.input).get_shape()
    axes = sorted(op.normalized_axes)
    start = em.scalar_constant(init, elem_type(op.result))

    def body(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        x = em.value_at(op.input, reduced_input_indices(axes, op.keeps_dims, len(in_shape), idx, ivs))
        return [combine(em, accs[0], x)]

    return em.reduce([in_shape[a] for a in axes], [start], body)[0]


@register_compute_rule(graph.ReduceSumOp, graph.ReduceMeanOp, graph.ReduceMaxOp)
def _reduce(em: KernelEmitter, op: ReduceOp, _: int, idx: list[SSAValue]) -> SSAValue:
    t = elem_type(op.result)
    if isinstance(op, graph.ReduceMaxOp):
        return reduce_axes(em, op, idx, lowest(t), s_max_reduce)
    total = reduce_axes(em, op, idx, 0, s_acc)
    if isinstance(op, graph.ReduceMeanOp):
        in_shape = tensor_of(op.input).get_shape()
        count = math.prod(in_shape[a] for a in op.normalized_axes)
        return s_div(em, total, em.scalar_constant(float(count), t))
    return total


@register_loop_order(graph.SoftmaxOp, graph.LogSoftmaxOp)
def _softmax_order(op: AxisNormalizationOp, _: int) -> list[int]:
    return axis_innermost(len(tensor_of(op.input).get_shape()), op.normalized_axis)


#: Longest softmax row whose ``exp(x - max)`` is kept in a stack buffer
#: (64 KiB of f32), so exp runs once per element; longer rows recompute it.
SOFTMAX_ROW_BUFFER_MAX = 16384


def ordered_bits(em: KernelEmitter, x: SSAValue, it: IntegerType) -> SSAValue:
    """The bits of float (or already integer) ``x`` as a signed integer that
    orders as the floats do (``-0 < +0``; a NaN beyond the infinity of its
    sign): a negative float's magnitude bits are flipped.  Its own inverse."""
    bits = x if x.type == it else result(em.emit(arith.BitcastOp(x, it)))
    sign = result(em.emit(arith.ShRSIOp(bits, em.scalar_constant(it.width.data - 1, it))))
    flip = result(em.emit(arith.AndIOp(sign, em.scalar_constant(-lowest(it) - 1, it))))
    return result(em.emit(arith.XOrIOp(bits, flip)))


def stable_row_stats(
    em: KernelEmitter, op: AxisNormalizationOp, idx: list[SSAValue], keep_exp: bool = False
) -> tuple[Callable[[SSAValue], SSAValue], SSAValue, Callable[[SSAValue], SSAValue]]:
    """For softmax-like ops along ``op``'s axis: ``shifted(k)`` = ``x[.., k, ..]
    - max``, the row's ``sum(exp(shifted))`` and ``exp_at(k)`` = ``exp(shifted(k))``,
    with ``keep_exp``, when it can, read from the row buffer the sum loop
    stored the exps in.  The max and the sum are each computed once per row
    (cached on the other indices, so hoisted out of the row's loop)."""
    axis = op.normalized_axis
    n = tensor_of(op.input).get_shape()[axis]
    t = elem_type(op.result)
    outer = [v for d, v in enumerate(idx) if d != axis]
    k_iv = idx[axis]
    inner = em.innermost
    # The buffer is filled per row before the row's loop: only valid when the
    # axis is the innermost loop of the nest and every other index is outer.
    buffered = (
        keep_exp
        and n <= SOFTMAX_ROW_BUFFER_MAX
        and inner is not None
        and inner[0] is k_iv
        and all(em.scope_for([v]).depth < em.scope_for([k_iv]).depth for v in outer)
    )

    def row(k: SSAValue) -> list[SSAValue]:
        return [k if d == axis else v for d, v in enumerate(idx)]

    def row_max() -> SSAValue:
        # A signed max of the ordered bits: three AVX-512 instructions a
        # vector, where maximumf takes six (a maxnumf reduction aborts LLVM
        # 22's loop vectoriser, see lowering/to_llvm/cf.py).  It is
        # maximumf's max on a row without a NaN; with one, the row's sum,
        # so every output of the row, is NaN whatever the max.
        it = IntegerType(t.bitwidth)
        key = em.reduce(
            [n], [em.scalar_constant(lowest(it), it)],
            lambda ivs, accs: [s_max(em, accs[0], ordered_bits(em, em.value_at(op.input, row(ivs[0])), it))],
        )[0]  # fmt: skip
        return result(em.emit(arith.BitcastOp(ordered_bits(em, key, it), t)))

    m = em.cached(("row.max", op), outer, row_max)

    def shifted(k: SSAValue) -> SSAValue:
        return s_sub(em, em.value_at(op.input, row(k)), m)

    def exp_shifted(k: SSAValue) -> SSAValue:
        x = shifted(k)
        if x.type == graph.f32:
            return emit_exp_nonpositive(em.emit, x)
        return s_exp(em, x)

    buf = em.cached(("row.exp", op), (), lambda: em.local_buffer([n], t)) if buffered else None

    def sum_step(ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
        e = exp_shifted(ivs[0])
        if buf is not None:
            em.store(e, buf, [ivs[0]])
        return [s_acc(em, accs[0], e)]

    def row_sum() -> SSAValue:
        return em.reduce([n], [em.scalar_constant(0.0, t)], sum_step)[0]

    total = em.cached(("row.sum", op, buf is not None), outer, row_sum)
    exp_at = exp_shifted if buf is None else (lambda k: em.load(buf, [k]))
    return shifted, total, exp_at


@register_compute_rule(graph.SoftmaxOp)
def _softmax(em: KernelEmitter, op: graph.SoftmaxOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """``exp(x - max) * (1 / sum(exp(x - max)))``, max, sum and reciprocal
    once per row; the sum loop keeps each exp in a row buffer when the row is
    the innermost loop, so exp runs once per element.  The reciprocal costs at
    most 1 ulp against a division."""
    _, total, exp_at = stable_row_stats(em, op, idx, keep_exp=True)
    t = elem_type(op.result)
    inv = em.cached(("softmax.inv", op), [total], lambda: s_div(em, em.scalar_constant(1.0, t), total))
    return s_mul(em, exp_at(idx[op.normalized_axis]), inv)


# --------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------


@register_compute_rule(graph.TransposeOp)
def _transpose(em: KernelEmitter, op: graph.TransposeOp, _: int, idx: list[SSAValue]) -> SSAValue:
    perm = op.permutation
    in_idx: list[SSAValue] = list(idx)  # a permutation of idx (empty at rank 0)
    for out_axis, in_axis in enumerate(perm):
        in_idx[in_axis] = idx[out_axis]
    return em.value_at(op.input, in_idx)


def strides(shape: Sequence[int]) -> list[int]:
    out = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        out[d] = out[d + 1] * shape[d + 1]
    return out


def linearize(em: KernelEmitter, idx: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
    """Row-major linear index of ``idx`` in ``shape`` (unit dims add nothing)."""
    linear: SSAValue | None = None
    for v, stride, d in zip(idx, strides(shape), shape):
        if d == 1:
            continue
        term = em.idx_mul(v, stride)
        linear = term if linear is None else em.idx_add(linear, term)
    return em.index(0) if linear is None else linear


def delinearize(em: KernelEmitter, linear: SSAValue, shape: Sequence[int]) -> list[SSAValue]:
    """The index in ``shape`` of row-major position ``linear``."""
    out: list[SSAValue] = []
    total = math.prod(shape)
    for stride, d in zip(strides(shape), shape):
        if d == 1:
            out.append(em.index(0))
            continue
        q = em.idx_div(linear, stride)
        out.append(q if stride * d == total else em.idx_rem(q, d))
    return out


@register_compute_rule(graph.ReshapeOp)
def _reshape(em: KernelEmitter, op: graph.ReshapeOp, _: int, idx: list[SSAValue]) -> SSAValue:
    """Linearise the output index, then delinearise it in the input shape;
    the trailing dims both shapes share pass through (a channel shuffle's
    ``[N, C, H, W] -> [N, g, C/g, H, W]`` divides the channel index only, so
    its division stays out of the pixel loops)."""
    out_shape = tensor_of(op.result).get_shape()
    in_shape = tensor_of(op.input).get_shape()
    if [d for d in out_shape if d != 1] == [d for d in in_shape if d != 1]:
        # Only unit dims move: map the non-unit dims one to one.
        src = iter(v for v, d in zip(idx, out_shape) if d != 1)
        return em.value_at(op.input, [em.index(0) if d == 1 else next(src) for d in in_shape])
    shared = 0
    while shared < min(len(out_shape), len(in_shape)) - 1 and out_shape[-1 - shared] == in_shape[-1 - shared]:
        shared += 1
    cut_out, cut_in = len(out_shape) - shared, len(in_shape) - shared
    head = delinearize(em, linearize(em, idx[:cut_out], out_shape[:cut_out]), in_shape[:cut_in])
    return em.value_at(op.input, [*head, *idx[cut_out:]])


