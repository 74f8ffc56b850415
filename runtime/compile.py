"""``graphopt.compile``: a graph-level module (or ``.mlir`` file) to native code.

    cm = graphopt.compile("examples/mlp.mlir", pipeline="canonicalize,cse")
    probs = cm["mlp"](x)            # or cm.mlp(x)

The graph-level ``pipeline`` (any ``graph-opt -p`` spec) runs first, then
``lower-graph-to-loop`` and ``lower-loop-to-llvm``; llvmlite compiles the
result at speed level 3 for the host CPU.
"""

from __future__ import annotations

import os
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from graphopt.dialects import project_context
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.executable import CompiledModule, compile_loop_module
from graphopt.tools.diagnostics import LocatedParser, UserError, verify_located
from graphopt.transforms import available_passes


def parse_file(path: str | os.PathLike[str]) -> ModuleOp:
    """Parse and verify a ``.mlir`` file, with source locations on every op."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    module = LocatedParser(project_context(), text, str(path)).parse_module()
    verify_located(module)
    return module


def parse_text(text: str, name: str = "<string>") -> ModuleOp:
    module = LocatedParser(project_context(), text, name).parse_module()
    verify_located(module)
    return module


def run_pipeline(module: ModuleOp, pipeline: str) -> None:
    """Apply a ``graph-opt -p`` pipeline spec to ``module`` in place."""
    if not pipeline:
        return
    try:
        passes = PassPipeline.parse_spec(available_passes(), pipeline)
    except ValueError as err:
        raise UserError(f"invalid pipeline '{pipeline}': {err}") from None
    passes.apply(project_context(), module)
    verify_located(module)


def compile(  # noqa: A001 - the natural name of the public entry point
    source: ModuleOp | str | os.PathLike[str],
    pipeline: str = "",
    *,
    max_inline_constant_bytes: int = 4096,
    llvm_opt_level: int = 3,
) -> CompiledModule:
    """Compile a graph-level module, or the ``.mlir`` file at ``source``.

    A module passed in is not modified.
    """
    module = source.clone() if isinstance(source, ModuleOp) else parse_file(source)
    verify_located(module)
    run_pipeline(module, pipeline)
    lower_graph_to_loop(module)
    verify_located(module)
    return compile_loop_module(
        module,
        max_inline_constant_bytes=max_inline_constant_bytes,
        opt_level=llvm_opt_level,
        clone=False,
    )
