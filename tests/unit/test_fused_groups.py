"""Hand-written fused groups compile to exactly one kernel each and match the
reference interpreter (tests/filecheck/lower-graph-to-loop/fused-groups.mlir)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, memref

import graphopt
from graphopt.dialects import loop
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import parse_file
from graphopt.runtime.reference import interpret

FILE = Path(__file__).parents[1] / "filecheck" / "lower-graph-to-loop" / "fused-groups.mlir"
FUNCTIONS = ["chain", "mlp_layer", "sumsq", "diamond"]


def single_function_module(name: str):
    module = parse_file(FILE)
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and op.sym_name.data != name:
            module.body.block.erase_op(op)
    return module


@pytest.mark.parametrize("name", FUNCTIONS)
def test_one_kernel_per_group(name: str) -> None:
    module = single_function_module(name)
    lower_graph_to_loop(module)
    kernels = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and loop.get_driver_abi(op) is None
    ]
    assert len(kernels) == 1
    # One loop nest whose only store to memory it was given is the group's
    # output: intermediates never go through the workspace.  (A matmul
    # accumulates a row in a stack buffer of its own.)
    args = set(kernels[0].body.block.args)
    stores = [op for op in kernels[0].walk() if isinstance(op, memref.StoreOp) and op.memref in args]
    assert len(stores) == 1
    assert stores[0].memref is kernels[0].body.block.args[-1]
    for op in kernels[0].walk():
        if isinstance(op, memref.StoreOp) and op.memref not in args:
            assert isinstance(op.memref.owner, memref.AllocaOp)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_matches_reference(name: str) -> None:
    module = single_function_module(name)
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal(t.get_shape()).astype(np.float32) for t in fn.function_type.inputs.data]
    (want,) = interpret(module, *inputs)
    got = graphopt.compile(module)[name](*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
