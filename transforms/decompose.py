"""``decompose{ops=softmax,log_softmax,layer_norm,batch_norm,gelu}``: composite ops -> primitives.

Each decomposition uses only graph primitives (reductions with ``keepdims``,
broadcasting arithmetic, ``exp``/``log``/``sqrt``/``tanh``/``erf``, ``reshape``
and rank-0 splat constants).  ``ops`` picks which composites to rewrite
(default: all five).

Trade-offs -- why ``-O3`` decomposes only ``batch_norm``:

* ``batch_norm`` (inference) -> ``(x - mean) * (gamma / sqrt(var + eps)) + beta``
  with the per-channel vectors reshaped to broadcast.  **Helps**: with constant
  parameters ``fold-constants`` precomputes the scale, and the three remaining
  elementwise ops fuse into the producer's (conv/matmul) epilogue, whereas an
  opaque batch_norm is an anchor of its own.  Precision: one rounding more than
  the fused formula, ~1 ulp.
* ``softmax`` / ``log_softmax`` -> max, subtract, exp, sum, divide (or log and
  subtract).  Numerically identical (the max is still subtracted, so large
  logits do not overflow), but the two reductions split the op into several
  fused groups and materialise the row max and row sum: usually **slower**
  than the single cached loop nest of the whole op.  Useful to expose the
  pieces to other rewrites or to a backend without a softmax rule.
* ``layer_norm`` -> mean, centre, mean of squares, divide by ``sqrt(var+eps)``,
  scale and shift.  Two-pass variance (no ``E[x²]-E[x]²`` cancellation), so
  precision holds; costs like softmax (two reductions, more groups).
* ``gelu`` -> ``0.5·x·(1 + erf(x/√2))`` (or the tanh form when the op has
  the ``approximate`` flag).  Stays elementwise, so fusion is unchanged; it
  only lengthens the kernel and rounds a few more times (~1e-7 relative in f32).

:data:`graphopt.rules.DECOMPOSITION` maps an op class to its rewrite, applied
as a rewrite pattern; plugins add entries with ``registry.add_rule``.  The ``ops`` option names ops the way
the user writes them (``softmax``, or ``toy.square`` for an op outside the
graph dialect); :func:`resolve_ops` maps those names to classes once, when
the pass is built.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp, tensor, tensor_of
from graphopt.transforms.pass_statistics import GraphRewritePass, rewrite_counting

#: ``BatchNormOp`` is per channel of axis 1 (``N x C x ...``).
BATCH_NORM_CHANNEL_AXIS = 1


class Emitter:
    """Builds ops in order before an anchor op; the new ops are kept in ``ops``."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def scalar(self, like: SSAValue, value: float) -> SSAValue:
        """A rank-0 splat of ``like``'s element type."""
        return self.add(graph.ConstantOp.splat_of(tensor((), tensor_of(like).element_type), value))


def _rank(v: SSAValue) -> int:
    return len(tensor_of(v).get_shape())


# --------------------------------------------------------------------------
# the decompositions: (op, emitter) -> replacement value, or None to skip
# --------------------------------------------------------------------------


def decompose_softmax(op: Operation, em: Emitter) -> SSAValue | None:
    assert isinstance(op, graph.SoftmaxOp)
    x, axis = op.input, op.normalized_axis
    m = em.add(graph.ReduceMaxOp(x, [axis], keepdims=True))
    e = em.add(graph.ExpOp(em.add(graph.SubOp(x, m))))
    s = em.add(graph.ReduceSumOp(e, [axis], keepdims=True))
    return em.add(graph.DivOp(e, s))


def decompose_log_softmax(op: Operation, em: Emitter) -> SSAValue | None:
    assert isinstance(op, graph.LogSoftmaxOp)
    x, axis = op.input, op.normalized_axis
    m = em.add(graph.ReduceMaxOp(x, [axis], keepdims=True))
    shifted = em.add(graph.SubOp(x, m))
    s = em.add(graph.ReduceSumOp(em.add(graph.ExpOp(shifted)), [axis], keepdims=True))
    return em.add(graph.SubOp(shifted, em.add(graph.LogOp(s))))


def decompose_layer_norm(op: Operation, em: Emitter) -> SSAValue | None:
    assert isinstance(op, graph.LayerNormOp)
    x = op.input
    axes = list(range(op.normalized_axis, _rank(x)))
    mean = em.add(graph.ReduceMeanOp(x, axes, keepdims=True))
    centred = em.add(graph.SubOp(x, mean))
    var = em.add(graph.ReduceMeanOp(em.add(graph.MulOp(centred, centred)), axes, keepdims=True))
    denom = em.add(graph.SqrtOp(em.add(graph.AddOp(var, em.scalar(var, op.epsilon)))))
    y = em.add(graph.DivOp(centred, denom))
    y = em.add(graph.AddOp(em.add(graph.MulOp(y, op.scale)), op.bias))
    return y if y.type == op.result.type else None


