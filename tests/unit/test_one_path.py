"""graph-opt and graphopt.compile run one pipeline: the LLVM IR that
``graph-opt -O2 -t llvm`` prints is, byte for byte, the IR that compiles."""

from pathlib import Path

import pytest

import graphopt
from graphopt.tools.graph_opt import main

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_graph_opt_prints_what_compile_compiles(path, tmp_path):
    out = tmp_path / "out.ll"
    assert main([str(path), "-O2", "-t", "llvm", "-o", str(out)]) == 0
    compiled = graphopt.compile(path, opt_level=2)
    assert out.read_text() == compiled.llvm_ir
    assert len(compiled) > 0
