"""``graph-opt -t dot``: Graphviz DOT of every function, readable at model scale.

One ``digraph`` per function, drawn the way Netron draws a model:

* every kernel is a cluster -- each ``fused.group`` and each graph op outside
  a group (``lower-graph-to-loop`` makes every one a kernel of its own) --
  labelled ``k<N> <name>`` like the kernels it lowers to, and filled with
  the colour of its fuse pattern;
* an op box shows its SSA name(s), the op, the attributes that differ from
  the op's defaults (kernel, strides, padding...), and the constants it
  uses, drawn inside it (``weight: dense 64x3x7x7xf32``) instead of as nodes
  with page-long edges;
* edges go from producer to consumer through group boundaries (block
  arguments and ``fused.yield`` are not drawn), labelled with the tensor
  type;
* a legend gives the kernel count and the colour of every fuse pattern used;
* one font throughout.

    graph-opt -O2 -t dot examples/resnet_block.mlir | dot -Tsvg -o resnet.svg
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation, OperandDef
from xdsl.utils.target import Target

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.fused import GroupOp, YieldOp
from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph import GraphOp, type_str

FONT = "Helvetica"

PATTERN_COLOURS = {
    FusePattern.ELEMWISE: "#e6f4ea",
    FusePattern.BROADCAST: "#e3eefc",
    FusePattern.INJECTIVE: "#fff6db",
    FusePattern.COMM_REDUCE: "#fde7ef",
    FusePattern.OUT_EWISE_FUSABLE: "#ece6f7",
    FusePattern.OPAQUE: "#eeeeee",
}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def ssa_names(fn: func.FuncOp) -> dict[SSAValue, str]:
    """``%name`` of every value: its name as written, else numbered in order."""
    names: dict[SSAValue, str] = {}
    used: set[str] = set()
    counter = 0

    def name(value: SSAValue) -> None:
        nonlocal counter
        hint = value.name_hint
        if hint:
            candidate, k = hint, 0
            while candidate in used:
                k += 1
                candidate = f"{hint}_{k}"
        else:
            while str(counter) in used:
                counter += 1
            candidate = str(counter)
            counter += 1
        used.add(candidate)
        names[value] = "%" + candidate

    def visit_block(block: Block) -> None:
        for arg in block.args:
            name(arg)
        for op in block.ops:
            for result in op.results:
                name(result)
            for region in op.regions:
                for inner in region.blocks:
                    visit_block(inner)

    for block in fn.body.blocks:
        visit_block(block)
    return names


def _format_attr(attr: Attribute) -> str:
    match attr:
        case DenseArrayBase():
            return ",".join(str(v) for v in attr.get_values())
        case IntegerAttr():
            return str(attr.value.data)
        case FloatAttr():
            return f"{attr.value.data:g}"
        case StringAttr():
            return attr.data
        case _:
            text = str(attr)
            return text if len(text) <= 40 else text[:37] + "..."


def _default_matches(default: object, attr: Attribute) -> bool:
    """Whether ``attr`` holds the constructor default ``default``."""
    match attr:
        case DenseArrayBase():
            values = tuple(attr.get_values())
            return isinstance(default, (tuple, list)) and tuple(default) == values
        case IntegerAttr():
            return isinstance(default, int) and not isinstance(default, bool) and default == attr.value.data
        case FloatAttr():
            return isinstance(default, (int, float)) and float(default) == attr.value.data
        case UnitAttr():
            return default is True
        case _:
            return False


def key_attributes(op: Operation) -> list[str]:
    """``name value`` for each property that differs from the op's default
    (the default of the constructor parameter of the same name)."""
    try:
        params = inspect.signature(type(op).__init__).parameters
    except (TypeError, ValueError):
        params = {}
    shown: list[str] = []
    for name, attr in op.properties.items():
        param = params.get(name)
        if param is not None and param.default is not inspect.Parameter.empty:
            if _default_matches(param.default, attr):
                continue
        shown.append(name if isinstance(attr, UnitAttr) else f"{name} {_format_attr(attr)}")
    return shown


def operand_names(op: Operation) -> list[str]:
    """The operand names of the op's definition (``weight``), else ``#i``."""
    if isinstance(op, IRDLOperation):
        defs = op.get_irdl_definition().operands
        if len(defs) == len(op.operands) and all(type(d) is OperandDef for _, d in defs):
            return [n for n, _ in defs]
    return [f"#{i}" for i in range(len(op.operands))]


