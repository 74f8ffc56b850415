"""Operator fusion (``fuse-ops``): TVM-style post-dominator partitioning into ``fused.group`` ops.

    graph-opt -p 'fuse-ops{max-depth=256 max-inputs=0 remarks=true summary=true}' model.mlir

For every graph function: index the ops (``graph_index``), build the
post-dominator tree (``post_dominator``), partition with union-find and TVM's
phases (``partition``), then rewrite every group of two or more ops into a
``fused.group`` (``build_groups``); single ops stay bare.  ``remarks`` explains
each unfused edge on stderr, ``summary`` prints the groups and the bytes saved.
The pass is idempotent: existing ``fused.group`` ops are opaque nodes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from graphopt.transforms.fusion.build_groups import build_group
from graphopt.transforms.fusion.graph_index import IndexedGraph
from graphopt.transforms.fusion.partition import Partition, partition
from graphopt.transforms.fusion.remarks import emit_remarks
from graphopt.transforms.fusion.summary import FusionSummary, summarize
from graphopt.transforms.levels import GRAPH, require_level
from graphopt.transforms.pass_statistics import StatisticsPass


def fuse_function(
    fn: func.FuncOp,
    max_depth: int = 256,
    max_inputs: int = 0,
    remarks: bool = False,
) -> tuple[Partition, FusionSummary]:
    """Partition ``fn``'s body and rewrite its groups in place."""
    block = fn.body.block
    graph = IndexedGraph(block)
    part = partition(graph, max_depth, max_inputs)
    groups = part.final_groups()
    summary = summarize(fn.sym_name.data, groups)
    if remarks:
        emit_remarks(part)
    for members in groups:
        if len(members) > 1:
            build_group(block, members)
    return part, summary


@dataclass(frozen=True)
class FuseOpsPass(StatisticsPass):
    """Fuse graph ops into ``fused.group`` kernels (see the module docstring)."""

    name = "fuse-ops"

    max_depth: int = 256
    max_inputs: int = 0
    remarks: bool = False
    summary: bool = False

    def __post_init__(self) -> None:
        if self.max_depth < 1:
            raise ValueError(f"fuse-ops: max-depth must be >= 1, got {self.max_depth}")
        if self.max_inputs < 0:
            raise ValueError(f"fuse-ops: max-inputs must be >= 0 (0 = no limit), got {self.max_inputs}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        fused = groups = 0
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if fn.is_declaration or len(fn.body.blocks) != 1:
                continue
            _, summary = fuse_function(fn, self.max_depth, self.max_inputs, self.remarks)
            groups += len(summary.groups)
            fused += sum(g.ops for g in summary.groups)
            if self.summary:
                print(summary.format(), file=sys.stderr)
        self.record(groups=groups, ops_fused=fused)


__all__ = ["FuseOpsPass", "fuse_function"]
