"""Inputs for a model imported from ONNX, as ``graph-run`` takes them besides
``.npz`` files (which it reads by input name, an ONNX model's inputs keeping
their ONNX names): a ``test_data_set_N`` directory of ``input_N.pb``
TensorProtos (with ``output_N.pb`` as the expected outputs), or one
TensorProto file."""

from __future__ import annotations

import glob
import os

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects import func

from graphopt.frontends.onnx.importer import OnnxImportError


def read_tensor(path: str) -> np.ndarray:
    try:
        return numpy_helper.to_array(onnx.load_tensor(path))
    except Exception as err:  # noqa: BLE001 - a corrupt TensorProto
        raise OnnxImportError(f"cannot read tensor '{path}': {err}") from None


def load_onnx_inputs(
    inputs_path: str, fn: func.FuncOp
) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
    """The ``input_N.pb`` of a ``test_data_set_N`` directory in argument order
    (as onnx's runner feeds them), and its ``output_N.pb`` (or None)."""
    args = fn.body.block.args
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
