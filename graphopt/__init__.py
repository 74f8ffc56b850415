"""graph-opt: a deep-learning graph compiler on xDSL.

    import graphopt
    cm = graphopt.compile("examples/mlp.mlir", opt_level=2)
    probs = cm["mlp"](x=np.ones((4, 16), np.float32))

The public API, importable from ``graphopt`` itself:

* ``compile(source, pipeline="", *, opt_level, plugins, ...)`` -- a module, a
  path or IR text to a :class:`CompiledModule` of :class:`CompiledFunction`;
* ``GraphBuilder`` -- build graph functions from Python;
* ``Target`` -- what to compile for (``Target.from_options(cpu="haswell")``);
* ``interpret`` -- the numpy reference interpreter;
* ``load_plugin`` / ``PluginRegistry`` -- extend the compiler;
* one exception hierarchy: :class:`GraphOptError` (a ``ValueError``) with
  ``ParseError``, ``VerifyError``, ``PipelineError``, ``LoweringError``,
  ``ArgumentError``, ``PluginError``, ``SizeError`` and ``OutputError``.

The heavy parts are imported on first use, so ``import graphopt`` is fast.
``compile`` is not in ``__all__``: ``from graphopt import *`` leaves the
builtin ``compile`` alone (use ``graphopt.compile``).

The import package maps the repository's folders: ``graphopt.dialects`` is
``dialects/``, ``graphopt.transforms`` is ``transforms/`` and so on.
"""

from __future__ import annotations

import os as _os
from importlib import import_module as _import_module
from typing import TYPE_CHECKING

from graphopt.errors import (
    ArgumentError,
    GraphOptError,
    LoweringError,
    OutputError,
    ParseError,
    PipelineError,
    PluginError,
    SizeError,
    VerifyError,
)

__version__ = "0.1.0"


def _add_source_checkout_folders() -> None:
    """Make ``graphopt.dialects`` etc. importable from a source checkout.

    In the repository, ``graphopt/`` holds only this package's own modules;
    the subpackages are the sibling folders (``dialects/``, ``runtime/``...),
    mapped by ``package-dir`` when installed.  When Python imports this
    ``graphopt/`` folder from the repository root -- the current directory
    shadows an installed, non-editable copy -- the siblings are added to the
    package path, so the checkout works as a whole instead of half of it.
    """
    root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    markers = ("pyproject.toml", _os.path.join("dialects", "__init__.py"))
    if all(_os.path.exists(_os.path.join(root, m)) for m in markers):
        if root not in __path__:
            __path__.append(root)


_add_source_checkout_folders()

# Lazily imported names -> the module that defines them.
_LAZY = {
    "compile": "graphopt.runtime.compile",
    "CompileSource": "graphopt.runtime.compile",
    "CompiledModule": "graphopt.runtime.executable",
    "CompiledFunction": "graphopt.runtime.executable",
    "ArgSpec": "graphopt.runtime.executable",
    "GraphBuilder": "graphopt.frontends.builder",
    "interpret": "graphopt.runtime.reference",
    "parse_file": "graphopt.runtime.compile",
    "parse_text": "graphopt.runtime.compile",
    "load_plugin": "graphopt.plugins",
    "PluginRegistry": "graphopt.plugins",
    "Target": "graphopt.target",
}

if TYPE_CHECKING:
    from graphopt.frontends.builder import GraphBuilder
    from graphopt.plugins import PluginRegistry, load_plugin
    from graphopt.runtime.compile import CompileSource, compile, parse_file, parse_text
    from graphopt.runtime.executable import ArgSpec, CompiledFunction, CompiledModule
    from graphopt.runtime.reference import interpret
    from graphopt.target import Target


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphopt' has no attribute '{name}'")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "ArgSpec",
    "ArgumentError",
    "CompileSource",
    "CompiledFunction",
    "CompiledModule",
    "GraphBuilder",
    "GraphOptError",
    "LoweringError",
    "OutputError",
    "ParseError",
    "PipelineError",
    "PluginError",
    "PluginRegistry",
    "SizeError",
    "Target",
    "VerifyError",
    "__version__",
    "interpret",
    "load_plugin",
    "parse_file",
    "parse_text",
]
