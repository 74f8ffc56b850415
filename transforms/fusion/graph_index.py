"""Step 1 of fuse-ops: index a graph function's ops as a dataflow graph.

Nodes are the function body's ops in block order, which is a topological
(post-DFS) order: every producer comes before its consumers.  An edge
producer -> consumer carries the consumer's pattern, except that a broadcast
consumer whose operand already has the result's shape counts as ElemWise on
that edge (TVM's rule: nothing is actually broadcast there).

What is *not* a node:

* function arguments -- external inputs, never fused;
* ``graph.constant`` ops -- graph-opt keeps every constant outside the
  groups, as a group input.  A splat is compiled to a scalar inside the
  kernel that reads it (no buffer, no kernel argument) and a dense constant
  to a read-only global, so moving them into a group would change nothing in
  the generated code.  Since a constant has no inputs it can never lie on a
  path between two ops, so this choice does not change any partition either.

A node is *external* when one of its results leaves the function (returned by
``func.return``) or is read by an op that is not a node of this graph: it may
end a group but never be fused away as an intermediate.

Any op that is not a graph op (a ``func.call``, an existing ``fused.group``)
is an Opaque node: it is never fused and nothing fuses across it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from graphopt import rules
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph import GraphOp


@dataclass(eq=False)
class Edge:
    """A use of ``producer``'s result by ``consumer``, with the edge's pattern."""

    producer: Node
    consumer: Node
    pattern: FusePattern


@dataclass(eq=False)
class Node:
    index: int
    op: Operation
    pattern: FusePattern
    outputs: list[Edge] = field(default_factory=list)
    inputs: list[Edge] = field(default_factory=list)
    extern_ref: bool = False

    @property
    def label(self) -> str:
        return self.op.name

    def __repr__(self) -> str:
        return f"Node({self.index}, {self.op.name})"


def op_pattern(op: Operation) -> FusePattern:
    """The fusion rule of ``op``'s class (:data:`graphopt.rules.FUSION`), else
    its own fuse pattern; an op of another dialect is opaque."""
    if (rule := rules.FUSION.lookup(op)) is not None:
        return rule(op)
    return op.fuse_pattern if isinstance(op, GraphOp) else FusePattern.OPAQUE


def edge_pattern(consumer: Operation, operand: SSAValue) -> FusePattern:
    """The consumer's pattern, lowered to ElemWise for a same-shape broadcast."""
    pattern = op_pattern(consumer)
    if pattern == FusePattern.BROADCAST and consumer.results:
        out = consumer.results[0].type
        if (
            isinstance(out, TensorType)
            and isinstance(operand.type, TensorType)
            and operand.type.get_shape() == out.get_shape()
        ):
            return FusePattern.ELEMWISE
    return pattern


def is_node_op(op: Operation) -> bool:
    """Ops of a graph function that take part in fusion."""
    return not isinstance(op, ConstantOp) and not op.has_trait(IsTerminator)


class IndexedGraph:
    """The dataflow graph of one block (see the module docstring)."""

    def __init__(self, block: Block):
        self.block = block
        self.nodes: list[Node] = []
        self.node_of: dict[Operation, Node] = {}
        for op in block.ops:
            if is_node_op(op):
                node = Node(len(self.nodes), op, op_pattern(op))
                self.nodes.append(node)
                self.node_of[op] = node
        for node in self.nodes:
            for operand in node.op.operands:
                producer = self.producer_of(operand)
                if producer is None:
                    continue
                edge = Edge(producer, node, edge_pattern(node.op, operand))
                producer.outputs.append(edge)
                node.inputs.append(edge)
            for result in node.op.results:
                for use in result.uses:
                    if use.operation not in self.node_of:
                        node.extern_ref = True

    def producer_of(self, value: SSAValue) -> Node | None:
        owner = value.owner
        if isinstance(owner, Operation):
            return self.node_of.get(owner)
        return None

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

