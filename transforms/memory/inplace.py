"""Which inputs a kernel may overwrite with its output (in-place reuse).

A kernel computes its output with one loop nest: at each output index it
loads what it needs and then stores the element.  Writing the output over an
input ``X`` is therefore safe when the kernel reads ``X`` *only* at the
element it is about to store -- every read of ``X`` reaches the output
through ops that read their operand at their own output index (ElemWise, or
Broadcast with equal shapes) -- and ``X`` has the output's shape and dtype.
That is the epilogue case: a conv/matmul group ending in ``+ residual``
(ResNet) may write over the residual.  A bare elementwise op is the simplest
instance, which is also what NNVM's ``FInplaceOption`` declares.

Only kernels with one computed output qualify: with several outputs, a later
loop nest could read an input the first nest has already overwritten.

Whether the input's *storage* may be reused (its last reader is this kernel,
it is workspace memory and not the caller's) is decided by the planners from
liveness; this module only looks at one op.
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.fused import GroupOp, YieldOp
from graphopt.dialects.graph import GraphOp
from graphopt.dialects.traits import IgnoresOperandValues


def _ignores_operand_values(op: Operation) -> bool:
    """``op`` reads only its operands' shapes (NNVM's FIgnoreInputs; a fact about the op)."""
    return op.has_trait(IgnoresOperandValues)


def _arg_ignored(arg: SSAValue) -> bool:
    return bool(arg.uses) and all(_ignores_operand_values(u.operation) for u in arg.uses)


def ignored_operands(op: Operation) -> set[int]:
    """Operand positions whose values ``op``'s kernel never loads."""
    if isinstance(op, GroupOp):
        return {i for i, a in enumerate(op.body.block.args) if _arg_ignored(a)}
    if _ignores_operand_values(op):
        return set(range(len(op.operands)))
    return set()


def reads_at_output_index(op: Operation, operand_index: int) -> bool:
    """``op`` reads operand ``operand_index`` only at its own output index."""
    if not isinstance(op, GraphOp) or len(op.results) != 1:
        return False
    if _ignores_operand_values(op):
        return True
    if op.fuse_pattern > FusePattern.BROADCAST:
        return False
    operand, result = op.operands[operand_index].type, op.results[0].type
    return (
        isinstance(operand, TensorType)
        and isinstance(result, TensorType)
        and operand.get_shape() == result.get_shape()
    )


def _same_type(a: SSAValue, b: SSAValue) -> bool:
    return a.type == b.type


def _computed_results(op: Operation) -> list[int]:
    """Result positions the lowering computes (results someone reads or returns)."""
    return [i for i, r in enumerate(op.results) if r.uses]


def epilogue_pairs(op: Operation) -> list[tuple[Hashable, Hashable]]:
    """(input value, output value) pairs whose storage the kernel may share."""
    live = _computed_results(op)
    if len(live) != 1:
        return []
    out = op.results[live[0]]
    pairs: list[tuple[Hashable, Hashable]] = []
    if isinstance(op, GroupOp):
        aligned = _aligned_values(op, live[0])
        ok: dict[SSAValue, bool] = {}
        for outer, arg in zip(op.inputs, op.body.block.args):
            ok[outer] = ok.get(outer, True) and arg in aligned
        for outer, good in ok.items():
            if good and _same_type(outer, out):
                pairs.append((outer, out))
    elif isinstance(op, GraphOp):
        seen: set[SSAValue] = set()
        for i, v in enumerate(op.operands):
            if v in seen:
                continue
            seen.add(v)
            uses_ok = all(
                reads_at_output_index(op, j) for j, w in enumerate(op.operands) if w is v
            )
            if uses_ok and _same_type(v, out):
                pairs.append((v, out))
    return pairs


def _aligned_values(group, result_index: int) -> set[SSAValue]:
    """Values in ``group``'s body read only at the output index of its
    ``result_index``-th yielded value (and having its shape)."""
    body = group.body.block
    root = group.yield_op.values[result_index]
    assert isinstance(root.type, TensorType)
    shape = root.type.get_shape()
    aligned: set[SSAValue] = set()

    def check(v: SSAValue) -> bool:
        if not isinstance(v.type, TensorType) or v.type.get_shape() != shape:
            return False
        for use in v.uses:
            user = use.operation
            if isinstance(user, YieldOp):
                if use.index != result_index:
                    if group.results[use.index].uses:
                        return False  # another computed output reads it
                continue
            if _ignores_operand_values(user):
                continue  # reads only the shape
            if not reads_at_output_index(user, use.index):
                return False
            if user.results[0] not in aligned:
                return False
        return True

    for inner in reversed(list(body.ops)):
        for r in inner.results:
            if check(r):
                aligned.add(r)
    for arg in body.args:
        if check(arg):
            aligned.add(arg)
    return aligned


def nnvm_pairs(op: Operation) -> list[tuple[Hashable, Hashable]]:
    """The pairs NNVM's ``FInplaceOption`` declares: bare elementwise ops
    (and broadcasting ops on equal shapes).  A fused kernel declares none."""
    if isinstance(op, GroupOp):
        return []
    return epilogue_pairs(op)


__all__ = [
    "epilogue_pairs",
    "ignored_operands",
    "nnvm_pairs",
    "reads_at_output_index",
]
