"""``graphopt.compile``: a graph-level model to native code.

    cm = graphopt.compile("examples/mlp.mlir", pipeline="canonicalize,cse")
    probs = cm["mlp"](x)            # or cm.mlp(x), cm.mlp(x=x), cm.run(None, {"x": x})

``source`` is one of

* a ``builtin.module`` (not modified; it is cloned),
* a path (``str`` or ``os.PathLike``) of a ``.mlir`` or an ``.onnx`` file (a
  file of another extension is read as textual IR if it parses),
* IR text: a ``str`` that contains a newline or a ``{`` (no path does).

The result says which it took: ``cm.source.kind`` is ``"module"``, ``"path"``
or ``"text"``.  The graph-level passes run first: the named pipeline of
``opt_level`` (0-3, see ``graphopt.transforms.pipelines``), then ``pipeline``
(any ``graph-opt -p`` spec, named pipelines such as ``default`` included).
Then the lowering passes, ``lower-graph-to-loop`` and ``lower-loop-to-llvm``:
the same pass pipeline ``graph-opt`` runs (``transforms.pipelines.with_lowering``).
The runtime reads the drivers' ABI from the lowered module's ``#loop.abi``
attributes and llvmlite compiles it at ``llvm_opt_level`` for the host CPU, so
``opt_level=2`` compiles exactly what ``graph-opt -O2 -t llvm`` prints.
``llvm_opt_level`` (LLVM's O0-O3, 3 by default at every ``opt_level``) is
separate from the graph-level ``opt_level``; at 1-3 LLVM's loop unrolling is
off but for the window-row kernels the lowering marks (``runtime/llvm_optimizer``).

``plugins`` are loaded first (the same specs as ``--load-plugin``), after the
plugins installed under the ``graphopt.plugins`` entry-point group.

Every failure caused by the input is a :class:`graphopt.GraphOptError`:
``ParseError``, ``VerifyError``, ``PipelineError``, ``LoweringError``,
``ArgumentError`` or ``PluginError``.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException
from xdsl.utils.exceptions import ParseError as XdslParseError

from graphopt.errors import (
    ArgumentError,
    GraphOptError,
    LoweringError,
    ParseError,
    PipelineError,
)
from graphopt.lowering.to_llvm import LowerLoopToLLVMPass
from graphopt.plugins import available_passes, load_plugins, project_context
from graphopt.dialects.loop import TargetAttr, set_module_target
from graphopt.runtime.executable import CompiledModule, check_num_threads, compile_llvm_module, runnable_target
from graphopt.target import Target
from graphopt.diagnostics import LocatedParser, verify_located
from graphopt.input_formats import parse_by_content
from graphopt.transforms.levels import GRAPH, LOOP, module_levels
from graphopt.transforms.pipelines import (
    combine,
    expand_named_pipelines,
    normalize_level,
    pipeline_spec,
    with_lowering,
)

SourceKind = Literal["module", "path", "text"]
TargetSpec = Target | TargetAttr | str | None
"""A target: a :class:`Target`, a ``#loop.target``, an LLVM CPU name
(``"haswell"``), or ``None`` (the module's own ``#loop.target``, else this
machine)."""
PluginSpec = str | os.PathLike[str] | ModuleType
"""A plugin: a ``.py`` path, a module name, or an imported module."""


@dataclass(frozen=True)
class CompileSource:
    """What ``graphopt.compile`` was given: its kind and a name for messages."""

    kind: SourceKind
    name: str

    def __str__(self) -> str:
        return f"{self.kind} '{self.name}'" if self.kind != "module" else "a module"


def _parse(text: str, name: str) -> ModuleOp:
    try:
        module = LocatedParser(project_context(), text, name).parse_module()
    except XdslParseError as err:
        if isinstance(err, ParseError):
            raise
        raise ParseError(err.span, err.msg) from None
    verify_located(module)
    return module


def parse_file(path: str | os.PathLike[str]) -> ModuleOp:
    """Parse and verify a file of textual IR, with source locations on every
    op.  A file whose extension is not ``.mlir`` is read as IR only if it
    parses (``graphopt.input_formats``)."""
    path = Path(path)
    return parse_by_content(str(path), path.read_bytes(), lambda text: _parse(text, str(path)))


def parse_text(text: str, name: str = "<string>") -> ModuleOp:
    """Parse and verify IR text; diagnostics name ``name`` as the file."""
    return _parse(text, name)


def looks_like_ir(text: str) -> bool:
    """How a ``str`` source is told apart: IR text has a newline or a ``{``."""
    return "\n" in text or "{" in text


def load_source(
    source: ModuleOp | str | os.PathLike[str],
    input_shapes: Mapping[str, Sequence[int]] | None = None,
) -> tuple[ModuleOp, CompileSource]:
    """A fresh, verified module from a module, a path or IR text;
    ``input_shapes`` set an ``.onnx`` model's dynamic input dimensions."""
    if isinstance(source, ModuleOp):
        module = source.clone()
        verify_located(module)
        return module, CompileSource("module", "<module>")
    if isinstance(source, str) and looks_like_ir(source):
        return parse_text(source), CompileSource("text", "<string>")
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            what = "no such file" if not os.path.exists(path) else "not a file"
            raise ArgumentError(
                f"cannot compile '{path}': {what} (a str without a newline or "
                "'{' is read as a path; IR text has both)"
            )
        if path.lower().endswith(".onnx"):
            from graphopt.frontends.onnx import import_model  # a frontend, loaded on demand

            module = import_model(path, input_shapes)
            verify_located(module)
            return module, CompileSource("path", path)
        return parse_file(path), CompileSource("path", path)
    raise ArgumentError(
        "graphopt.compile takes a builtin.module, a path or IR text, "
        f"not {type(source).__name__}"
    )


def run_pipeline(module: ModuleOp, pipeline: str) -> None:
    """Apply a ``graph-opt -p`` pipeline spec to ``module`` in place.

    A bad spec, or a pass that refuses the IR, raises :class:`PipelineError`."""
    spec = expand_named_pipelines(pipeline)
    if not spec.strip():
        return
    try:
        passes = PassPipeline.parse_spec(available_passes(), spec)
    except (ValueError, TypeError, ArgSpecParseError) as err:
        raise PipelineError(f"invalid pipeline '{pipeline}': {err}") from None
    try:
        passes.apply(project_context(), module)
    except GraphOptError:
        raise
    except DiagnosticException as err:  # a pass's own diagnostic
        raise PipelineError(str(err)) from err
    if passes.passes and isinstance(passes.passes[-1], LowerLoopToLLVMPass):
        # Its output holds only llvm ops (the pass checks that) and is
        # LLVM IR, which LLVM's verifier checks when it is compiled; xDSL's
        # verifier over every llvm op cost a tenth of ResNet-50's compile.
        return
    verify_located(module)


def set_target(module: ModuleOp, target: TargetSpec) -> None:
    """Record ``target`` as ``module``'s ``#loop.target`` (``None`` keeps the
    module's own); a CPU name or target LLVM does not know is an ``ArgumentError``."""
    if target is None:
        return
    if isinstance(target, str):
        attr = TargetAttr(target)
        attr.resolve()
    elif isinstance(target, TargetAttr):
        attr = target
    elif isinstance(target, Target):
        attr = TargetAttr(target.cpu, target.features, target.triple)
    else:
        raise ArgumentError(f"target must be a graphopt.Target or a CPU name, not {type(target).__name__}")
    set_module_target(module, attr)


def lower_module(
    module: ModuleOp,
    pipeline: str = "",
    *,
    opt_level: int | str | None = None,
    max_inline_constant_bytes: int = 4096,
    bounds_check: bool = False,
    target: TargetSpec = None,
) -> None:
    """Run the pipeline of :func:`compile` on ``module`` in place, down to the
    llvm level, for ``target``: the ``opt_level`` pipeline, ``pipeline``,
    then the lowering passes ``pipeline`` does not run itself."""
    set_target(module, target)
    level = pipeline_spec(normalize_level(opt_level)) if opt_level is not None else ""
    inline = None if max_inline_constant_bytes == 4096 else max_inline_constant_bytes
    levels = module_levels(module)
    spec = with_lowering(
        combine(level, expand_named_pipelines(pipeline)),
        max_inline_constant_bytes=inline,
        bounds_check=bounds_check,
        at_loop_level=LOOP in levels and GRAPH not in levels,
    )
    with collector_paused():
        run_pipeline(module, spec)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The IR is millions of long-lived objects: the cyclic collector would
    rescan them again and again while the passes run and LLVM IR is built
    (about a quarter of the compile time); what they free is collected
    afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def lowered_module(
    source: ModuleOp | str | os.PathLike[str],
    pipeline: str = "",
    *,
    opt_level: int | str | None = None,
    max_inline_constant_bytes: int = 4096,
    bounds_check: bool = False,
    target: TargetSpec = None,
) -> ModuleOp:
    """The llvm-level module of ``source`` after the pipeline of :func:`compile`."""
    module, _ = load_source(source)
    lower_module(
        module, pipeline, opt_level=opt_level,
        max_inline_constant_bytes=max_inline_constant_bytes, bounds_check=bounds_check, target=target,
    )  # fmt: skip
    return module


def compile(  # noqa: A001 - the natural name of the public entry point
    source: ModuleOp | str | os.PathLike[str],
    pipeline: str = "",
    *,
    opt_level: int | str | None = None,
    plugins: Sequence[PluginSpec] = (),
    max_inline_constant_bytes: int = 4096,
    llvm_opt_level: Literal[0, 1, 2, 3] = 3,
    bounds_check: bool = False,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    num_threads: int | None = None,
    target: TargetSpec = None,
) -> CompiledModule:
    """Compile a graph-level model to native code (see the module docstring).

    ``opt_level`` (0-3, or ``"O2"``, ``"default"``...) runs its named pipeline
    before ``pipeline``; the lowering passes follow unless ``pipeline`` runs
    them itself.  ``max_inline_constant_bytes``: dense constants up to this
    size become LLVM globals, larger ones are passed by the runtime.
    ``bounds_check=True`` compiles every memref access that cannot be proven
    in bounds with a check: a call that goes out of bounds raises
    ``BoundsError`` instead of touching memory it does not own.
    ``input_shapes`` (``{"data": [1, 3, 224, 224]}``) set the dynamic input
    dimensions of an ``.onnx`` model.  ``num_threads`` (an int >= 1; default:
    the cores available to the process) is how many threads the parallel
    loops use; results are bitwise the same for every count.  ``target`` (a
    :class:`graphopt.Target`, or an LLVM CPU name such as ``"haswell"``;
    default: the module's ``#loop.target``, else this machine) is what the
    kernels are scheduled and compiled for; it must be one this machine can run.
    """
    if num_threads is not None:
        check_num_threads(num_threads)
    if isinstance(llvm_opt_level, bool) or llvm_opt_level not in (0, 1, 2, 3):
        raise ArgumentError(f"llvm_opt_level must be 0, 1, 2 or 3, got {llvm_opt_level!r}")
    if isinstance(plugins, (str, os.PathLike, ModuleType)):
        plugins = [plugins]
    load_plugins(plugins)
    with collector_paused():
        module, taken = load_source(source, input_shapes)
        set_target(module, target)
        runnable_target(module)  # refused before the passes, not after
        lower_module(
            module, pipeline, opt_level=opt_level,
            max_inline_constant_bytes=max_inline_constant_bytes, bounds_check=bounds_check,
        )  # fmt: skip
        try:
            compiled = compile_llvm_module(module, opt_level=llvm_opt_level, num_threads=num_threads)
        except GraphOptError:
            raise
        except DiagnosticException as err:
            raise LoweringError(str(err)) from err
    compiled.source = taken
    return compiled


__all__ = [
    "CompileSource",
    "PluginSpec",
    "compile",
    "load_source",
    "lower_module",
    "lowered_module",
    "looks_like_ir",
    "parse_file",
    "parse_text",
    "run_pipeline",
    "set_target",
]
