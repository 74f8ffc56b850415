"""Step 2 of fuse-ops: the post-dominator tree, built in one reverse pass.

A node's immediate post-dominator is the least common ancestor, in the tree
built so far, of all its consumers; since nodes are visited in reverse
topological order every consumer already has its tree node.  While walking
up to the ancestor the pass combines the largest pattern met on the way
(``dpat``): the edge patterns into the consumers and the consumers' own
``dpat`` up to the ancestor.

"None" propagates: an external node has no post-dominator (its value leaves
the function), a node without consumers has none, and when the walk from two
consumers reaches the top of the tree without meeting, the node has none --
its consumers share no post-dominator, so it must be materialised.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.transforms.fusion.graph_index import IndexedGraph, Node


@dataclass(eq=False)
class TreeNode:
    node: Node
    parent: TreeNode | None
    depth: int
    pattern: FusePattern  # dpat: the largest pattern on the way to ``parent``


class PostDominatorTree:
    def __init__(self, graph: IndexedGraph):
        self.tree: list[TreeNode | None] = [None] * len(graph)
        for node in reversed(graph.nodes):
            self.tree[node.index] = self._make(node)

    def __getitem__(self, node: Node) -> TreeNode:
        t = self.tree[node.index]
        assert t is not None
        return t

    def ipdom(self, node: Node) -> Node | None:
        parent = self[node].parent
        return parent.node if parent is not None else None

    def _make(self, node: Node) -> TreeNode:
        if node.extern_ref:
            return TreeNode(node, None, 1, FusePattern.OPAQUE)
        pattern = FusePattern.ELEMWISE
        parent: TreeNode | None = None
        for i, edge in enumerate(node.outputs):
            consumer = self[edge.consumer]
            parent, pattern = (consumer, pattern) if i == 0 else _lca(parent, consumer, pattern)
            pattern = pattern.combine(edge.pattern)
            if parent is None:
                break
        depth = parent.depth + 1 if parent is not None else 1
        return TreeNode(node, parent, depth, pattern)


def _lca(
    lhs: TreeNode | None, rhs: TreeNode | None, pattern: FusePattern
) -> tuple[TreeNode | None, FusePattern]:
    while lhs is not rhs:
        if lhs is None or rhs is None:
            return None, pattern
        if lhs.depth < rhs.depth:
            pattern = pattern.combine(rhs.pattern)
            rhs = rhs.parent
        elif rhs.depth < lhs.depth:
            pattern = pattern.combine(lhs.pattern)
            lhs = lhs.parent
        else:
            pattern = pattern.combine(lhs.pattern).combine(rhs.pattern)
            lhs, rhs = lhs.parent, rhs.parent
    return lhs, pattern
