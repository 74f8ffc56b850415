"""The per-op rules registry: one lookup along the class hierarchy, every kind
open to plugins, collisions refused and failed plugins rolled back."""

from __future__ import annotations

import types

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.canonicalize import CanonicalizePass

from graphopt import rules
from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import BinaryBroadcastOp, GraphOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.plugins import PluginError, PluginRegistry, load_plugin
from graphopt.transforms.decompose import decompose
from graphopt.transforms.fusion.graph_index import op_pattern


@pytest.fixture(autouse=True)
def restored_rules():
    saved = rules.snapshot()
    yield
    rules.restore(saved)


class Base:
    pass


class Middle(Base):
    pass


class Leaf(Middle):
    pass


def test_a_rule_on_a_base_class_reaches_its_subclasses() -> None:
    kind = rules.RuleKind("test rule")
    kind.register(Base, "base")
    assert kind.lookup(Leaf) == "base"
    assert kind.lookup(Leaf()) == "base"
    assert kind.lookup_with_class(Leaf) == (Base, "base")
    assert kind.lookup(object) is None


def test_the_most_specific_rule_wins() -> None:
    kind = rules.RuleKind("test rule")

    @kind.register(Base)
    def on_base() -> str:
        return "base"

    kind.register(Middle, "middle")
    assert kind.lookup(Leaf) == "middle"
    assert kind.lookup(Base) is on_base
    kind.register(Middle, "again")  # a built-in registration replaces
    assert kind.lookup(Leaf) == "again"


def test_several_rules_per_class_most_specific_first() -> None:
    kind = rules.RuleKind("test pattern", several=True)
    kind.register(Base, "b1")
    kind.register(Leaf, "l1")
    kind.register(Base, "b2")
    assert kind.lookup_all(Leaf) == ("l1", "b1", "b2")
    assert kind.lookup_all(Middle) == ("b1", "b2")


def test_builtin_rules_load_on_first_lookup() -> None:
    assert rules.COMPUTE.lookup(graph.AddOp) is not None  # on BinaryBroadcastOp's family
    assert rules.GRADIENT.lookup(graph.TanhOp) is not None
    assert rules.CANONICALIZATION.lookup_all(graph.AddOp)
    assert rules.DECOMPOSITION.lookup(graph.SoftmaxOp) is not None
    assert rules.SPLAT.lookup(graph.FillOp) is not None
    assert rules.GEMM_PLAN.lookup(graph.MatmulOp) is not None
    assert rules.LOOP_ORDER.lookup(graph.SoftmaxOp) is not None


class NoOpPattern(RewritePattern):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        self.seen.append(op.name)


def test_a_canonicalization_pattern_on_a_base_class_runs_on_subclasses() -> None:
    pattern = NoOpPattern()
    rules.CANONICALIZATION.register(BinaryBroadcastOp, pattern)
    b = GraphBuilder("f")
    x, y = b.input((4,), np.float32), b.input((4,), np.float32)
    module = b.build(b.exp(b.sub(b.add(x, y), y)))
    CanonicalizePass().apply(Context(), module)
    assert sorted(set(pattern.seen)) == ["graph.add", "graph.sub"]


def _plugin(name: str, register) -> types.ModuleType:
    module = types.ModuleType(name)
    module.register = register  # type: ignore[attr-defined]
    return module


class PlainOp(GraphOp):
    """Not a registered op: only a class to hang rules on."""

    name = "test.plain"


@pytest.mark.parametrize("kind", rules.KINDS, ids=lambda k: k.name)
def test_every_kind_is_open_to_plugins(kind: rules.RuleKind) -> None:
    rule = NoOpPattern() if kind.several else (lambda *args: None)
    plugin = _plugin(f"rules_{kind.name}", lambda reg: reg.add_rule(kind, PlainOp, rule))
    load_plugin(plugin, PluginRegistry())
    if kind.several:
        assert rule in kind.lookup_all(PlainOp)
    else:
        found = kind.lookup(PlainOp)  # a callable rule is wrapped by the crash guard
        assert getattr(found, "__wrapped__", found) is rule
        assert kind.owner(PlainOp) == f"plugin 'rules_{kind.name}'"


