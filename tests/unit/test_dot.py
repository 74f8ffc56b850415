"""``-t dot`` at model scale: the legend's kernel count is the number of
kernels ``lower-graph-to-loop`` makes, every graph op sits in a kernel
cluster, no constant is a node of its own, and one font is used."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects import func

from graphopt.dialects.graph import ConstantOp
from graphopt.dialects.graph import GraphOp
from graphopt.runtime.compile import parse_file, run_pipeline
from graphopt.tools.dot_target import module_dot

REPO = Path(__file__).resolve().parents[2]


def resnet50():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from models import MODELS
    finally:
        sys.path.pop(0)
    return MODELS["resnet50"]()


def lowered_kernels(module, name: str) -> int:
    """Kernel calls in the driver ``name``: identical kernels share one
    function, but every kernel of the picture is one call."""
    lowered = module.clone()
    run_pipeline(lowered, "lower-graph-to-loop")
    (driver,) = (op for op in lowered.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    return sum(1 for op in driver.body.block.ops if isinstance(op, func.CallOp))


@pytest.mark.parametrize(
    "model, name, pipeline",
    [
        (lambda: parse_file(REPO / "examples" / "cnn.mlir"), "cnn", ""),
        (lambda: parse_file(REPO / "examples" / "cnn.mlir"), "cnn", "O2"),
        (lambda: parse_file(REPO / "examples" / "resnet_block.mlir"), "resnet_block", "O3"),
        (resnet50, "resnet50", "O2"),
    ],
)
def test_dot_at_model_scale(model, name: str, pipeline: str) -> None:
    module = model()
    run_pipeline(module, pipeline)
    text = module_dot(module)
    (count,) = re.findall(r"(\d+) kernels? \(", text)
    assert int(count) == lowered_kernels(module, name)
    assert len(re.findall(r"subgraph cluster_k\d+ \{", text)) == int(count)
    # Constants are drawn inside their consumers, not as nodes.
    assert "shape=note" not in text
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    constants = [op for op in fn.walk() if isinstance(op, ConstantOp)]
    assert constants and text.count(": splat ") + text.count(": dense ") >= len(constants)
    # Every graph op is a box inside a kernel cluster, labelled with its SSA name.
    ops = [op for op in fn.walk() if isinstance(op, GraphOp) and not isinstance(op, ConstantOp)]
    boxes = re.findall(r'\[label="(%[^"]*? = graph\.\w+)', text)
    assert len(boxes) == len(ops)
    depth = 0
    for line in text.splitlines():
        depth += line.count("{") - line.count("}") if "subgraph" in line or line.strip() == "}" else 0
        if "= graph." in line:
            assert depth >= 1, line
    # One font throughout.
    assert set(re.findall(r'fontname="([^"]+)"', text)) == {"Helvetica"}


def test_key_attributes_are_those_that_differ_from_the_defaults() -> None:
    text = module_dot(resnet50())
    assert "strides 2,2  padding 3,3,3,3\\nweight: splat 0.01 : 64x3x7x7xf32" in text
    assert "kernel 3,3  strides 2,2  padding 1,1,1,1" in text
    assert not re.search(r"dilations \d|groups \d|eps \d", text)
