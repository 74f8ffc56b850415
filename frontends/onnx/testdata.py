"""Inputs for a model imported from ONNX, as ``graph-run --inputs`` takes them:
an ``.npz`` keyed by ONNX input names, or a ``test_data_set_N`` directory of
``input_N.pb`` TensorProtos (with ``output_N.pb`` as the expected outputs)."""

from __future__ import annotations

import glob
import os

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects import func

from graphopt.frontends.onnx.importer import OnnxImportError, load_model, name_hint


def model_input_names(model_path: str) -> list[str]:
    model = load_model(model_path)
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def read_tensor(path: str) -> np.ndarray:
    try:
        return numpy_helper.to_array(onnx.load_tensor(path))
    except Exception as err:  # noqa: BLE001 - a corrupt TensorProto
        raise OnnxImportError(f"cannot read tensor '{path}': {err}") from None


def load_onnx_inputs(
    inputs_path: str, model_path: str, fn: func.FuncOp
) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
    """(inputs in argument order, expected outputs or None)."""
    names = model_input_names(model_path)
    args = fn.body.block.args
    if os.path.isdir(inputs_path):
        files = sorted(glob.glob(os.path.join(inputs_path, "input_*.pb")),
                       key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
        if len(files) != len(args):
            raise OnnxImportError(
                f"'{inputs_path}' holds {len(files)} input_N.pb files, the model takes {len(args)} inputs"
            )
        inputs = [read_tensor(f) for f in files]
        outs = sorted(glob.glob(os.path.join(inputs_path, "output_*.pb")),
                      key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
        return inputs, ([read_tensor(f) for f in outs] or None)
    if not os.path.exists(inputs_path):
        raise OnnxImportError(f"cannot open '{inputs_path}': no such file or directory")
    try:
        data = np.load(inputs_path)
        files = data.files
    except Exception as err:  # noqa: BLE001 - not an npz
        raise OnnxImportError(f"cannot read inputs from '{inputs_path}': {err}") from None
    inputs = []
    for i, arg in enumerate(args):
        onnx_name = names[i] if i < len(names) else None
        keys = [k for k in (onnx_name, name_hint(onnx_name) if onnx_name else None, arg.name_hint, f"arg{i}") if k]
        found = next((k for k in keys if k in files), None)
        if found is None:
            raise OnnxImportError(
                f"'{inputs_path}' has no array for input '{onnx_name or i}' "
                f"(it holds {', '.join(files) or 'nothing'})"
            )
        inputs.append(data[found])
    return inputs, None
