"""graph-opt: a deep-learning graph compiler on xDSL.

The import package maps the repository's folders: ``graphopt.dialects``,
``graphopt.transforms``, ``graphopt.lowering``, ``graphopt.runtime``,
``graphopt.frontends`` and ``graphopt.tools``.

``graphopt.compile(module_or_path, pipeline=..., opt_level=...)`` compiles a
graph-level module to native code (see ``graphopt.runtime.compile``).
"""

from typing import Any

__version__ = "0.1.0"


def compile(source: Any, pipeline: str = "", **options: Any) -> Any:  # noqa: A001
    """Compile a graph module or ``.mlir`` file; see :func:`graphopt.runtime.compile.compile`."""
    from graphopt.runtime.compile import compile as _compile

    return _compile(source, pipeline, **options)
