"""``graphopt.compile``: a graph-level module (or ``.mlir`` file) to native code.

    cm = graphopt.compile("examples/mlp.mlir", pipeline="canonicalize,cse")
    probs = cm["mlp"](x)            # or cm.mlp(x)

The graph-level passes run first: the named pipeline of ``opt_level`` (0-3,
see ``graphopt.transforms.pipelines``), then ``pipeline`` (any ``graph-opt -p``
spec, named pipelines such as ``default`` included).  Then the lowering
passes, ``lower-graph-to-loop`` and ``lower-loop-to-llvm``: the same pass
pipeline ``graph-opt`` runs (``transforms.pipelines.with_lowering``).  The
runtime reads the drivers' ABI from the lowered module's ``#loop.abi``
attributes and llvmlite compiles it at speed level 3 for the host CPU, so
``opt_level=2`` compiles exactly what ``graph-opt -O2 -t llvm`` prints.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError

from graphopt.dialects import project_context
from graphopt.runtime.executable import CompiledModule, compile_llvm_module
from graphopt.tools.diagnostics import LocatedParser, UserError, verify_located
from graphopt.transforms import available_passes
from graphopt.transforms.pipelines import (
    PipelineError,
    combine,
    expand_named_pipelines,
    normalize_level,
    pipeline_spec,
    with_lowering,
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


def lowered_module(
    source: ModuleOp | str | os.PathLike[str],
    pipeline: str = "",
    *,
    opt_level: int | str | None = None,
    max_inline_constant_bytes: int = 4096,
    bounds_check: bool = False,
) -> ModuleOp:
    """The llvm-level module of ``source`` after the pipeline of :func:`compile`."""
    module = source.clone() if isinstance(source, ModuleOp) else parse_file(source)
    verify_located(module)
    try:
        level = pipeline_spec(normalize_level(opt_level)) if opt_level is not None else ""
    except PipelineError as err:
        raise UserError(str(err)) from None
    inline = None if max_inline_constant_bytes == 4096 else max_inline_constant_bytes
    spec = with_lowering(
        combine(level, expand_named_pipelines(pipeline)),
        max_inline_constant_bytes=inline,
        bounds_check=bounds_check,
    )
    # The IR is millions of long-lived objects: the cyclic collector would
    # rescan them again and again while the passes run (about a quarter of
    # the lowering time); what the passes free is collected afterwards.
    enabled = gc.isenabled()
    gc.disable()
    try:
        run_pipeline(module, spec)
    finally:
        if enabled:
            gc.enable()
    return module


def compile(  # noqa: A001 - the natural name of the public entry point
    source: ModuleOp | str | os.PathLike[str],
    pipeline: str = "",
    *,
    opt_level: int | str | None = None,
    max_inline_constant_bytes: int = 4096,
    llvm_opt_level: int = 3,
    bounds_check: bool = False,
) -> CompiledModule:
    """Compile a graph-level module, or the ``.mlir`` file at ``source``.

    A module passed in is not modified.  ``opt_level`` (0-3, or ``"O2"``,
    ``"default"``...) runs its named pipeline before ``pipeline``; the
    lowering passes follow unless ``pipeline`` runs them itself.
    ``bounds_check=True`` compiles every memref access that cannot be proven
    in bounds with a check: a call that goes out of bounds raises
    ``BoundsError`` instead of touching memory it does not own.
    """
    if isinstance(llvm_opt_level, bool) or llvm_opt_level not in (0, 1, 2, 3):
        raise UserError(f"llvm_opt_level must be 0, 1, 2 or 3, got {llvm_opt_level!r}")
    module = lowered_module(
        source, pipeline, opt_level=opt_level,
        max_inline_constant_bytes=max_inline_constant_bytes, bounds_check=bounds_check,
    )  # fmt: skip
    return compile_llvm_module(module, opt_level=llvm_opt_level)
