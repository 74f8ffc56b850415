"""Property tests: every graph pass and every named pipeline preserves the
reference results on random graphs (5-40 ops) built with the builder API.

A graph is drawn as a list of steps over a pool of values whose shapes all
broadcast to 4x8 (4x8, 8, 4x1, 1x8, scalar), so any two pool values can meet in
a binary op.  Constants (dense and splats of 0, 1, 2...) are mixed in so that
fold-constants and the algebraic patterns have work.  Passes are checked with
the reference interpreter on the transformed module; pipelines also compiled.
Also: the examples agree at -O0 and -O2, and ``graph-opt -O2 -t llvm`` prints
what ``graphopt.compile(..., opt_level=2)`` compiles.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

from graphopt.frontends.builder import GraphBuilder

SHAPES = [(4, 8), (8,), (4, 1), (1, 8), ()]
UNARY = ["neg", "tanh", "sigmoid", "relu"]
BINARY = ["add", "sub", "mul", "maximum"]
KINDS = [
    "unary", "binary", "binary_const", "identity", "const_chain",
    "matmul", "reduce", "transpose", "reshape", "softmax", "dup",
]


@st.composite
def graph_programs(draw, min_ops: int = 5, max_ops: int = 40):
    """A program: (number of inputs, list of steps); each step a tuple."""
    n = draw(st.integers(min_ops, max_ops))
    steps = []
    for _ in range(n):
        kind = draw(st.sampled_from(KINDS))
        a = draw(st.integers(0, 1000))
        b = draw(st.integers(0, 1000))
        c = draw(st.integers(0, 1000))
        steps.append((kind, a, b, c))
    return draw(st.integers(1, 2)), steps


def build_graph(program) -> ModuleOp:
    """The module of ``program`` (deterministic in ``program``)."""
    n_inputs, steps = program
    rng = np.random.default_rng(len(steps) * 7919 + n_inputs)
    b = GraphBuilder("g")
    pool = [b.input((4, 8)) for _ in range(n_inputs)]
    count = 0

    def shape(v):
        return tuple(v.type.get_shape())

    def full():
        return [v for v in pool if shape(v) == (4, 8)]

    def const(shp, kind: int):
        if kind % 3 == 0:
            return b.splat(shp, [0.0, 1.0, 2.0, 0.5, -1.0][kind % 5])
        return b.constant(rng.standard_normal(shp).astype(np.float32))

    for kind, i, j, k in steps:
        x = pool[i % len(pool)]
        y = pool[j % len(pool)]
        fx = full()[i % len(full())]
        if kind == "unary":
            v = getattr(b, UNARY[k % len(UNARY)])(x)
        elif kind == "binary":
            v = getattr(b, BINARY[k % len(BINARY)])(x, y)
        elif kind == "binary_const":
            v = getattr(b, BINARY[k % len(BINARY)])(x, const(SHAPES[j % len(SHAPES)], k))
        elif kind == "identity":
            op = ["add", "mul", "sub"][k % 3]
            neutral = 1.0 if op == "mul" else 0.0
            v = getattr(b, op)(x, b.splat(SHAPES[j % len(SHAPES)], neutral))
        elif kind == "const_chain":
            c1 = const(SHAPES[j % len(SHAPES)], k)
            c2 = const(SHAPES[k % len(SHAPES)], j)
            v = getattr(b, BINARY[i % len(BINARY)])(b.tanh(c1), c2)
        elif kind == "matmul":
            w = const((8, 8), k + 1) if k % 2 else b.splat((8, 8), 0.125)
            v = b.matmul(fx, w)
        elif kind == "reduce":
            name = ["reduce_sum", "reduce_mean", "reduce_max"][k % 3]
            v = getattr(b, name)(fx, [j % 2], keepdims=True)
        elif kind == "transpose":
            t = b.transpose(fx, [1, 0])
            v = b.transpose(t, [1, 0]) if k % 2 else b.reshape(b.relu(t), (4, 8))
        elif kind == "reshape":
            r = b.reshape(fx, [(32,), (2, 16), (8, 4)][k % 3])
            v = b.reshape(b.neg(r) if j % 2 else r, (4, 8))
        elif kind == "softmax":
            v = b.softmax(fx, axis=[-1, 0][k % 2])
        else:  # dup: the same op twice, for cse
            v = b.add(b.tanh(x), b.tanh(x))
        pool.append(v)
        count += 1
    outs = [pool[-1]]
    if len(pool) > 3:
        outs.append(pool[len(pool) // 2])
    return b.build(*outs)


def random_inputs(module: ModuleOp, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    fn = module.body.block.first_op
    return [
        rng.standard_normal(tuple(t.get_shape())).astype(np.float32)
        for t in fn.function_type.inputs.data
    ]


def assert_close(got, want, rtol: float = 2e-4, atol: float = 2e-5) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


# --------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import graphopt
from graphopt.runtime.compile import parse_file, run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.transforms.pipelines import (
    PipelineError,
    expand_named_pipelines,
    normalize_level,
    pipeline_passes,
    pipeline_spec,
    split_pipeline,
)

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))
PASSES = ["fold-constants", "canonicalize", "cse", "dce", "decompose", "fold-batch-norm"]
SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def transformed(module: ModuleOp, spec: str) -> ModuleOp:
    clone = module.clone()
    run_pipeline(clone, spec)
    clone.verify()
    return clone


@settings(max_examples=30, **SETTINGS)
@given(graph_programs())
def test_every_pass_preserves_reference(program) -> None:
    module = build_graph(program)
    inputs = random_inputs(module)
    want = interpret(module, *inputs)
    for spec in PASSES:
        assert_close(interpret(transformed(module, spec), *inputs), want)


@settings(max_examples=6, **SETTINGS)
@given(graph_programs(max_ops=25))
def test_every_pipeline_preserves_results_compiled(program) -> None:
    module = build_graph(program)
    inputs = random_inputs(module, seed=1)
    want = interpret(module, *inputs)
    for level in range(4):
        assert_close(interpret(transformed(module, f"O{level}"), *inputs), want)
        got = graphopt.compile(module, opt_level=level)["g"](*inputs)
        assert_close(list(got) if isinstance(got, tuple) else [got], want)


def test_optimization_shrinks_graphs() -> None:
    program = (1, [("identity", 0, 0, 0), ("const_chain", 0, 1, 2), ("binary", 1, 2, 0),
                   ("dup", 3, 0, 0), ("transpose", 4, 0, 1)])
    module = build_graph(program)
    before = sum(1 for _ in module.walk())
    after = sum(1 for _ in transformed(module, "O1").walk())
    assert after < before


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_agree_at_O0_and_O2(path: Path) -> None:
    module = parse_file(path)
    inputs = random_inputs(module, seed=3)
    fn = module.body.block.first_op.sym_name.data
    o0 = graphopt.compile(path, opt_level=0)[fn](*inputs)
    o2 = graphopt.compile(path, opt_level=2)[fn](*inputs)
    o0 = list(o0) if isinstance(o0, tuple) else [o0]
    o2 = list(o2) if isinstance(o2, tuple) else [o2]
    assert_close(o2, o0)


def test_graph_opt_O2_llvm_matches_compile() -> None:
    path = EXAMPLES[0]
    tool = Path(sys.executable).parent / "graph-opt"
    text = subprocess.run(
        [str(tool), "-O2", "-t", "llvm", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert text.strip() == graphopt.compile(path, opt_level=2).llvm_ir.strip()


def test_pipeline_specs() -> None:
    assert pipeline_spec(0) == ""
    assert pipeline_spec("O1") == "fold-constants,canonicalize,cse,dce"
    o2 = pipeline_passes(2)
    assert o2[:3] == ["fold-constants", "canonicalize", "cse"] and "dce" in o2
    assert pipeline_spec("default") == pipeline_spec(2) == pipeline_spec("-O2")
    assert pipeline_passes(3)[-len(o2):] == o2
    assert pipeline_passes(3)[0] == "fold-batch-norm"
    with pytest.raises(PipelineError, match="invalid optimization level '7'"):
        normalize_level(7)


def test_expand_named_pipelines() -> None:
    assert expand_named_pipelines("O0") == ""
    assert expand_named_pipelines("cse,O1") == "cse,fold-constants,canonicalize,cse,dce"
    assert expand_named_pipelines("decompose{ops=softmax,gelu},O0,dce") == (
        "decompose{ops=softmax,gelu},dce"
    )
    assert split_pipeline("a{x=1,2},b") == ["a{x=1,2}", "b"]
