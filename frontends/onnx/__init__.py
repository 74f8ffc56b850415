"""The ONNX frontend: ``import_model(path_or_proto, input_shapes=...)`` turns
an ONNX model into a graph-level module (see ``importer``).

    module = import_model("model.onnx", input_shapes={"data": [1, 3, 224, 224]})

``graphopt.compile`` and the tools import a path ending in ``.onnx``
(:func:`is_onnx_path`) with it and parse anything else as graph IR.
"""

from __future__ import annotations

import os

# Importing the converter modules registers them (before any import_model call:
# a submodule's import always runs this package's __init__ first).
from graphopt.frontends.onnx import ops_math, ops_nn, ops_tensor  # noqa: F401
from graphopt.frontends.onnx.importer import (
    ConvertError,
    OnnxImportError,
    import_model,
    import_model_bytes,
    load_model,
    parse_input_shapes,
)


def is_onnx_path(path: str | os.PathLike[str]) -> bool:
    return str(path).lower().endswith(".onnx")


__all__ = [
    "ConvertError",
    "OnnxImportError",
    "import_model",
    "import_model_bytes",
    "is_onnx_path",
    "load_model",
    "parse_input_shapes",
]
