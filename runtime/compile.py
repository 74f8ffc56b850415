"""``graphopt.compile``: a graph-level module (or ``.mlir`` file) to native code.

    cm = graphopt.compile("examples/mlp.mlir", pipeline="canonicalize,cse")
    probs = cm["mlp"](x)            # or cm.mlp(x)

The graph-level passes run first: the named pipeline of ``opt_level`` (0-3,
see ``graphopt.transforms.pipelines``), then ``pipeline`` (any ``graph-opt -p``
spec, named pipelines such as ``default`` included).  Then
``lower-graph-to-loop`` and ``lower-loop-to-llvm``; llvmlite compiles the
result at speed level 3 for the host CPU.  ``opt_level=2`` compiles exactly
what ``graph-opt -O2 -t llvm`` prints.
"""

from __future__ import annotations

import os
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError

from graphopt.dialects import project_context
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.executable import CompiledModule, compile_loop_module
from graphopt.tools.diagnostics import LocatedParser, UserError, verify_located
from graphopt.transforms import available_passes
from graphopt.transforms.pipelines import (
    PipelineError,
    combine,
    expand_named_pipelines,
    normalize_level,
    pipeline_spec,
)


def parse_file(path: str | os.PathLike[str]) -> ModuleOp:
    """Parse and verify a ``.mlir`` file, with source locations on every op."""
    path = Path(path)
    text = path.read_bytes().decode("utf-8", errors="replace")
    module = LocatedParser(project_context(), text, str(path)).parse_module()
    verify_located(module)
    return module


def parse_text(text: str, name: str = "<string>") -> ModuleOp:
    module = LocatedParser(project_context(), text, name).parse_module()
    verify_located(module)
    return module


def run_pipeline(module: ModuleOp, pipeline: str) -> None:
    """Apply a ``graph-opt -p`` pipeline spec to ``module`` in place."""
    try:
        spec = expand_named_pipelines(pipeline)
    except PipelineError as err:
        raise UserError(str(err)) from None
    if not spec.strip():
        return
    try:
        passes = PassPipeline.parse_spec(available_passes(), spec)
    except (ValueError, TypeError, ArgSpecParseError) as err:
        raise UserError(f"invalid pipeline '{pipeline}': {err}") from None
    passes.apply(project_context(), module)
    verify_located(module)


def compile(  # noqa: A001 - the natural name of the public entry point
    source: ModuleOp | str | os.PathLike[str],
    pipeline: str = "",
    *,
    opt_level: int | str | None = None,
    max_inline_constant_bytes: int = 4096,
    llvm_opt_level: int = 3,
) -> CompiledModule:
    """Compile a graph-level module, or the ``.mlir`` or ``.onnx`` file at ``source``.

    A module passed in is not modified.  ``opt_level`` (0-3, or ``"O2"``,
    ``"default"``...) runs its named pipeline before ``pipeline``.
    """
    if isinstance(source, ModuleOp):
        module = source.clone()
    elif str(source).lower().endswith(".onnx"):
        from graphopt.frontends.onnx import import_model  # a frontend, loaded on demand

        module = import_model(source)
    else:
        module = parse_file(source)
    verify_located(module)
    try:
        level = pipeline_spec(normalize_level(opt_level)) if opt_level is not None else ""
    except PipelineError as err:
        raise UserError(str(err)) from None
    run_pipeline(module, combine(level, pipeline))
    lower_graph_to_loop(module)
    verify_located(module)
    return compile_loop_module(
        module,
        max_inline_constant_bytes=max_inline_constant_bytes,
        opt_level=llvm_opt_level,
        clone=False,
    )
