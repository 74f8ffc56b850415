"""merge-functions (lowering/to_llvm/merge_functions.py): kernels equal up to
integer constants become one function taking them as parameters, and thunks.

A real model's kernels merge; a DenseNet-like block (1x1 convs over 64, 96,
128 and 160 input channels, so GEMM bodies that differ only in K) compiled
with merged kernels matches the reference interpreter at 1 and 2 threads,
bounds-checked too; LLVM's optimisation keeps one merged body (the thunks
still call it); a group needing more parameters than allowed is left alone."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import llvm

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering import parallel_split, to_llvm
from graphopt.lowering.to_llvm.merge_functions import MergeFunctionsPass, merge_constant_variants
from graphopt.runtime.compile import lowered_module, parse_text, run_pipeline
from graphopt.runtime.reference import interpret

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from models import resnet50  # noqa: E402

RNG = np.random.default_rng(11)
LIT_INPUT = ROOT / "tests" / "filecheck" / "lower-loop-to-llvm" / "merge-functions.mlir"


def constant(*shape: int, scale: float = 1.0, low: float | None = None) -> np.ndarray:
    if low is not None:
        return RNG.uniform(low, low + 1.0, shape).astype(np.float32)
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def dense_block(c0: int = 64, layers: int = 4, growth: int = 32, hw: int = 14):
    """DenseNet's pattern: each layer's bn-relu-1x1 conv reads the concat of
    every earlier output, so the 1x1 convs differ in their input channels."""
    b = GraphBuilder("dense_block")
    features = [b.input((1, c0, hw, hw), name="x")]

    def bn_relu(v, c: int):
        return b.relu(b.batch_norm(
            v, b.constant(constant(c, low=0.5)), b.constant(constant(c, scale=0.1)),
            b.constant(constant(c, scale=0.1)), b.constant(constant(c, low=0.5)),
        ))  # fmt: skip

    c = c0
    for _ in range(layers):
        cat = features[0] if len(features) == 1 else b.concat(features, axis=1)
        y = bn_relu(b.conv2d(bn_relu(cat, c), b.constant(constant(4 * growth, c, 1, 1, scale=c**-0.5))), 4 * growth)
        features.append(b.conv2d(y, b.constant(constant(growth, 4 * growth, 3, 3, scale=0.03)), padding=(1, 1, 1, 1)))
        c += growth
    return b.build(b.concat(features, axis=1))


def merged_names(ir: str) -> list[str]:
    return re.findall(r'^define internal \S+ @"([^"]+_merged)"', ir, re.M)


def instructions(ir: str) -> int:
    return sum(1 for line in ir.splitlines() if line.startswith("  ") and not line.rstrip().endswith(":"))


def without_pass(monkeypatch) -> None:
    monkeypatch.setattr(to_llvm, "merge_constant_variants", lambda module: None)


def test_a_real_model_merges(monkeypatch):
    without_pass(monkeypatch)
    module = lowered_module(resnet50(size=64), opt_level=2)
    functions = [op for op in module.ops if isinstance(op, llvm.FuncOp)]
    ops = sum(len(b.ops) for f in functions for b in f.body.blocks)
    stats = merge_constant_variants(module)
    after = [op for op in module.ops if isinstance(op, llvm.FuncOp)]
    assert stats.groups >= 5 and stats.functions >= 2 * stats.groups
    assert len(after) == len(functions) + stats.groups
    assert sum(len(b.ops) for f in after for b in f.body.blocks) < 0.95 * ops
    drivers = [f for f in after if f.linkage.linkage.data == "external" and f.body.blocks]
    assert drivers and not any(f.sym_name.data.endswith("_merged") for f in drivers)


@pytest.fixture(scope="module")
def block():
    module = dense_block()
    x = constant(1, 64, 14, 14)
    return module, x, interpret(module, x)[0]


def check(compiled, x: np.ndarray, want: np.ndarray, threads: int) -> None:
    compiled.num_threads = threads
    got = compiled.function()(x)
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 1e-5, err


@pytest.fixture
def parallel_convs(monkeypatch):
    """Every loop the schedule marks parallel stays parallel: the block's 1x1
    convs are too small at 14x14 to pay for a region by the cost rule
    (``parallel_split.worth_a_region``), and their outlined loops, equal up
    to K, are what merges."""
    monkeypatch.setattr(parallel_split, "worth_a_region", lambda work, trips, threads=2: True)


@pytest.mark.parametrize("bounds_check", [False, True])
def test_merged_kernels_match_the_reference(block, bounds_check, parallel_convs):
    module, x, want = block
    compiled = graphopt.compile(module, opt_level=2, bounds_check=bounds_check)
    merged = merged_names(compiled.jit.ir)
    assert any("conv2d_par" in name for name in merged), merged
    for threads in (1, 2):
        check(compiled, x, want, threads)


def test_llvm_keeps_one_merged_body(block, monkeypatch, parallel_convs):
    """O3 neither inlines the merged function back into its thunks nor
    specialises it per call: the optimised module stays smaller."""
    module, _, _ = block
    merged = graphopt.compile(module, opt_level=2)
    optimised = merged.optimized_llvm_ir
    for name in merged_names(merged.jit.ir):
        assert re.search(rf'^define internal .*@"?{re.escape(name)}"?\(', optimised, re.M), name
        assert len(re.findall(rf'call .*@"?{re.escape(name)}"?\(', optimised)) >= 2, name
    without_pass(monkeypatch)
    unmerged = graphopt.compile(module, opt_level=2)
    assert not merged_names(unmerged.jit.ir)
    assert instructions(optimised) < 0.9 * instructions(unmerged.optimized_llvm_ir)


def test_a_group_over_the_parameter_cap_is_left_alone():
    text = LIT_INPUT.read_text()
    capped = parse_text(text)
    run_pipeline(capped, "merge-functions{max_parameters=1}")
    assert not any(op.sym_name.data.endswith("_merged") for op in capped.ops)
    merged = parse_text(text)
    MergeFunctionsPass().apply(None, merged)  # type: ignore[arg-type]
    assert [op.sym_name.data for op in merged.ops if op.sym_name.data.endswith("_merged")] == ["k_rows8_merged"]