def test_a_plugin_may_not_replace_a_builtin_rule() -> None:
    plugin = _plugin("greedy", lambda reg: reg.add_rule(rules.COMPUTE, graph.SoftmaxOp, print))
    with pytest.raises(PluginError, match="plugin 'greedy' registers a compute rule for 'graph.softmax', which graph-opt already defines"):
        load_plugin(plugin, PluginRegistry())


def test_two_plugins_with_one_rule_name_both() -> None:
    registry = PluginRegistry()
    load_plugin(_plugin("first", lambda reg: reg.add_rule(rules.GRADIENT, PlainOp, print)), registry)
    with pytest.raises(PluginError, match="plugin 'second' .* which plugin 'first' already defines"):
        load_plugin(_plugin("second", lambda reg: reg.add_rule(rules.GRADIENT, PlainOp, repr)), registry)
    assert rules.GRADIENT.lookup(PlainOp).__wrapped__ is print


def test_a_failed_plugin_leaves_no_rule_behind() -> None:
    pattern = NoOpPattern()

    def register(reg: PluginRegistry) -> None:
        reg.add_rule(rules.CANONICALIZATION, graph.AddOp, pattern)
        reg.add_rule(rules.FUSION, PlainOp, print)
        raise RuntimeError("half way")

    with pytest.raises(PluginError, match="failed to register"):
        load_plugin(_plugin("half", register), PluginRegistry())
    assert pattern not in rules.CANONICALIZATION.lookup_all(graph.AddOp)
    assert rules.FUSION.lookup(PlainOp) is None
    assert rules.COMPUTE.lookup(graph.AddOp) is not None  # the built-ins survive


def test_a_plugin_fusion_rule_changes_the_fuse_pattern() -> None:
    b = GraphBuilder("f")
    x = b.input((4,), np.float32)
    module = b.build(b.exp(x))
    exp = next(op for op in module.walk() if isinstance(op, graph.ExpOp))
    assert op_pattern(exp) == FusePattern.ELEMWISE
    load_plugin(
        _plugin("opaque_exp", lambda reg: reg.add_rule(rules.FUSION, graph.ExpOp, lambda op: FusePattern.OPAQUE)),
        PluginRegistry(),
    )
    assert op_pattern(exp) == FusePattern.OPAQUE


def test_a_plugin_decomposition_is_applied_by_decompose() -> None:
    def neg_as_mul(op, em):
        return em.add(graph.MulOp(op.input, em.scalar(op.input, -1.0)))

    load_plugin(_plugin("neg", lambda reg: reg.add_rule(rules.DECOMPOSITION, graph.NegOp, neg_as_mul)), PluginRegistry())
    b = GraphBuilder("f")
    x = b.input((3,), np.float32)
    module = b.build(b.neg(x))
    assert decompose(module, ["neg"]) == 1
    names = [op.name for op in module.walk()]
    assert "graph.neg" not in names and "graph.mul" in names


class CrashingPattern(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if op.name == "graph.sub":
            raise KeyError("boom")


def test_a_crashing_plugin_pattern_is_one_error_naming_the_plugin_and_op() -> None:
    plugin = _plugin("crashy", lambda reg: reg.add_rule(rules.CANONICALIZATION, BinaryBroadcastOp, CrashingPattern()))
    load_plugin(plugin, PluginRegistry())
    b = GraphBuilder("f")
    x, y = b.input((4,), np.float32), b.input((4,), np.float32)
    module = b.build(b.exp(b.sub(b.add(x, y), y)))
    message = "the canonicalization pattern for 'BinaryBroadcastOp' of plugin 'crashy' raised KeyError: 'boom' on graph.sub"
    with pytest.raises(PluginError, match=message):
        CanonicalizePass().apply(Context(), module)


def test_a_crashing_plugin_rule_keeps_its_own_diagnostics() -> None:
    def refuses(*args):
        raise PluginError("this op is not for today")

    load_plugin(_plugin("picky", lambda reg: reg.add_rule(rules.GRADIENT, PlainOp, refuses)), PluginRegistry())
    with pytest.raises(PluginError, match="^this op is not for today$"):
        rules.GRADIENT.lookup(PlainOp)(None, None, [])
