"""``fuse-ops{summary=true}``: what fusion saved, per function, on stderr.

    fuse-ops summary @resnet_block: 3 groups, kernels 9 -> 4, intermediate bytes saved 49152 (2 x 24576)
      group conv2d_add_relu pattern(out_ewise_fusable): 3 ops, 3 inputs, 2 x 8192 bytes
      ...

A fused intermediate is a value produced and consumed only inside one group:
unfused it would be written to memory once and read back at least once, so
the saving counted is 2 x its size (the seed's measure).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from xdsl.dialects.builtin import TensorType

from graphopt.dialects.fused import GroupOp
from graphopt.dialects.graph import GraphOp, numpy_dtype
from graphopt.transforms.fusion.build_groups import group_name, group_pattern
from graphopt.transforms.fusion.graph_index import Node
from graphopt.transforms.fusion.partition import count_inputs


def value_bytes(t: object) -> int:
    if not isinstance(t, TensorType):
        return 0
    return prod(t.get_shape()) * numpy_dtype(t.element_type).itemsize


def internal_bytes(members: list[Node]) -> int:
    """Bytes of the values produced and consumed only inside ``members``."""
    ops = {m.op for m in members}
    total = 0
    for m in members:
        for r in m.op.results:
            uses = list(r.uses)
            if uses and all(u.operation in ops for u in uses):
                total += value_bytes(r.type)
    return total


@dataclass
class GroupSummary:
    name: str
    pattern: str
    ops: int
    inputs: int
    intermediate_bytes: int


@dataclass
class FusionSummary:
    function: str
    kernels_before: int = 0
    kernels_after: int = 0
    groups: list[GroupSummary] = field(default_factory=list)

    @property
    def intermediate_bytes(self) -> int:
        return sum(g.intermediate_bytes for g in self.groups)

    @property
    def bytes_saved(self) -> int:
        return 2 * self.intermediate_bytes

    def format(self) -> str:
        lines = [
            f"fuse-ops summary @{self.function}: {len(self.groups)} groups, "
            f"kernels {self.kernels_before} -> {self.kernels_after}, "
            f"intermediate bytes saved {self.bytes_saved} (2 x {self.intermediate_bytes})"
        ]
        for g in self.groups:
            lines.append(
                f"  group {g.name} pattern({g.pattern}): {g.ops} ops, {g.inputs} inputs, "
                f"2 x {g.intermediate_bytes} bytes"
            )
        return "\n".join(lines)


def is_kernel(node: Node) -> bool:
    return isinstance(node.op, (GraphOp, GroupOp))


def summarize(function: str, groups: list[list[Node]]) -> FusionSummary:
    """``groups``: the final partition (members in block order), before rewriting."""
    s = FusionSummary(function)
    for members in groups:
        kernels = [m for m in members if is_kernel(m)]
        s.kernels_before += len(kernels)
        s.kernels_after += 1 if kernels else 0
        if len(members) > 1:
            ops = [m.op for m in members]
            s.groups.append(
                GroupSummary(
                    group_name(ops),
                    group_pattern(ops).keyword,
                    len(members),
                    count_inputs(members),
                    internal_bytes(members),
                )
            )
    return s
