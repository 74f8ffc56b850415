"""The light models of the onnx package and how the onnx runner feeds them.

Each ``light_<name>.onnx`` builds every weight with a ``ConstantOfShape`` of
0.02; ``Runner.generate_dummy_data(random=False)`` feeds
``(arange(n).reshape(shape) / n).astype(float32)``; the reference is
``light_<name>_output_0.pb`` at the tolerance of ``data/real/test_<name>``.
Uniform weights cannot catch layout bugs, so :func:`with_random_weights`
also replaces every such weight by seeded normal values.
"""

from __future__ import annotations

import json
import os

import numpy as np
import onnx
from onnx import numpy_helper

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
LIGHT = os.path.join(DATA, "light")
NAMES = sorted(f[len("light_"):-len(".onnx")] for f in os.listdir(LIGHT) if f.endswith(".onnx"))


def model_path(name: str) -> str:
    return os.path.join(LIGHT, f"light_{name}.onnx")


def tolerance(name: str) -> tuple[float, float]:
    path = os.path.join(DATA, "real", f"test_{name}", "data.json")
    data = json.load(open(path)) if os.path.exists(path) else {}
    return float(data.get("rtol", 1e-3)), float(data.get("atol", 1e-7))


def graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def runner_input(vi: onnx.ValueInfoProto) -> np.ndarray:
    """What ``generate_dummy_data(random=False)`` feeds."""
    shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    n = int(np.prod(shape))
    return (np.arange(n).reshape(shape) / n).astype(np.float32)


def reference_output(name: str) -> np.ndarray:
    return numpy_helper.to_array(onnx.load_tensor(os.path.join(LIGHT, f"light_{name}_output_0.pb")))


def with_random_weights(model: onnx.ModelProto, seed: int = 0) -> onnx.ModelProto:
    """Every ``ConstantOfShape`` weight replaced by an initializer of seeded
    normal values, scaled by 1/sqrt(fan-in) so activations stay O(1)."""
    rng = np.random.default_rng(seed)
    shapes = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            shapes[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            shape = [int(d) for d in shapes[node.input[0]]]
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            w = rng.standard_normal(shape).astype(np.float32) / np.float32(np.sqrt(max(fan_in, 1)))
            if len(shape) == 1:  # biases, BN scale/shift/mean: keep positive variances
                w = np.abs(w) + np.float32(0.5)
            out.graph.initializer.append(numpy_helper.from_array(w, node.output[0]))
        else:
            out.graph.node.append(node)
    return out





def with_logits_output(model: onnx.ModelProto) -> tuple[onnx.ModelProto, str]:
    """The model with the input of its final Softmax as its output instead:
    onnx's reference evaluator applies an opset-9 Softmax of a
    ``1 x 1000 x 1 x 1`` tensor along the last axis (all ones), so the random-
    weight comparison is made on the logits (Softmax has its node tests)."""
    last = model.graph.node[-1]
    if last.op_type != "Softmax":
        return model, model.graph.output[0].name
    out = onnx.ModelProto()
    out.CopyFrom(model)
    inferred = onnx.shape_inference.infer_shapes(out)
    info = {v.name: v for v in inferred.graph.value_info}
    del out.graph.output[:]
    logits = last.input[0]
    out.graph.output.append(info[logits])
    out.graph.node.pop()
    return out, logits


def for_reference_evaluator(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model relabelled to opset 15 for onnx's reference evaluator, whose
    opset-9 BatchNormalization is wrong for inference (off by up to 30% on
    random statistics); the inference ops of the light models mean the same
    at 9 and 15 once Unsqueeze/Squeeze take their axes as an input (and inference Dropout
    is an Identity)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    for imp in out.opset_import:
        if imp.domain in ("", "ai.onnx"):
            imp.version = 15
    for node in out.graph.node:
        if node.op_type == "Dropout":  # inference: identity (its ratio became an input at 12)
            node.op_type = "Identity"
            del node.attribute[:]
            del node.output[1:]
        if node.op_type in ("Unsqueeze", "Squeeze"):
            axes = [a for a in node.attribute if a.name == "axes"]
            if axes:
                name = f"{node.output[0]}__axes"
                out.graph.initializer.append(numpy_helper.from_array(np.asarray(axes[0].ints, np.int64), name))
                node.input.append(name)
                node.attribute.remove(axes[0])
    return out


def reference_evaluator(model: onnx.ModelProto):
    """onnx's reference evaluator of :func:`for_reference_evaluator`'s model,
    with LRN computed per channel (onnx's own LRN loops over the batch axis,
    so with N = 1 it normalizes channel 0 only)."""
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class LRN(OpRun):
        op_domain = ""

        def _run(self, x, alpha=None, beta=None, bias=None, size=None):
            c = x.shape[1]
            sq = np.square(x.astype(np.float64))
            total = np.zeros_like(sq)
            for ch in range(c):
                lo, hi = max(0, ch - (size - 1) // 2), min(c, ch + size // 2 + 1)
                total[:, ch] = sq[:, lo:hi].sum(axis=1)
            return ((x / (bias + alpha / size * total) ** beta).astype(x.dtype),)

    return ReferenceEvaluator(for_reference_evaluator(model), new_ops=[LRN])
