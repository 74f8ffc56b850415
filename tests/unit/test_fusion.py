"""fuse-ops: every FileCheck scenario (tests/filecheck/fuse-ops) compiled
against the reference interpreter, one kernel per group, and a property test
on random graphs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

import graphopt
from graphopt.dialects import loop
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.fused import GroupOp
from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph import GraphOp, numpy_dtype
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import parse_file, parse_text, run_pipeline
from graphopt.runtime.reference import interpret

ROOT = Path(__file__).parents[2]
SCENARIOS = ROOT / "tests" / "filecheck" / "fuse-ops"
RNG = np.random.default_rng(7)

# file -> the pipeline its main RUN line applies.
FILES = {
    "elementwise-chain.mlir": "fuse-ops",
    "reductions.mlir": "fuse-ops",
    "injective-reduce.mlir": "fuse-ops",
    "conv.mlir": "fuse-ops",
    "diamonds.mlir": "fuse-ops",
    "side-uses.mlir": "fuse-ops",
    "injective.mlir": "fuse-ops",
    "concat-split.mlir": "fuse-ops",
    "softmax.mlir": "fuse-ops",
    "depth-limit.mlir": "fuse-ops{max-depth=10}",
    "remarks.mlir": "fuse-ops",
    "limits.mlir": "fuse-ops{max-inputs=3}",
    "dot.mlir": "fuse-ops",
    "summary.mlir": "fuse-ops",
}
# Scenarios that are also checked through another pipeline.
EXTRA = [("conv.mlir", "fold-batch-norm,fuse-ops")]


def _chain_source(n: int) -> str:
    spec = importlib.util.spec_from_file_location("chain", SCENARIOS / "Inputs" / "chain.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.chain(n)


def functions_of(module: ModuleOp) -> list[str]:
    return [op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)]


def only(module: ModuleOp, name: str) -> ModuleOp:
    module = module.clone()
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and op.sym_name.data != name:
            module.body.block.erase_op(op)
    return module


def random_inputs(fn: func.FuncOp) -> list[np.ndarray]:
    arrays = []
    for t in fn.function_type.inputs.data:
        assert isinstance(t, TensorType)
        arrays.append(RNG.standard_normal(t.get_shape()).astype(numpy_dtype(t.element_type)))
    return arrays


def expected_kernels(fn: func.FuncOp) -> int:
    """One per group and per bare graph op, plus a copy per extra return."""
    ops = list(fn.body.block.ops)
    kernels = [op for op in ops if isinstance(op, GroupOp) or (isinstance(op, GraphOp) and not isinstance(op, ConstantOp))]
    produced = {r for op in kernels for r in op.results}
    ret = ops[-1]
    direct = {v for v in ret.operands if v in produced}
    copies = len(ret.operands) - len(direct)
    live = [op for op in kernels if any(r.uses for r in op.results)]
    return len(live) + copies


def count_kernels(module: ModuleOp) -> int:
    """Kernel calls in the drivers: identical kernels share one function, but
    every group is still exactly one call."""
    lowered = module.clone()
    lower_graph_to_loop(lowered)
    return sum(
        1
        for op in lowered.ops
        if isinstance(op, func.FuncOp) and loop.get_driver_abi(op) is not None
        for inner in op.body.block.ops
        if isinstance(inner, func.CallOp)
    )


def check_fused(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Fuse ``module`` (one function) with ``pipeline``; compare the fused
    module's reference run and its compiled code with the original."""
    (name,) = functions_of(module)
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    inputs = random_inputs(fn)
    want = interpret(module, *inputs)
    fused = module.clone()
    run_pipeline(fused, pipeline)
    check_groups(fused)
    after = interpret(fused, *inputs)
    got = graphopt.compile(fused)[name](*inputs)
    got = list(got) if isinstance(got, tuple) else [got]
    for w, a, g in zip(want, after, got, strict=True):
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    fused_fn = next(op for op in fused.ops if isinstance(op, func.FuncOp))
    assert count_kernels(fused) == expected_kernels(fused_fn)
    return fused


def check_groups(module: ModuleOp) -> None:
    """The invariants of a partition: one anchor per group, inputs from
    outside, no cycles between groups (block order is a topological order of
    the group graph once every group reads only values defined above it)."""
    for fn in [op for op in module.ops if isinstance(op, func.FuncOp)]:
        defined = set(fn.body.block.args)
        for op in fn.body.block.ops:
            for v in op.operands:
                assert v in defined, f"{op.name} reads a value defined after it"
            if isinstance(op, GroupOp):
                inner = list(op.body.block.ops)
                anchors = [o for o in inner if isinstance(o, GraphOp) and o.fuse_pattern == FusePattern.OUT_EWISE_FUSABLE]
                assert len(anchors) <= 1, f"{op.group_name.data}: {len(anchors)} anchors"
                assert len(inner) >= 3  # two ops and the yield
                for inner_op in inner:
                    for v in inner_op.operands:
                        assert v.owner in inner or v in op.body.block.args
            defined.update(op.results)


