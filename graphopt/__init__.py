"""graph-opt: a deep-learning graph compiler on xDSL.

The import package maps the repository's folders: ``graphopt.dialects``,
``graphopt.transforms``, ``graphopt.lowering``, ``graphopt.runtime``,
``graphopt.frontends`` and ``graphopt.tools``.
"""

__version__ = "0.1.0"
