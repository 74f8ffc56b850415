"""``graph-opt -t dot``: Graphviz DOT of every graph function.

One ``digraph`` per function.  Arguments are ellipses, constants notes, ops
boxes and results a ``return`` node; every edge is labelled with the tensor
type it carries (``1x8x16x16xf32``).  Each ``fused.group`` is drawn as a
``subgraph cluster_<n>`` labelled with its name and pattern, around the ops of
its body; edges go straight from producer to consumer through the group
boundary (block arguments and ``fused.yield`` are not drawn).

    graph-opt -p fuse-ops -t dot examples/resnet_block.mlir | dot -Tsvg -o resnet.svg
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.utils.target import Target

from graphopt.dialects.fused import GroupOp, YieldOp
from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph_base import type_str


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class DotWriter:
    """Writes one function as a ``digraph``."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.ids: dict[object, str] = {}
        self.lines: list[str] = []

    def node_id(self, key: object, prefix: str) -> str:
        if key not in self.ids:
            self.ids[key] = f"{prefix}{len(self.ids)}"
        return self.ids[key]

    def source(self, value: SSAValue) -> tuple[str, SSAValue] | None:
        """The drawn node that produces ``value`` (through group boundaries)."""
        while True:
            if isinstance(value, BlockArgument):
                owner = value.block.parent_op()
                if isinstance(owner, GroupOp):
                    value = owner.inputs[value.index]
                    continue
                return (self.ids[value], value) if value in self.ids else None
            op = value.owner
            assert isinstance(op, Operation)
            if isinstance(op, GroupOp):
                value = op.yield_op.values[op.results.index(value)]
                continue
            return (self.ids[op], value) if op in self.ids else None

    def write(self) -> str:
        name = self.fn.sym_name.data
        self.lines = [f"digraph {_quote(name)} {{", "  rankdir=TB;", '  node [shape=box, fontname="monospace"];']
        block = self.fn.body.block
        for arg in block.args:
            label = f"%{arg.name_hint or arg.index} : {type_str(arg.type)}"
            self.lines.append(f"  {self.node_id(arg, 'arg')} [label={_quote(label)}, shape=ellipse];")
        self._nodes(block, "  ")
        self._edges(block)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def _nodes(self, block: Block, indent: str) -> None:
        for op in block.ops:
            if isinstance(op, GroupOp):
                cid = len([k for k in self.ids if isinstance(k, GroupOp)])
                self.ids[op] = f"cluster_{cid}"
                label = f"{op.group_name.data}\\npattern({op.fuse_pattern.keyword})"
                self.lines.append(f"{indent}subgraph cluster_{cid} {{")
                self.lines.append(f'{indent}  label="{label}"; style="rounded,filled"; fillcolor="#eef3ff";')
                self._nodes(op.body.block, indent + "  ")
                self.lines.append(f"{indent}}}")
            elif isinstance(op, YieldOp):
                continue
            elif isinstance(op, func.ReturnOp):
                self.lines.append(f"{indent}{self.node_id(op, 'ret')} [label=\"return\", shape=ellipse];")
            elif isinstance(op, ConstantOp):
                kind = "splat" if op.is_splat else "dense"
                label = f"constant {kind}\\n{type_str(op.result.type)}"
                self.lines.append(f'{indent}{self.node_id(op, "op")} [label="{label}", shape=note];')
            else:
                self.lines.append(f"{indent}{self.node_id(op, 'op')} [label={_quote(op.name)}];")

    def _edges(self, block: Block) -> None:
        for op in block.walk():
            if isinstance(op, (GroupOp, YieldOp)) or op not in self.ids:
                continue
            for v in op.operands:
                src = self.source(v)
                if src is None:
                    continue
                label = type_str(v.type)
                self.lines.append(f"  {src[0]} -> {self.ids[op]} [label={_quote(label)}];")


def function_dot(fn: func.FuncOp) -> str:
    return DotWriter(fn).write()


def module_dot(module: ModuleOp) -> str:
    return "".join(
        function_dot(op)
        for op in module.walk()
        if isinstance(op, func.FuncOp) and not op.is_declaration
    )


@dataclass(frozen=True)
class DotTarget(Target):
    name = "dot"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(module_dot(module))