CASES = [
    pytest.param(f, pipeline, name, id=f"{f}:{name}:{pipeline}")
    for f, pipeline in [*FILES.items(), *EXTRA]
    for name in functions_of(parse_file(SCENARIOS / f))
]


@pytest.mark.parametrize("file,pipeline,name", CASES)
def test_scenario_compiles_and_matches(file: str, pipeline: str, name: str) -> None:
    check_fused(only(parse_file(SCENARIOS / file), name), pipeline)


def test_scenario_count() -> None:
    assert len(CASES) >= 15


def test_300_chain_default_depth() -> None:
    # A 256-op group compiles at Python's default recursion limit: the
    # lowering raises it for its recursive inlining.
    fused = check_fused(parse_text(_chain_source(300)), "fuse-ops")
    groups = [op for op in fused.walk() if isinstance(op, GroupOp)]
    assert [len(list(g.body.block.ops)) - 1 for g in groups] == [256, 44]


@pytest.mark.parametrize(
    "file,expected",
    [
        ("examples/mlp.mlir", 3),
        ("examples/resnet_block.mlir", None),
        ("examples/transformer_block.mlir", None),
        ("examples/elementwise.mlir", 1),
    ],
)
def test_examples_one_kernel_per_group(file: str, expected: int | None) -> None:
    module = parse_file(ROOT / file)
    fused = check_fused(module, "fuse-ops")
    if expected is not None:
        assert count_kernels(fused) == expected


def test_idempotent() -> None:
    module = only(parse_file(SCENARIOS / "diamonds.mlir"), "residual")
    run_pipeline(module, "fuse-ops")
    once = str(module)
    run_pipeline(module, "fuse-ops")
    assert str(module) == once


# -- property test -------------------------------------------------------------------

UNARY = ["neg", "exp", "tanh", "sigmoid", "relu"]
BINARY = ["add", "sub", "mul", "maximum"]


@st.composite
def random_graph(draw) -> ModuleOp:
    """A random graph of 5-40 core ops over 2-D f32 tensors."""
    b = GraphBuilder("f")
    rows, cols = draw(st.sampled_from([(2, 3), (3, 4), (4, 4)]))
    values = [b.input((rows, cols)), b.input((rows, cols)), b.input((cols,))]
    n_ops = draw(st.integers(5, 40))

    def pick(shape=None):
        pool = [v for v in values if shape is None or tuple(v.type.get_shape()) == shape]
        return draw(st.sampled_from(pool)) if pool else None

    for _ in range(n_ops):
        kind = draw(st.sampled_from(["unary"] * 3 + ["binary"] * 3 + ["matmul", "reduce", "transpose", "reshape", "softmax"]))
        x = pick()
        shape = tuple(x.type.get_shape())
        if kind == "unary":
            v = getattr(b, draw(st.sampled_from(UNARY)))(x)
        elif kind == "binary":
            # Broadcasting: the other operand has the same shape, or is a row.
            other = pick(shape) if len(shape) < 2 or draw(st.booleans()) else pick((shape[-1],))
            v = getattr(b, draw(st.sampled_from(BINARY)))(x, other if other is not None else x)
        elif kind == "matmul" and len(shape) == 2:
            w = pick((shape[1], shape[1]))
            v = b.tanh(b.matmul(x, w)) if w is not None else b.neg(x)
        elif kind == "reduce" and len(shape) == 2:
            r = draw(st.sampled_from(["reduce_sum", "reduce_max", "reduce_mean"]))
            v = getattr(b, r)(x, [1], keepdims=True)
            v = b.add(x, v)  # keep the value 2-D: broadcast back over the row
        elif kind == "transpose" and len(shape) == 2:
            v = b.transpose(x)
        elif kind == "reshape" and len(shape) == 2:
            v = b.reshape(x, (shape[1], shape[0])) if shape[0] != shape[1] else b.reshape(x, shape)
        elif kind == "softmax" and len(shape) >= 1:
            v = b.softmax(x)
        else:
            v = b.relu(x)
        values.append(v)
    outs = [values[-1]]
    if draw(st.booleans()) and len(values) > 5:
        extra = draw(st.sampled_from(values[3:-1]))
        if extra not in outs:
            outs.append(extra)
    return b.build(*outs)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(random_graph())
def test_random_graphs_preserve_results(module: ModuleOp) -> None:
    check_fused(module, "fuse-ops")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(random_graph(), st.integers(2, 6))
def test_random_graphs_respect_limits(module: ModuleOp, depth: int) -> None:
    fused = module.clone()
    run_pipeline(fused, f"fuse-ops{{max-depth={depth} max-inputs=3}}")
    check_groups(fused)
    for g in [op for op in fused.walk() if isinstance(op, GroupOp)]:
        assert len(list(g.body.block.ops)) - 1 <= depth
        buffers = {v for v in g.inputs if not (isinstance(v.owner, ConstantOp) and v.owner.is_splat)}
        assert len(buffers) <= 3
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    inputs = random_inputs(fn)
    for w, a in zip(interpret(module, *inputs), interpret(fused, *inputs), strict=True):
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-5)
