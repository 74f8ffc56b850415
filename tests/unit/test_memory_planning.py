"""Memory planning: the planners on hand-made programs, the in-place rules on
IR, and compiled results under every strategy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

import graphopt
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.fused import YieldOp, make_group
from graphopt.dialects.graph import AddOp, MatmulOp, ReluOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from graphopt.transforms.memory import PlanMemoryPass, plan_function, read_plan
from graphopt.transforms.memory.liveness import Interval, Kind, Program, Step, Tensor, lower_bound, program_of
from graphopt.transforms.memory.strategies import (
    STRATEGIES,
    greedy_pack,
    lower_bounds,
    plan,
    plan_nnvm,
)
from graphopt.transforms.memory.validity import plan_errors

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KB = 1024


def program(sizes: dict[str, int], steps: list[tuple[list[str], list[str]]], outputs=(), inplace=()) -> Program:
    """A hand-made program: ``steps`` are (reads, writes) over named tensors;
    names not written by any step are caller inputs; ``inplace`` steps (by
    index) declare every (read, write) pair of equal size."""
    written = {w for _, ws in steps for w in ws}
    read = {r for rs, _ in steps for r in rs}
    tensors = []
    for name, size in sizes.items():
        if name not in written or name in outputs:
            kind = Kind.EXTERNAL
        elif name not in read:
            kind = Kind.DEAD
        else:
            kind = Kind.INTERNAL
        tensors.append(Tensor(name, size, 4, kind))
    out = []
    for i, (rs, ws) in enumerate(steps):
        pairs = [(r, w) for r in rs for w in ws if sizes[r] == sizes[w]] if i in inplace else []
        out.append(Step(f"s{i}", list(rs), list(ws), pairs, pairs))
    return Program(tensors, out)


# --------------------------------------------------------------------------
# Greedy packing
# --------------------------------------------------------------------------

# Pisarchyk & Lee 2020, "Efficient Memory Management for Deep Neural Net
# Inference": 8 tensors over 9 ops as (size, first op, last op).  Reconstructed
# from the paper's example: its breadth profile peaks at op 5 with 124.
PAPER = [(32, 0, 1), (28, 1, 4), (36, 2, 5), (16, 3, 5), (8, 4, 5), (64, 5, 7), (10, 6, 8), (40, 7, 8)]


def test_paper_example_greedy_reaches_the_lower_bound() -> None:
    intervals = [Interval(i, s, a, b) for i, (s, a, b) in enumerate(PAPER)]
    assert lower_bound(intervals) == 124
    offsets, total, order = greedy_pack(intervals)
    assert total == 124
    assert order == "size"
    for i, a in enumerate(intervals):
        for j, b in enumerate(intervals):
            if i < j and a.overlaps(b):
                assert offsets[i] + a.size <= offsets[j] or offsets[j] + b.size <= offsets[i]


def test_hill_climb_never_worsens_and_stops_at_the_bound() -> None:
    # Long-lived small tensors interleaved with short big ones: the size
    # order leaves a hole that reordering can fill.
    spec = [(3, 0, 3), (2, 0, 1), (2, 2, 3), (1, 1, 2), (4, 4, 5), (2, 4, 4), (2, 5, 5)]
    intervals = [Interval(i, 64 * s, a, b) for i, (s, a, b) in enumerate(spec)]
    _, plain, _ = greedy_pack(intervals)
    _, climbed, _ = greedy_pack(intervals, hill_climb=200)
    assert lower_bound(intervals) <= climbed <= plain


@st.composite
def random_programs(draw) -> Program:
    n = draw(st.integers(1, 14))
    sizes = {"in": 256}
    steps: list[tuple[list[str], list[str]]] = []
    for i in range(n):
        pool = ["in", *[f"t{j}" for j in range(i)]]
        reads = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
        name = f"t{i}"
        sizes[name] = draw(st.sampled_from([64, 100, 256, 1000, 4096, 5000]))
        steps.append((reads, [name]))
    inplace = set(draw(st.lists(st.integers(0, n - 1), max_size=n)))
    return program(sizes, steps, outputs=(f"t{n - 1}",), inplace=inplace)


@settings(max_examples=60, deadline=None)
@given(random_programs(), st.sampled_from(STRATEGIES), st.booleans(), st.sampled_from([0, 30]))
def test_every_plan_is_valid(prog: Program, strategy: str, inplace: bool, climb: int) -> None:
    p = plan(prog, strategy, inplace, climb)
    assert plan_errors(prog, p.offsets, p.workspace) == []
    lb, lb_plain = lower_bounds(prog)
    assert lb <= lb_plain
    assert p.workspace >= (lb if inplace else lb_plain)
    assert p.workspace <= sum(prog.tensors[k].size for k in prog.internal())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 64), st.integers(0, 20), st.integers(0, 6)), min_size=1, max_size=40))
def test_greedy_packing_is_valid_on_random_intervals(spec) -> None:
    intervals = [Interval(i, 64 * s, a, a + d) for i, (s, a, d) in enumerate(spec)]
    offsets, total, _ = greedy_pack(intervals, hill_climb=20)
    assert total >= lower_bound(intervals)
    for i, a in enumerate(intervals):
        assert offsets[i] % 64 == 0 and offsets[i] + a.size <= total
        for j in range(i + 1, len(intervals)):
            b = intervals[j]
            if a.overlaps(b):
                assert offsets[i] + a.size <= offsets[j] or offsets[j] + b.size <= offsets[i]


def test_checker_rejects_overlap() -> None:
    prog = program({"x": 64, "a": 64, "b": 64, "y": 64}, [(["x"], ["a"]), (["a"], ["b"]), (["a", "b"], ["y"])], outputs=("y",))
    assert plan_errors(prog, {"a": 0, "b": 64}, 128) == []
    errors = plan_errors(prog, {"a": 0, "b": 0}, 128)
    assert errors and "overlap" in errors[0]
    assert "no workspace offset" in plan_errors(prog, {"a": 0}, 128)[0]
    assert "does not fit" in plan_errors(prog, {"a": 0, "b": 64}, 64)[0]


# --------------------------------------------------------------------------
# NNVM, hand-checked
# --------------------------------------------------------------------------


def test_nnvm_inplace_chain_uses_one_block() -> None:
    prog = program({"x": 4 * KB, "a": 4 * KB, "b": 4 * KB, "c": 4 * KB, "y": 4 * KB},
                   [(["x"], ["a"]), (["a"], ["b"]), (["b"], ["c"]), (["c"], ["y"])],
                   outputs=("y",), inplace={1, 2})
    p = plan_nnvm(prog)
    assert p.workspace == 4 * KB and p.offsets == {"a": 0, "b": 0, "c": 0}
    assert p.inplace == [("a", "b"), ("b", "c")]
    assert plan_nnvm(prog, inplace=False).workspace == 8 * KB


def test_nnvm_inplace_needs_refcount_one() -> None:
    # a is read by step 1 and step 2: at step 1 its refcount is 2, no in-place.
    prog = program({"x": KB, "a": KB, "b": KB, "y": KB},
                   [(["x"], ["a"]), (["a"], ["b"]), (["a", "b"], ["y"])], outputs=("y",), inplace={1})
    p = plan_nnvm(prog)
    assert p.inplace == [] and p.workspace == 2 * KB


def test_nnvm_match_range_and_growing() -> None:
    # a (64K) is freed at step 1.  b (1K) is more than 16x smaller: a new block.
    # c (8K) takes a's block (within [8K, 128K]).  Then d (16K) finds only b's
    # 1K block, which is within [1K, 16K): it grows to 16K.
    sizes = {"x": 64, "a": 64 * KB, "b": KB, "c": 8 * KB, "d": 16 * KB, "y": 64}
    steps = [(["x"], ["a"]), (["a"], ["b"]), (["b"], ["c"]), (["c"], ["d"]), (["d"], ["y"])]
    p = plan_nnvm(program(sizes, steps, outputs=("y",)))
    assert p.offsets["c"] == p.offsets["a"] == 0
    assert p.offsets["d"] == p.offsets["b"] == 64 * KB
    assert p.workspace == 64 * KB + 16 * KB  # blocks side by side


def test_nnvm_requests_largest_output_first() -> None:
    # A free 4K block; a step makes a 1K and a 4K output.  Largest first: the
    # 4K output takes the free block, the 1K one a new block.
    sizes = {"x": 64, "a": 4 * KB, "p": KB, "q": 4 * KB, "y": 64}
    steps = [(["x"], ["a"]), (["a"], ["z"]), (["z"], ["p", "q"]), (["p", "q"], ["y"])]
    sizes["z"] = 64
    prog = program(sizes, steps, outputs=("y",))
    p = plan_nnvm(prog)
    assert p.offsets["q"] == p.offsets["a"]
    assert p.offsets["p"] != p.offsets["a"]


def test_nnvm_grows_a_freed_block() -> None:
    # c (8K) finds a's freed 4K block in [512, 8K) and grows it to 8K.
    sizes = {"x": 64, "a": 4 * KB, "b": 4 * KB, "c": 8 * KB, "y": 64}
    steps = [(["x"], ["a"]), (["a"], ["b"]), (["b"], ["c"]), (["c"], ["y"])]
    prog = program(sizes, steps, outputs=("y",))
    assert plan_nnvm(prog).workspace == 4 * KB + 8 * KB  # a's block grows to 8K for c
    assert plan(prog, "greedy").workspace == 12 * KB
    assert lower_bounds(prog) == (12 * KB, 12 * KB)


# --------------------------------------------------------------------------
# In-place rules on IR
# --------------------------------------------------------------------------


def _residual_module(extra_use: bool = False) -> ModuleOp:
    """a = relu(x@w); c = group{ relu(a@w + a) }; optionally a is read again."""
    b = GraphBuilder("f")
    x = b.input((8, 8))
    w = b.input((8, 8))
    a = b.relu(b.matmul(x, w))
    group, body = make_group("mm_add_relu", FusePattern.OUT_EWISE_FUSABLE, [a, w], [a.type])
    p, q = body.args
    mm = MatmulOp(p, q)
    add = AddOp(mm.result, p)
    relu = ReluOp(add.result)
    body.add_ops([mm, add, relu, YieldOp(relu.result)])
    b._builder.insert(group)
    c = group.results[0]
    out = b.matmul(c, a) if extra_use else b.exp(c)
    return b.build(out)


def test_epilogue_inplace_needs_elementwise_reads_of_the_input() -> None:
    # The group reads `a` through the matmul too (at other indices): unsafe.
    fn = _residual_module().body.block.first_op
    prog = program_of(fn)
    group_step = [s for s in prog.steps if s.name == "mm_add_relu"][0]
    assert group_step.inplace == []


def _fused_residual_module():
    """h = relu(relu(x@w)@w); c = group{ relu(h@w + a) } over a = relu(x@w)."""
    b = GraphBuilder("f")
    x = b.input((8, 8))
    w = b.input((8, 8))
    a = b.relu(b.matmul(x, w))
    h = b.relu(b.matmul(a, w))
    group, body = make_group("mm_add_relu", FusePattern.OUT_EWISE_FUSABLE, [h, w, a], [a.type])
    p, q, r = body.args
    mm = MatmulOp(p, q)
    add = AddOp(mm.result, r)
    relu = ReluOp(add.result)
    body.add_ops([mm, add, relu, YieldOp(relu.result)])
    b._builder.insert(group)
    return b.build(b.exp(group.results[0])), group


def test_epilogue_inplace_residual_add() -> None:
    module, group = _fused_residual_module()
    fn = module.body.block.first_op
    prog, result, _ = plan_function(fn)
    c = group.results[0]
    a_val = [s for s in prog.steps][1].writes[0]
    assert (a_val, c) in result.inplace
    assert result.offsets[c] == result.offsets[a_val]
    assert plan_errors(prog, result.offsets, result.workspace) == []
    assert lower_bounds(prog)[0] < lower_bounds(prog)[1]


def test_no_inplace_on_caller_memory_or_last_use_elsewhere() -> None:
    b = GraphBuilder("f")
    x = b.input((16,))
    a = b.exp(x)  # x is the caller's: never overwritten
    c = b.relu(a)  # a is read again below: not its last use
    d = b.add(c, a)  # last use of a and c: may overwrite one of them
    module = b.build(b.neg(d))
    prog, result, _ = plan_function(module.body.block.first_op)
    assert result.inplace == [(c, d)]
    assert result.workspace == 2 * 64


def test_multi_output_kernels_are_never_inplace() -> None:
    b = GraphBuilder("f")
    x = b.input((4, 4))
    a = b.exp(x)
    group, body = make_group("two", FusePattern.ELEMWISE, [a], [a.type, a.type])
    (p,) = body.args
    r1, r2 = ReluOp(p), ReluOp(p)
    body.add_ops([r1, r2, YieldOp(r1.result, r2.result)])
    b._builder.insert(group)
    module = b.build(b.add(group.results[0], group.results[1]))
    prog = program_of(module.body.block.first_op)
    assert all(not s.inplace for s in prog.steps if s.name == "two")


def test_plan_attributes_roundtrip_and_dead_results() -> None:
    b = GraphBuilder("f")
    x = b.input((4, 4))
    a = b.exp(x)
    b.relu(a)  # dead
    module = b.build(b.neg(a))
    fn = module.body.block.first_op
    PlanMemoryPass().apply(None, module)  # type: ignore[arg-type]
    offsets, ws = read_plan(fn)
    assert offsets == {a: 0} and ws == 64


# --------------------------------------------------------------------------
# Compiled results: every strategy computes what the naive plan computes
# --------------------------------------------------------------------------


def _fuse_prefix() -> str:
    return "fuse-ops,"


def _builder_graphs() -> list[tuple[str, ModuleOp, list[np.ndarray]]]:
    rng = np.random.default_rng(0)
    graphs = []
    b = GraphBuilder("f")
    x, w = b.input((8, 8)), b.input((8, 8))
    a = b.relu(b.matmul(x, w))
    h = b.relu(b.matmul(a, w))
    y = b.relu(b.add(b.matmul(h, w), a))
    z = b.exp(b.add(y, b.neg(y)))
    graphs.append(("fused_residual", _fused_residual_module()[0], [rng.standard_normal((8, 8), dtype=np.float32) for _ in range(2)]))
    graphs.append(("residual", b.build(b.matmul(z, w), y), [rng.standard_normal((8, 8), dtype=np.float32) for _ in range(2)]))
    b = GraphBuilder("f")
    x = b.input((4, 16))
    e = b.exp(x)
    s = b.reduce_sum(e, [1], keepdims=True)
    graphs.append(("softmaxish", b.build(b.div(e, s)), [rng.standard_normal((4, 16), dtype=np.float32)]))
    return graphs


def _cases():
    cases = [(p.name, p, None) for p in sorted(EXAMPLES.glob("*.mlir"))]
    cases += [(name, module, inputs) for name, module, inputs in _builder_graphs()]
    return cases


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_compiled_results_match_the_naive_plan(case) -> None:
    name, source, inputs = case
    fuse = _fuse_prefix()
    naive = graphopt.compile(source, pipeline=f"{fuse}plan-memory{{strategy=naive check=true}}")
    fn_name = next(iter(naive.functions))
    f_naive = naive[fn_name]
    if inputs is None:
        rng = np.random.default_rng(1)
        inputs = [rng.standard_normal(s.shape).astype(s.dtype) for s in f_naive.inputs]
    want = f_naive(*inputs)
    want = list(want) if isinstance(want, tuple) else [want]
    module = source if isinstance(source, ModuleOp) else None
    if module is not None:
        ref = interpret(module, *inputs)
        for g, r in zip(want, ref):
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)
    for strategy in ("nnvm", "greedy"):
        for extra in ("", " inplace=false", " hill-climb=20"):
            compiled = graphopt.compile(source, pipeline=f"{fuse}plan-memory{{strategy={strategy}{extra} check=true}}")
            f = compiled[fn_name]
            assert f.workspace_bytes <= f_naive.workspace_bytes
            got = f(*inputs)
            got = list(got) if isinstance(got, tuple) else [got]
            for g, w_ in zip(got, want):
                np.testing.assert_array_equal(g, w_)


def test_lowering_falls_back_to_naive_on_a_stale_plan() -> None:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    from graphopt.transforms.memory import OFFSETS_KEY, usable_plan
    from graphopt.transforms.memory.liveness import step_ops

    b = GraphBuilder("f")
    x = b.input((16,))
    a = b.exp(x)
    c = b.relu(a)
    module = b.build(b.add(c, a))
    fn = module.body.block.first_op
    plan_function(fn)
    assert usable_plan(fn, [a, c]) is not None
    step_ops(fn)[1].attributes[OFFSETS_KEY] = DenseArrayBase.from_list(i64, [0])  # c over a: both live
    assert usable_plan(fn, [a, c]) is None


def test_O2_plans_memory() -> None:
    b = GraphBuilder("f")
    x, w = b.input((8, 8)), b.input((8, 8))
    h = x
    for _ in range(4):
        h = b.matmul(b.relu(b.matmul(h, w)), w)
    module = b.build(h)
    f0 = graphopt.compile(module)["f"]
    f2 = graphopt.compile(module, opt_level=2)["f"]
    assert f2.workspace_bytes < f0.workspace_bytes
    xs = [np.eye(8, dtype=np.float32), np.full((8, 8), 0.1, np.float32)]
    np.testing.assert_allclose(f2(*xs), f0(*xs), rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["exp", "relu", "add", "matmul", "reduce"]), st.integers(0, 99), st.integers(0, 99)), min_size=1, max_size=16),
       st.sampled_from(STRATEGIES))
def test_plans_of_random_graphs_are_valid(ops, strategy: str) -> None:
    b = GraphBuilder("f")
    values = [b.input((8, 8))]
    for kind, i, j in ops:
        u, v = values[i % len(values)], values[j % len(values)]
        if kind in ("exp", "relu"):
            values.append(getattr(b, kind)(u))
        elif kind == "add":
            values.append(b.add(u, v))
        elif kind == "matmul":
            values.append(b.matmul(u, v))
        else:
            values.append(b.add(u, b.reduce_sum(v, [1], keepdims=True)))
    module = b.build(values[-1])
    fn = module.body.block.first_op
    prog, result, _ = plan_function(fn, strategy)
    assert plan_errors(prog, result.offsets, result.workspace) == []
    offsets, ws = read_plan(fn)
    assert offsets == {k: v for k, v in result.offsets.items()} and ws == result.workspace
