"""The ONNX backend node cases graph-opt runs, and how each is classified.

onnx 1.23 ships no ``data/node`` directory; ``collect_testcases()`` builds
the 1,884 node cases in memory, offline.  A case is *supported* when every
op of its graph has a converter.  A supported case whose inputs or outputs
have an element type graph-opt lacks (f16, bf16, u8, strings...) is
*skipped* with that reason; the others run.  ``KNOWN_FAILURES`` lists, with
the reason, the supported cases that do not pass: they run as expected
failures, so one that starts passing is reported.

``python tests/conformance/node_cases.py OUT [PATTERN]`` writes the cases
to disk the way ``onnx.backend.test.cmd_tools generate-data`` writes model
cases: ``OUT/node/<name>/model.onnx`` and ``test_data_set_N/input_N.pb``,
``output_N.pb`` (the layout ``graph-run --inputs DIR`` reads).
"""

from __future__ import annotations

import functools
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

SUPPORTED_TYPES = {TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL}

KNOWN_FAILURES: dict[str, str] = {
    **{
        name: "3-D pooling/convolution: the graph window ops are 2-D"
        for name in (
            "test_averagepool_3d_default", "test_averagepool_3d_dilations_small",
            "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True",
            "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_False",
            "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True",
            "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_False",
            "test_maxpool_3d_default", "test_maxpool_3d_dilations", "test_maxpool_3d_dilations_use_ref_impl",
            "test_maxpool_3d_dilations_use_ref_impl_large", "test_convtranspose_3d",
        )
    },
    "test_batchnorm_example_training_mode": "training-mode BatchNormalization (import is for inference)",
    "test_batchnorm_epsilon_training_mode": "training-mode BatchNormalization (import is for inference)",
    **{
        f"test_training_dropout{s}": "training-mode Dropout draws numpy's random mask, which cannot be reproduced"
        for s in ("", "_mask", "_default", "_default_mask")
    },
    **{
        f"test_{w}window{s}_expanded": "the window is a function of its size input only: nothing left to run "
        "once the size is bound at compile time"
        for w in ("blackman", "hamming", "hann")
        for s in ("", "_symmetric")
    },
    "test_maxpool_with_argmax_2d_precomputed_pads": "MaxPool's Indices output",
    "test_maxpool_with_argmax_2d_precomputed_strides": "MaxPool's Indices output (storage_order=1)",
    "test_pow_types_int64_float32": "Pow of an int64 base (graph.pow is a float op)",
    "test_pow_types_int64_int64": "Pow of an int64 base (graph.pow is a float op)",
}


@functools.cache
def all_cases():
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return tuple(collect_testcases())


def supported_ops() -> set[str]:
    from graphopt.frontends.onnx import ops_math, ops_nn, ops_tensor  # noqa: F401
    from graphopt.frontends.onnx.registry import supported_op_types

    return set(supported_op_types())


def op_types(case) -> list[str]:
    return sorted({n.op_type for n in case.model.graph.node})


def skip_reason(case) -> str | None:
    bad = sorted(
        {
            TensorProto.DataType.Name(v.type.tensor_type.elem_type).lower()
            for v in list(case.model.graph.input) + list(case.model.graph.output)
            if v.type.tensor_type.elem_type not in SUPPORTED_TYPES
        }
    )
    return f"element type {', '.join(bad)} is not supported" if bad else None


def selected_cases():
    """The supported cases: (case, skip reason or None)."""
    ops = supported_ops()
    out = []
    for case in all_cases():
        nodes = case.model.graph.node
        if nodes and all(n.op_type in ops and n.domain in ("", "ai.onnx") for n in nodes):
            out.append((case, skip_reason(case)))
    return out


def write_cases(out_dir: str, pattern: str = ".*") -> int:
    """Write the supported cases matching ``pattern`` as cmd_tools lays them out."""
    count = 0
    for case, _ in selected_cases():
        if not re.search(pattern, case.name):
            continue
        case_dir = os.path.join(out_dir, "node", case.name)
        os.makedirs(case_dir, exist_ok=True)
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(case_dir, f"test_data_set_{i}")
            os.makedirs(ds, exist_ok=True)
            for kind, values, infos in (("input", inputs, case.model.graph.input),
                                        ("output", outputs, case.model.graph.output)):
                for j, value in enumerate(values):
                    proto = value if isinstance(value, TensorProto) else numpy_helper.from_array(value, infos[j].name)
                    with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(proto.SerializeToString())
        count += 1
    return count


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: node_cases.py OUT_DIR [NAME_REGEX]")
    n = write_cases(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ".*")
    print(f"wrote {n} node cases to {os.path.join(sys.argv[1], 'node')}")
