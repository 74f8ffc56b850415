"""Step 5 of fuse-ops: rewrite each multi-op group into a ``fused.group``.

* The group's ops move, in block order, into the body of a ``fused.group``
  inserted where its last op was; operands from outside become block
  arguments (one per distinct value), so the group is IsolatedFromAbove.
* Its results are the members' results used outside the group.  With TVM's
  rules that is only the root (the post-dominator that ended the group), so
  a group has one output -- several only when the root is a multi-output op
  (``graph.split``) whose results are read outside.
* Name: the members' op names in order, ``conv2d_add_relu``; long names are
  cut after a few ops (``exp_neg_exp_and_297_more``).  Pattern: the largest
  member pattern, where a broadcast op none of whose operands is actually
  broadcast counts as ElemWise (the edge rule).
* A group of one op stays a bare op: ``lower-graph-to-loop`` already lowers a
  bare op as a singleton group, and the IR stays readable.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.fused import GroupOp, YieldOp, make_group
from graphopt.transforms.plan_devices import device_of, set_device
from graphopt.transforms.fusion.graph_index import Node, op_pattern

MAX_NAME_OPS = 6


def short_name(op: Operation) -> str:
    return op.name.rsplit(".", 1)[-1]


def group_name(ops: Sequence[Operation]) -> str:
    parts = [short_name(op) for op in ops]
    if len(parts) > MAX_NAME_OPS:
        keep = MAX_NAME_OPS - 1
        parts = [*parts[:keep], f"and_{len(parts) - keep}_more"]
    return "_".join(parts)


def effective_pattern(op: Operation) -> FusePattern:
    """An op's pattern, ElemWise for a broadcast op that broadcasts nothing."""
    pattern = op_pattern(op)
    if pattern == FusePattern.BROADCAST and op.results:
        out = op.results[0].type
        if isinstance(out, TensorType) and all(
            isinstance(v.type, TensorType) and v.type.get_shape() == out.get_shape()
            for v in op.operands
        ):
            return FusePattern.ELEMWISE
    return pattern


def group_pattern(ops: Sequence[Operation]) -> FusePattern:
    pattern = FusePattern.ELEMWISE
    for op in ops:
        pattern = pattern.combine(effective_pattern(op))
    return pattern


def group_outputs(ops: Sequence[Operation]) -> list[SSAValue]:
    members = set(ops)
    outputs = [
        r for op in ops for r in op.results if any(u.operation not in members for u in r.uses)
    ]
    return outputs or list(ops[-1].results)


def build_group(block: Block, members: Sequence[Node]) -> GroupOp:
    """Move ``members`` (in block order) of ``block`` into a new ``fused.group``."""
    ops = [m.op for m in members]
    member_set = set(ops)
    inputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if v.owner not in member_set and v not in inputs:
                inputs.append(v)
    outputs = group_outputs(ops)
    group, body = make_group(
        group_name(ops), group_pattern(ops), inputs, [v.type for v in outputs]
    )
    devices = {device_of(op) for op in ops}
    if len(devices) == 1 and (device := devices.pop()) is not None:
        set_device(group, device)  # keep plan-devices' placement on the kernel
    block.insert_op_before(group, ops[-1])
    arg_of = dict(zip(inputs, body.args))
    for op in ops:
        op.detach()
        body.add_op(op)
        for i, v in enumerate(op.operands):
            if v in arg_of:
                op.operands[i] = arg_of[v]
    body.add_op(YieldOp(*outputs))
    for old, new in zip(outputs, group.outputs):
        if old.name_hint:
            new.name_hint = old.name_hint
        old.replace_uses_with_if(new, lambda use: use.operation.parent_op() is not group)
    return group
