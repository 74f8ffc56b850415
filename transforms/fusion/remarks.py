"""``fuse-ops{remarks=true}``: why each edge between two groups was not fused.

For every producer -> consumer edge whose ends land in different groups, one
remark on stderr, located at the consumer (the edge enters the graph there):

    file.mlir:12:8: remark: not fused: graph.conv2d -> graph.batch_norm: <reason>

When the edge crosses groups the producer did not fuse into its
post-dominator, so the reason is the producer's: it is opaque, a reduction
(reductions only end groups), it has a side use (returned, or read by
consumers with no common post-dominator), a pattern rule failed on the path
to its post-dominator (which op, and why), or a limit was reached.
"""

from __future__ import annotations

import sys
from typing import IO

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.diagnostics import location_of
from graphopt.transforms.fusion.graph_index import Node
from graphopt.transforms.fusion.partition import Partition


def edge_reason(part: Partition, producer: Node) -> str:
    tree = part.tree
    if producer.pattern >= FusePattern.OPAQUE:
        return f"opaque op: {producer.label} is never fused"
    if producer.pattern == FusePattern.COMM_REDUCE:
        return f"reduction as producer: {producer.label} can only end a group"
    if producer.extern_ref:
        return f"side use: the result of {producer.label} is also used outside the graph (returned)"
    if tree.ipdom(producer) is None:
        n = len({id(e.consumer) for e in producer.outputs})
        return (
            f"side use: the result of {producer.label} is read by {n} ops with no common "
            "post-dominator, so it is materialised"
        )
    blocked = part.blocked.get(producer)
    if blocked is not None:
        return blocked.message
    if producer.pattern == FusePattern.OUT_EWISE_FUSABLE or (
        part.group_of(producer).anchor is not None
    ):
        return "a group holds at most one out_ewise_fusable op"
    return "no fusion rule applies"


def collect_remarks(part: Partition) -> list[tuple[Node, Node, str]]:
    remarks: list[tuple[Node, Node, str]] = []
    seen: set[tuple[int, int]] = set()
    for consumer in part.graph:
        for edge in consumer.inputs:
            p = edge.producer
            key = (p.index, consumer.index)
            if key in seen or part.group_of(p) is part.group_of(consumer):
                continue
            seen.add(key)
            remarks.append((p, consumer, edge_reason(part, p)))
    return remarks


def format_remark(producer: Node, consumer: Node, reason: str) -> str:
    where = location_of(consumer.op)
    prefix = f"{where}: " if where else ""
    return f"{prefix}remark: not fused: {producer.label} -> {consumer.label}: {reason}"


def emit_remarks(part: Partition, stream: IO[str] | None = None) -> list[str]:
    lines = [format_remark(*r) for r in collect_remarks(part)]
    out = stream if stream is not None else sys.stderr
    for line in lines:
        print(line, file=out)
    return lines
