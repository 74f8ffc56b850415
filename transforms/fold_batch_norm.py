"""``fold-batch-norm``: fold an inference batch_norm into the conv2d or matmul before it.

    y = batch_norm(conv(x, W), gamma, beta, mean, var)       (all constant)
    scale = gamma / sqrt(var + eps)
    y = conv(x, W * scale[c]) + (beta - mean * scale)[c]

The rescaled weights and the bias are computed here in float64 and stored as
new constants (``W`` is not shared with anything else the pass changes: a new
constant is made).  Applies when:

* the producer is a ``Conv2dOp`` (NCHW, weights OIHW, so the batch_norm's
  channel axis 1 is the weights' axis 0) or a rank-2 ``MatmulOp`` (channel
  axis 1 = the last one = the columns of the weights);
* the weights and all four batch_norm parameters are ``graph.constant``;
* the producer's result has no other use (otherwise both versions would run).

A rewrite pattern (:class:`FoldBatchNorm`); the replaced producer and its
constants are left to ``dce`` (``-O3`` runs ``canonicalize`` and ``dce`` later).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graphopt.dialects import graph
from graphopt.dialects.graph import numpy_dtype, tensor_of
from graphopt.transforms.decompose import BATCH_NORM_CHANNEL_AXIS
from graphopt.transforms.pass_statistics import GraphRewritePass, rewrite_counting


def _const_array(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, graph.ConstantOp):
        return owner.reference()[0]
    return None


def _weights(producer: Operation, rank: int) -> tuple[SSAValue, int, list[int]] | None:
    """(weights, their output-channel axis, the bias shape) of a producer the
    batch_norm can fold into, or None."""
    axis = BATCH_NORM_CHANNEL_AXIS
    if isinstance(producer, graph.MatmulOp) and axis == rank - 1:
        channels = tensor_of(producer.rhs).get_shape()[-1]
        return producer.rhs, -1, [channels]
    if isinstance(producer, graph.Conv2dOp) and axis == 1 and rank == 4:
        channels = tensor_of(producer.weight).get_shape()[0]
        return producer.weight, 0, [channels, 1, 1]
    return None


def _with_weights(producer: Operation, weights: SSAValue) -> Operation:
    """A copy of ``producer`` (a matmul or conv2d) reading ``weights``, built
    through the op's constructor (named operands cannot be reassigned)."""
    if isinstance(producer, graph.MatmulOp):
        new: Operation = graph.MatmulOp(producer.lhs, weights)
    else:
        assert isinstance(producer, graph.Conv2dOp)
        new = graph.Conv2dOp(
            producer.input,
            weights,
            producer.stride_values,
            producer.pad_values,
            producer.dilation_values,
            producer.group_count,
        )
    new.attributes.update(producer.attributes)
    new.results[0].name_hint = producer.results[0].name_hint
    return new


def _fold_one(bn: graph.BatchNormOp, rewriter: PatternRewriter) -> bool:
    x = bn.input
    params = [bn.scale, bn.bias, bn.mean, bn.var]
    producer = x.owner
    if not isinstance(producer, Operation) or len(producer.results) != 1:
        return False
    if len(list(x.uses)) != 1 or x.type != bn.result.type:
        return False
    arrays = [_const_array(p) for p in params]
    if any(a is None for a in arrays):
        return False
    gamma, beta, mean, var = (a.astype(np.float64).reshape(-1) for a in arrays)  # type: ignore[union-attr]
    found = _weights(producer, len(tensor_of(x).get_shape()))
    if found is None:
        return False
    weights, w_axis, bias_shape = found
    w = _const_array(weights)
    if w is None:
        return False
    dtype = numpy_dtype(tensor_of(x).element_type)
    scale = gamma / np.sqrt(var + bn.epsilon)
    bshape = [1] * w.ndim
    bshape[w_axis] = scale.size
    new_w = (w.astype(np.float64) * scale.reshape(bshape)).astype(dtype)
    shift = beta - mean * scale

    w_const = graph.ConstantOp.from_array(new_w)
    new_producer = _with_weights(producer, w_const.result)
    b_const = graph.ConstantOp.from_array(shift.astype(dtype).reshape(bias_shape))
    add = graph.AddOp(new_producer.results[0], b_const.result)
    new_ops: list[Operation] = [w_const, new_producer, b_const, add]
    for op in new_ops:
        op.location = bn.location
    # Inserted apart from ``replace`` so that only the add takes the name hint.
    rewriter.insert(new_ops, InsertPoint.before(bn))
    rewriter.replace(bn, [], [add.result])
    return True


@dataclass(eq=False)
class FoldBatchNorm(RewritePattern):
    """conv2d/matmul + constant batch_norm -> rescaled weights and a bias
    add; the old producer and constants are left to ``dce``."""

    count: int = 0

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.BatchNormOp, rewriter: PatternRewriter, /) -> None:
        if _fold_one(op, rewriter):
            self.count += 1


def fold_batch_norm(module: Operation) -> int:
    """Fold every foldable batch_norm of ``module``; return how many."""
    return rewrite_counting(FoldBatchNorm(), module)


@dataclass(frozen=True)
class FoldBatchNormPass(GraphRewritePass):
    """conv2d/matmul + inference batch_norm -> rescaled weights + bias add."""

    name = "fold-batch-norm"
    counter = "folded"

    def pattern(self) -> FoldBatchNorm:
        return FoldBatchNorm()


__all__ = ["FoldBatchNorm", "FoldBatchNormPass", "fold_batch_norm"]
