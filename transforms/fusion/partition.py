"""Steps 3-4 of fuse-ops: union-find over groups and TVM's fusion phases.

Every node starts in its own group (pattern, anchor = its OutEWiseFusable op
if any, members).  Nodes are visited in topological order; a node ``n`` whose
group may fuse is merged, together with every node on every path to it, into
the group of its immediate post-dominator ``s`` (``commit``), when
``check_path`` accepts the group pattern of each node on those paths:

* phase 0: an OutEWiseFusable ``n`` fuses into ``s`` when ``dpat`` is
  ElemWise and every path node is <= Broadcast (an elementwise epilogue);
* phases 0 and 1: an ElemWise/Broadcast ``n`` fuses into ``s`` when ``dpat``
  <= Injective or == CommReduce; path nodes must be <= Injective, the sink
  anything up to OutEWiseFusable;
* phase 1: an Injective ``n`` fuses into ``s`` when the whole path, sink
  included, is <= Injective (deferred so that anchors finish fusing first);
* TVM's phase 2 folds the fields of a *tuple* into the injective group the
  tuple joined.  graph-opt has no tuple nodes -- a variadic op such as concat
  reads its operands directly and is an ordinary Injective node, so its
  branches fuse in phases 0 and 1 -- and phase 2 has nothing left to do.

As in TVM, a group's pattern is its sink's, combined with an anchor's when a
group holding an OutEWiseFusable op is merged in (so a group holds at most one
anchor).  Reductions never start a fusion: a CommReduce group only ever ends
one.

Limits (checked after the pattern rules, so a remark names the real cause):

* ``max_depth``: the number of ops of the merged group.  It is counted
  exactly -- the distinct groups met on the paths, each once -- unlike TVM's
  count, which adds a group again for every node of it met through a
  diamond and so splits diamonds too early;
* ``max_inputs`` (0 = off): the distinct values the merged group would read
  from outside, splat constants excluded (they become scalars, not kernel
  arguments).

Where graph-opt differs from NNVM's graph_fuse: NNVM fuses injective ops into
a following reduction (``transpose -> reduce_sum`` is one kernel there).
graph-opt follows TVM and does not: the reduction then reads its input in
memory order through plain loads, instead of through the injective op's index
arithmetic in its innermost, accumulating loop.  (An elementwise op *does*
fuse into a reduction in both.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import ConstantOp
from graphopt.transforms.fusion.graph_index import IndexedGraph, Node
from graphopt.transforms.fusion.post_dominator import PostDominatorTree

EW, BC, INJ, RED, OUT, OPQ = (
    FusePattern.ELEMWISE,
    FusePattern.BROADCAST,
    FusePattern.INJECTIVE,
    FusePattern.COMM_REDUCE,
    FusePattern.OUT_EWISE_FUSABLE,
    FusePattern.OPAQUE,
)

PathCondition = Callable[[FusePattern, bool], bool]


@dataclass(eq=False)
class Group:
    pattern: FusePattern
    anchor: Node | None
    members: list[Node]
    parent: Group | None = None

    def find(self) -> Group:
        root = self
        while root.parent is not None:
            root = root.parent
        node = self
        while node.parent is not None and node.parent is not root:
            node.parent, node = root, node.parent
        return root


@dataclass
class Blocked:
    """Why a node was not fused into its post-dominator (for remarks)."""

    kind: str  # anchor | input-side | injective-anchor | injective-reduce | path | depth | inputs
    message: str
    culprit: Node | None = None


@dataclass
class Partition:
    graph: IndexedGraph
    tree: PostDominatorTree
    max_depth: int = 256
    max_inputs: int = 0
    groups: list[Group] = field(default_factory=list)
    blocked: dict[Node, Blocked] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.groups = [
            Group(n.pattern, n if n.pattern == OUT else None, [n]) for n in self.graph
        ]

    # -- union-find ------------------------------------------------------------

    def group_of(self, node: Node) -> Group:
        return self.groups[node.index].find()

    def _merge(self, child: Group, parent: Group) -> None:
        child, parent = child.find(), parent.find()
        if child is parent:
            return
        parent.members.extend(child.members)
        child.parent = parent
        if child.anchor is not None:
            assert parent.anchor is None, "two anchors in one group"
            parent.anchor = child.anchor
            parent.pattern = parent.pattern.combine(child.pattern)

    # -- paths -------------------------------------------------------------------

    def path_nodes(self, src: Node, sink: Node) -> list[Node]:
        """Every node on a path from ``src`` (included) to ``sink`` (excluded)."""
        seen: set[Node] = set()
        order: list[Node] = []
        stack = [src]
        while stack:
            n = stack.pop()
            if n is sink or n in seen:
                continue
            seen.add(n)
            order.append(n)
            stack.extend(e.consumer for e in n.outputs)
        return order

    def check_path(self, src: Node, sink: Node, ok: PathCondition) -> Node | None:
        """TVM's CheckPath: the first node (src excluded) on a path from ``src``
        to ``sink`` whose group pattern ``ok`` rejects, or None."""
        seen: set[Node] = set()
        stack = [e.consumer for e in reversed(src.outputs)]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if not ok(self.group_of(n).pattern, n is sink):
                return n
            if n is not sink:
                stack.extend(e.consumer for e in reversed(n.outputs))
        return None

    def group_head(self, node: Node) -> Node:
        """The op that gives ``node``'s group its pattern: its anchor, else the
        member of the highest pattern (a reduction's group: the reduction)."""
        group = self.group_of(node)
        return group.anchor or max(group.members, key=lambda m: (m.pattern, m.index))

    def as_member(self, node: Node, noun: str | None = None) -> str:
        """``node`` named by its group, for remarks: ``reduction graph.sum``
        when it heads its group, else ``graph.exp, in the comm_reduce group of
        graph.reduce_sum`` -- the group's pattern and anchor, not the op's."""
        group = self.group_of(node)
        head = self.group_head(node)
        if head is node:
            return f"{noun or group.pattern.keyword} {node.label}"
        relation = "anchored by" if group.anchor is not None else "of"
        return f"{node.label}, in the {group.pattern.keyword} group {relation} {head.label}"

    def commit(self, src: Node, sink: Node) -> None:
        target = self.groups[sink.index]
        for n in self.path_nodes(src, sink):
            self._merge(self.groups[n.index], target)

    def merged_groups(self, src: Node, sink: Node) -> list[Group]:
        groups = {id(g): g for g in (self.group_of(n) for n in self.path_nodes(src, sink))}
        groups[id(self.group_of(sink))] = self.group_of(sink)
        return list(groups.values())

    # -- the phases ------------------------------------------------------------------

    def run(self) -> None:
        for phase in (0, 1):
            for node in self.graph:
                self._visit(node, phase)

    def _visit(self, n: Node, phase: int) -> None:
        group = self.groups[n.index]
        if group.pattern == OPQ:
            return
        s = self.tree.ipdom(n)
        if s is None:
            return
        if group.find() is self.group_of(s):
            return
        dpat = self.tree[n].pattern
        pattern = group.pattern
        if pattern == OUT:
            if phase != 0:
                return
            blocked = self._rule_anchor(n, s, dpat)
        elif pattern <= BC:
            blocked = self._rule_elemwise(n, s, dpat)
        elif pattern == INJ:
            if phase != 1:
                return
            blocked = self._rule_injective(n, s)
        else:
            return  # CommReduce: reductions only end groups
        if blocked is None:
            blocked = self._limits(n, s)
        if blocked is not None:
            self.blocked[n] = blocked
            return
        self.blocked.pop(n, None)
        self.commit(n, s)

    def _first_on_path(self, n: Node, s: Node, pred: Callable[[Node], bool]) -> Node:
        for m in [*self.path_nodes(n, s)[1:], s]:
            if pred(m):
                return m
        return s

    def _rule_anchor(self, n: Node, s: Node, dpat: FusePattern) -> Blocked | None:
        anchor = self.groups[n.index].anchor or n
        a = anchor.label
        if dpat != EW:
            culprit = self._first_on_path(n, s, lambda m: m.pattern >= dpat)
            if dpat >= OPQ:
                return Blocked("opaque", f"opaque op: {culprit.label} is never fused", culprit)
            if dpat == OUT:
                return Blocked(
                    "anchor",
                    f"a group holds at most one out_ewise_fusable op ({a} and {culprit.label})",
                    culprit,
                )
            if dpat == RED:
                return Blocked(
                    "path",
                    f"the epilogue of out_ewise_fusable {a} may not contain reduction {culprit.label}",
                    culprit,
                )
            if dpat == INJ:
                return Blocked(
                    "injective-anchor",
                    f"path from out_ewise_fusable {a} goes through injective {culprit.label}",
                    culprit,
                )
            return Blocked(
                "path", f"{culprit.label} broadcasts the output of out_ewise_fusable {a}", culprit
            )
        bad = self.check_path(n, s, lambda k, is_sink: k <= BC)
        if bad is None:
            return None
        kind = "injective-anchor" if self.group_of(bad).pattern == INJ else "path"
        message = f"path from out_ewise_fusable {a} goes through {self.as_member(bad)}"
        if self.group_of(bad).anchor is not None:
            message += "; a group holds at most one out_ewise_fusable op"
        return Blocked(kind, message, bad)

    def _rule_elemwise(self, n: Node, s: Node, dpat: FusePattern) -> Blocked | None:
        if not (dpat <= INJ or dpat == RED):
            culprit = self._first_on_path(n, s, lambda m: m.pattern >= dpat)
            if dpat >= OPQ:
                return Blocked("opaque", f"opaque op: {culprit.label} is never fused", culprit)
            return Blocked(
                "input-side",
                f"{n.label} feeds an input of out_ewise_fusable {culprit.label}; "
                "only elementwise epilogues fuse with an anchor",
                culprit,
            )

        def ok(k: FusePattern, is_sink: bool) -> bool:
            return k <= INJ if not is_sink else k <= OUT

        bad = self.check_path(n, s, ok)
        if bad is None:
            return None
        pat = self.group_of(bad).pattern
        if pat >= OPQ:
            return Blocked("opaque", f"opaque op: {bad.label} is never fused", bad)
        return Blocked("path", f"path to {s.label} goes through {self.as_member(bad)}", bad)

    def _rule_injective(self, n: Node, s: Node) -> Blocked | None:
        bad = self.check_path(n, s, lambda k, is_sink: k <= INJ)
        if bad is None:
            return None
        pat = self.group_of(bad).pattern
        if pat >= OPQ:
            return Blocked("opaque", f"opaque op: {bad.label} is never fused", bad)
        if pat == OUT:
            return Blocked(
                "injective-anchor",
                f"path through injective {n.label} into out_ewise_fusable "
                f"{(self.group_of(bad).anchor or bad).label}",
                bad,
            )
        if pat == RED:
            return Blocked(
                "injective-reduce",
                f"injective {n.label} does not fuse into {self.as_member(bad, 'reduction')} (TVM rule)",
                bad,
            )
        return Blocked("path", f"path to {s.label} goes through {self.as_member(bad)}", bad)

    def _limits(self, n: Node, s: Node) -> Blocked | None:
        groups = self.merged_groups(n, s)
        size = sum(len(g.members) for g in groups)
        if size > self.max_depth:
            return Blocked(
                "depth", f"depth limit: the group would hold {size} ops (max-depth={self.max_depth})"
            )
        if self.max_inputs > 0:
            count = count_inputs([m for g in groups for m in g.members])
            if count > self.max_inputs:
                return Blocked(
                    "inputs",
                    f"input limit: the group would read {count} inputs (max-inputs={self.max_inputs})",
                )
        return None

    # -- results -------------------------------------------------------------------------

    def final_groups(self) -> list[list[Node]]:
        """The groups' members, each in block order, groups ordered by their last op."""
        by_root: dict[int, list[Node]] = {}
        for n in self.graph:
            by_root.setdefault(id(self.group_of(n)), []).append(n)
        groups = [sorted(ms, key=lambda m: m.index) for ms in by_root.values()]
        return sorted(groups, key=lambda ms: ms[-1].index)


def count_inputs(members: list[Node]) -> int:
    """Distinct values read from outside ``members``, splat constants excluded."""
    ops = {m.op for m in members}
    seen: set[object] = set()
    for m in members:
        for v in m.op.operands:
            owner = v.owner
            if owner in ops or v in seen:
                continue
            if isinstance(owner, ConstantOp) and owner.is_splat:
                continue
            seen.add(v)
    return len(seen)


def partition(graph: IndexedGraph, max_depth: int = 256, max_inputs: int = 0) -> Partition:
    p = Partition(graph, PostDominatorTree(graph), max_depth, max_inputs)
    p.run()
    return p