def constant_summary(op: ConstantOp) -> str:
    if op.is_splat:
        return f"splat {_format_attr(op.splat) if op.splat is not None else '?'} : {type_str(op.result.type)}"
    return f"dense {type_str(op.result.type)}"


def is_kernel(op: Operation) -> bool:
    """Ops ``lower-graph-to-loop`` turns into a kernel of their own."""
    return isinstance(op, GroupOp) or (isinstance(op, GraphOp) and not isinstance(op, ConstantOp))


@dataclass
class Kernel:
    index: int
    name: str
    pattern: FusePattern


class DotWriter:
    """Writes one function as a ``digraph``."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.names = ssa_names(fn)
        self.ids: dict[object, str] = {}
        self.lines: list[str] = []
        self.kernels: list[Kernel] = []
        self.inlined_constants = 0
        self.drawn_constants: set[ConstantOp] = set()

    def node_id(self, key: object, prefix: str) -> str:
        if key not in self.ids:
            self.ids[key] = f"{prefix}{len(self.ids)}"
        return self.ids[key]

    def producer(self, value: SSAValue) -> SSAValue:
        """``value`` seen through group boundaries: the value an op outside
        or inside a group really produced."""
        while True:
            if isinstance(value, BlockArgument):
                owner = value.block.parent_op()
                if isinstance(owner, GroupOp):
                    value = owner.inputs[value.index]
                    continue
                return value
            op = value.owner
            if isinstance(op, GroupOp):
                value = op.yield_op.values[op.results.index(value)]
                continue
            return value

    def constant_of(self, value: SSAValue) -> ConstantOp | None:
        source = self.producer(value)
        owner = source.owner
        return owner if isinstance(owner, ConstantOp) else None

    # -- output ---------------------------------------------------------------

    def write(self) -> str:
        name = self.fn.sym_name.data
        self.lines = [
            f"digraph {_quote(name)} {{",
            f'  graph [rankdir=TB, fontname="{FONT}", fontsize=12, newrank=true];',
            f'  node [shape=box, style="rounded,filled", fillcolor=white, fontname="{FONT}", fontsize=11];',
            f'  edge [fontname="{FONT}", fontsize=9, color="#555555"];',
        ]
        block = self.fn.body.block
        for arg in block.args:
            label = f"{self.names[arg]}\n{type_str(arg.type)}"
            self.lines.append(
                f"  {self.node_id(arg, 'arg')} [label={_quote(label)}, shape=ellipse, fillcolor=\"#f5f5f5\"];"
            )
        self._nodes(block, "  ")
        self._edges(block)
        self._legend()
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def _op_label(self, op: Operation) -> str:
        results = ", ".join(self.names[r] for r in op.results)
        head = f"{results} = {op.name}" if results else op.name
        lines = [head]
        attrs = key_attributes(op)
        if attrs:
            lines.append("  ".join(attrs))
        for operand_name, value in zip(operand_names(op), op.operands):
            const = self.constant_of(value)
            if const is not None:
                lines.append(f"{operand_name}: {constant_summary(const)}")
                self.inlined_constants += 1
        return "\n".join(lines)

    def _kernel_cluster(self, name: str, pattern: FusePattern, indent: str) -> str:
        kernel = Kernel(len(self.kernels), name, pattern)
        self.kernels.append(kernel)
        colour = PATTERN_COLOURS.get(pattern, "#ffffff")
        self.lines.append(f"{indent}subgraph cluster_k{kernel.index} {{")
        label = f"k{kernel.index} {name}\n{pattern.keyword}"
        self.lines.append(
            f'{indent}  label={_quote(label)}; style="rounded,filled"; fillcolor="{colour}"; color="#999999";'
        )
        return f"{indent}  "

    def _nodes(self, block: Block, indent: str) -> None:
        for op in block.ops:
            if isinstance(op, GroupOp):
                inner = self._kernel_cluster(op.group_name.data, op.fuse_pattern, indent)
                self._nodes(op.body.block, inner)
                self.lines.append(f"{indent}}}")
            elif isinstance(op, (YieldOp, ConstantOp)):
                continue  # drawn inside their consumers (or by _constant_node)
            elif isinstance(op, func.ReturnOp):
                self.lines.append(
                    f'{indent}{self.node_id(op, "ret")} [label="return", shape=ellipse, fillcolor="#f5f5f5"];'
                )
            elif is_kernel(op) and not isinstance(op.parent_op(), GroupOp):
                assert isinstance(op, GraphOp)
                inner = self._kernel_cluster(op.name.removeprefix("graph."), op.fuse_pattern, indent)
                self.lines.append(f"{inner}{self.node_id(op, 'op')} [label={_quote(self._op_label(op))}];")
                self.lines.append(f"{indent}}}")
            else:
                self.lines.append(f"{indent}{self.node_id(op, 'op')} [label={_quote(self._op_label(op))}];")

    def _constant_node(self, const: ConstantOp) -> str:
        """A constant some op cannot show inside itself (``return`` of a constant)."""
        if const not in self.drawn_constants:
            self.drawn_constants.add(const)
            label = f"{self.names[const.result]} = constant\n{constant_summary(const)}"
            self.lines.append(f"  {self.node_id(const, 'const')} [label={_quote(label)}, shape=note];")
        return self.ids[const]

    def _edges(self, block: Block) -> None:
        for op in block.walk():
            if isinstance(op, (GroupOp, YieldOp, ConstantOp)) or op not in self.ids:
                continue
            for v in op.operands:
                source = self.producer(v)
                owner = source.owner
                if isinstance(owner, ConstantOp):
                    if not isinstance(op, func.ReturnOp):
                        continue  # shown inside op's box
                    src = self._constant_node(owner)
                elif isinstance(source, BlockArgument):
                    if source not in self.ids:
                        continue
                    src = self.ids[source]
                elif owner in self.ids:
                    src = self.ids[owner]
                else:
                    continue
                self.lines.append(f"  {src} -> {self.ids[op]} [label={_quote(type_str(v.type))}];")

    def _legend(self) -> None:
        ops = sum(1 for op in self.fn.walk() if isinstance(op, GraphOp) and not isinstance(op, ConstantOp))
        fused = sum(1 for op in self.fn.walk() if isinstance(op, GroupOp))
        count = len(self.kernels)
        rows = [
            f"<TR><TD COLSPAN=\"2\"><B>@{_html(self.fn.sym_name.data)}</B></TD></TR>",
            f"<TR><TD COLSPAN=\"2\">{count} kernel{'s' if count != 1 else ''} "
            f"({fused} fused group{'s' if fused != 1 else ''}, {count - fused} single op{'s' if count - fused != 1 else ''})</TD></TR>",
            f"<TR><TD COLSPAN=\"2\">{ops} ops; constants drawn inside their consumers</TD></TR>",
        ]
        used = sorted({k.pattern for k in self.kernels})
        for pattern in used:
            rows.append(
                f'<TR><TD BGCOLOR="{PATTERN_COLOURS.get(pattern, "#ffffff")}" WIDTH="24"> </TD>'
                f"<TD ALIGN=\"LEFT\">{pattern.keyword}</TD></TR>"
            )
        table = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">' + "".join(rows) + "</TABLE>"
        self.lines.append(f'  legend [shape=plaintext, fillcolor=white, label=<{table}>];')


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
