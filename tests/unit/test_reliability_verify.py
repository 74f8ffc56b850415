"""Verification reliability (issue 15, items 1 and 8): SSA dominance through
the Python API, and every project pass at every level."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.passes import PassPipeline

import graphopt
from graphopt.plugins import project_context
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.compile import parse_text, run_pipeline
from graphopt.diagnostics import LocatedVerifyError
from graphopt.plugins import available_passes
from graphopt.transforms import PASS_LOCATIONS
from graphopt.transforms.levels import GRAPH, LLVM, LOOP, PassLevelError, module_levels

USE_BEFORE_DEF = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = graph.exp %p : tensor<4xf32>
  %p = graph.relu %x : tensor<4xf32>
  func.return %q : tensor<4xf32>
}
"""


def test_use_before_def_is_rejected_by_parse_text() -> None:
    with pytest.raises(LocatedVerifyError, match=r"<string>:3:3: error: graph.exp: operand #0 \(%p\) is used before it is defined"):
        parse_text(USE_BEFORE_DEF)


def _mlp():
    b = GraphBuilder("f")
    x = b.input((2, 3), np.float32)
    w = b.input((3, 4), np.float32)
    return b.build(b.relu(b.matmul(x, w)))


def test_compile_rejects_a_module_whose_ops_were_moved_out_of_order() -> None:
    """graphopt.compile verifies dominance of a ModuleOp built in Python (no
    kernel that reads an unwritten workspace slot, no hang in lowering)."""
    module = _mlp()
    fn = next(iter(module.ops))
    matmul, relu = list(fn.body.block.ops)[:2]
    relu.detach()
    fn.body.block.insert_op_before(relu, matmul)
    with pytest.raises(LocatedVerifyError, match="graph.relu: operand #0 .* is used before it is defined"):
        graphopt.compile(module)


def test_compile_rejects_a_cycle() -> None:
    module = _mlp()
    fn = next(iter(module.ops))
    relu = list(fn.body.block.ops)[1]
    relu.operands = [relu.results[0]]
    with pytest.raises(LocatedVerifyError, match="a result of the op itself: a cycle"):
        graphopt.compile(module)


def _at_level(level: str):
    module = _mlp()
    if level != GRAPH:
        run_pipeline(module, "lower-graph-to-loop" + (",lower-loop-to-llvm" if level == LLVM else ""))
    assert set(module_levels(module)) == {level}
    return module


#: The level each project pass runs at.
PASS_LEVEL = {name: GRAPH for name in PASS_LOCATIONS}
PASS_LEVEL["lower-loop-to-llvm"] = LOOP
PASS_LEVEL["merge-functions"] = LLVM
#: The steps of lower-loop-to-llvm run on loop-level and partly converted IR.
LOWERED = {n for n in PASS_LOCATIONS if n.startswith("convert-") or n == "expand-math"}
PASS_OPTIONS = {"autodiff": "autodiff{func=f}"}


@pytest.mark.parametrize("level", [GRAPH, LOOP, LLVM])
@pytest.mark.parametrize("name", sorted(PASS_LOCATIONS))
def test_every_pass_at_every_level(name: str, level: str) -> None:
    module = _at_level(level)
    spec = PASS_OPTIONS.get(name, name)
    pipeline = PassPipeline.parse_spec(available_passes(), spec)
    if (level != GRAPH) if name in LOWERED else PASS_LEVEL[name] == level:
        pipeline.apply(project_context(), module)
        return
    before = str(module)
    if name in LOWERED:
        with pytest.raises(PassLevelError, match=rf"^{name}: runs on loop-level IR, but the module is at the graph level"):
            pipeline.apply(project_context(), module)
        assert str(module) == before
        return
    with pytest.raises(PassLevelError, match=rf"^{name}: runs on {PASS_LEVEL[name]}-level IR, but the module is at the {level} level"):
        pipeline.apply(project_context(), module)
    assert str(module) == before  # refused before touching anything