def decompose_batch_norm(op: Operation, em: Emitter) -> SSAValue | None:
    assert isinstance(op, graph.BatchNormOp)
    x = op.input
    axis, rank = BATCH_NORM_CHANNEL_AXIS, _rank(x)
    channels = tensor_of(x).get_shape()[axis]
    bshape = [channels] + [1] * (rank - axis - 1)

    def per_channel(v: SSAValue) -> SSAValue:
        return v if len(bshape) == 1 else em.add(graph.ReshapeOp(v, bshape))

    var = op.var
    root = em.add(graph.SqrtOp(em.add(graph.AddOp(var, em.scalar(var, op.epsilon)))))
    scale = em.add(graph.DivOp(op.scale, root))
    centred = em.add(graph.SubOp(x, per_channel(op.mean)))
    y = em.add(graph.AddOp(em.add(graph.MulOp(centred, per_channel(scale))), per_channel(op.bias)))
    return y if y.type == op.result.type else None


def decompose_gelu(op: Operation, em: Emitter) -> SSAValue | None:
    assert isinstance(op, graph.GeluOp)
    x = op.input
    half_x = em.add(graph.MulOp(x, em.scalar(x, 0.5)))
    if op.is_approximate:
        cube = em.add(graph.MulOp(em.add(graph.MulOp(x, x)), x))
        inner = em.add(graph.AddOp(x, em.add(graph.MulOp(cube, em.scalar(x, 0.044715)))))
        t = em.add(graph.TanhOp(em.add(graph.MulOp(inner, em.scalar(x, math.sqrt(2.0 / math.pi))))))
    else:
        t = em.add(graph.ErfOp(em.add(graph.MulOp(x, em.scalar(x, 1.0 / math.sqrt(2.0))))))
    return em.add(graph.MulOp(half_x, em.add(graph.AddOp(t, em.scalar(x, 1.0)))))


Decomposition = Callable[[Operation, Emitter], SSAValue | None]

#: ``register_decomposition(OpClass, rule)``: how ``decompose`` rewrites
#: ``OpClass`` ops (the rule returns None to leave an op alone).
register_decomposition = rules.DECOMPOSITION.register

register_decomposition(graph.SoftmaxOp, decompose_softmax)
register_decomposition(graph.LogSoftmaxOp, decompose_log_softmax)
register_decomposition(graph.LayerNormOp, decompose_layer_norm)
register_decomposition(graph.BatchNormOp, decompose_batch_norm)
register_decomposition(graph.GeluOp, decompose_gelu)


def option_name(op_class: type[Operation]) -> str:
    """How ``ops=`` names an op class: ``softmax`` for ``graph.softmax``."""
    return op_class.name.removeprefix("graph.")


def resolve_ops(names: Iterable[str]) -> tuple[type[Operation], ...]:
    """The op classes the user's ``ops=`` names denote (parsed once, here)."""
    table = {option_name(cls): cls for cls in rules.DECOMPOSITION}
    classes: list[type[Operation]] = []
    for name in names:
        cls = table.get(name)
        if cls is None:
            raise ValueError(
                f"decompose: unknown op '{name}' in ops; expected some of " + ", ".join(table)
            )
        classes.append(cls)
    return tuple(classes)


@dataclass(eq=False)
class DecomposeOp(RewritePattern):
    """Rewrite an op whose decomposition is registered on one of ``classes``."""

    classes: frozenset[type[Operation]]
    count: int = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        found = rules.DECOMPOSITION.lookup_with_class(op)
        if found is None or found[0] not in self.classes or not isinstance(op, GraphOp):
            return
        if not all(isinstance(r.type, TensorType) for r in op.results):
            return
        em = Emitter(op)
        value = found[1](op, em)
        if value is None:
            return
        for new in em.ops:
            new.location = op.location
        # Inserted apart from ``replace`` so that only the result takes the
        # op's name hint, not every intermediate.
        rewriter.insert(em.ops, InsertPoint.before(op))
        rewriter.replace(op, [], [value])
        self.count += 1


def decompose(module: Operation, ops: Iterable[str | type[Operation]]) -> int:
    """Rewrite the selected composites of ``module``; return how many.

    ``ops`` holds op classes, or the names the ``ops=`` option accepts.
    """
    ops = list(ops)
    classes = [o for o in ops if isinstance(o, type)]
    classes += resolve_ops(o for o in ops if isinstance(o, str))
    return rewrite_counting(DecomposeOp(frozenset(classes)), module)


@dataclass(frozen=True)
class DecomposePass(GraphRewritePass):
    """Composite ops -> primitives (see the module docstring for the trade-offs)."""

    name = "decompose"
    counter = "decomposed"

    ops: tuple[str, ...] = field(default=tuple(option_name(c) for c in rules.DECOMPOSITION))

    def __post_init__(self) -> None:
        ops = (self.ops,) if isinstance(self.ops, str) else tuple(self.ops)
        object.__setattr__(self, "ops", ops)  # the spec parser may give one str
        resolve_ops(ops)  # an unknown name fails when the pass is built

    @property
    def op_classes(self) -> tuple[type[Operation], ...]:
        """The op classes ``ops`` names."""
        return resolve_ops(self.ops)

    def pattern(self) -> DecomposeOp:
        return DecomposeOp(frozenset(self.op_classes))


__all__ = [
    "DecomposePass",
    "DecomposeOp",
    "decompose",
    "option_name",
    "register_decomposition",
    "resolve_ops",
]
