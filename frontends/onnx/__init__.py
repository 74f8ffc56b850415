"""The ONNX frontend: ``import_model(path_or_proto, input_shapes=...)`` turns
an ONNX model into a graph-level module (see ``importer``).

    module = import_model("model.onnx", input_shapes={"data": [1, 3, 224, 224]})

``load_source(path)`` is what the tools call on a file: ``.onnx`` files are
imported, anything else is parsed as graph IR.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ModuleOp

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


def load_source(
    path: str | os.PathLike[str], input_shapes: Mapping[str, Sequence[int]] | None = None
) -> ModuleOp:
    """A verified graph-level module from an ``.onnx`` or ``.mlir`` file."""
    if is_onnx_path(path):
        return import_model(path, input_shapes)
    from graphopt.runtime.compile import parse_file

    return parse_file(path)


__all__ = [
    "ConvertError",
    "OnnxImportError",
    "import_model",
    "import_model_bytes",
    "is_onnx_path",
    "load_model",
    "load_source",
    "parse_input_shapes",
]
