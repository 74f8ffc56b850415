"""Graph IR -> ONNX, for the onnxruntime side of the benchmarks.

Covers the ops the benchmark graphs use (conv2d, batch_norm, relu, add, sub,
mul, div, maximum, exp, tanh, sigmoid, matmul, max/avg/global-avg pooling,
reshape, transpose, softmax, layer_norm, constants).  Constants become
initializers holding the same values, so onnxruntime computes with the same
weights as graph-opt.  Anything else is a clear error naming the op.

    from onnx_export import export          # with benchmarks/ on sys.path
    model_bytes = export(module)            # the module's first function
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from graphopt.dialects import graph
from graphopt.dialects import graph as gc
from graphopt.dialects import graph as gm
from graphopt.dialects import graph as nn
from graphopt.dialects import graph as norm
from graphopt.dialects.graph import tensor_of

OPSET = 17

_ELEM = {"f32": TensorProto.FLOAT, "f64": TensorProto.DOUBLE, "i64": TensorProto.INT64}

_SIMPLE = {
    graph.AddOp: "Add", graph.SubOp: "Sub", graph.MulOp: "Mul", graph.DivOp: "Div",
    graph.MaximumOp: "Max", graph.ExpOp: "Exp", graph.TanhOp: "Tanh", graph.LogOp: "Log",
    graph.SigmoidOp: "Sigmoid", graph.ReluOp: "Relu", graph.SqrtOp: "Sqrt", graph.NegOp: "Neg",
    gm.ErfOp: "Erf",
}  # fmt: skip


class ExportError(Exception):
    """An op this exporter does not cover."""


def _value_info(name: str, value: SSAValue) -> onnx.ValueInfoProto:
    t = tensor_of(value)
    return helper.make_tensor_value_info(name, _ELEM[str(t.element_type)], list(t.get_shape()))


class _Exporter:
    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.names: dict[SSAValue, str] = {}
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def name(self, v: SSAValue) -> str:
        if v not in self.names:
            self.names[v] = f"v{len(self.names)}"
        return self.names[v]

    def const(self, array: np.ndarray) -> str:
        n = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def node(self, kind: str, inputs: list[str], out: SSAValue, **attrs) -> None:
        self.nodes.append(helper.make_node(kind, inputs, [self.name(out)], **attrs))

    def export(self) -> onnx.ModelProto:
        block = self.fn.body.block
        inputs = [_value_info(self.name(a), a) for a in block.args]
        outputs: list[onnx.ValueInfoProto] = []
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                outputs = [_value_info(self.name(v), v) for v in op.operands]
                continue
            self.op(op)
        g = helper.make_graph(self.nodes, self.fn.sym_name.data, inputs, outputs, self.inits)
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        return model

    def op(self, op) -> None:  # noqa: C901 - one branch per op kind
        ins = [self.name(v) for v in op.operands]
        if isinstance(op, gc.ConstantOp):
            (array,) = op.reference()
            self.names[op.result] = self.const(array)
        elif type(op) in _SIMPLE:
            self.node(_SIMPLE[type(op)], ins, op.results[0])
        elif isinstance(op, nn.Conv2dOp):
            kh, kw = tensor_of(op.weight).get_shape()[2:]
            t, l, b, r = op.pad_values
            self.node(
                "Conv", ins, op.result, kernel_shape=[kh, kw], strides=list(op.stride_values),
                pads=[t, l, b, r], dilations=list(op.dilation_values), group=op.group_count,
            )  # fmt: skip
        elif isinstance(op, graph.Conv2dGradInputOp):
            self.conv_grad_input(op, ins)
        elif isinstance(op, graph.Conv2dGradFilterOp):
            self.conv_grad_filter(op, ins)
        elif isinstance(op, norm.BatchNormOp):
            self.node("BatchNormalization", ins, op.result, epsilon=op.epsilon)
        elif isinstance(op, norm.LayerNormOp):
            self.node("LayerNormalization", ins, op.result, axis=op.normalized_axis, epsilon=op.epsilon)
        elif isinstance(op, graph.SoftmaxOp):
            self.node("Softmax", ins, op.result, axis=op.normalized_axis)
        elif isinstance(op, graph.MatmulOp):
            self.node("MatMul", ins, op.result)
        elif isinstance(op, nn.MaxPool2dOp | nn.AvgPool2dOp):
            t, l, b, r = op.pad_values
            kind = "MaxPool" if isinstance(op, nn.MaxPool2dOp) else "AveragePool"
            self.node(
                kind, ins, op.result, kernel_shape=list(op.kernel_values),
                strides=list(op.stride_values), pads=[t, l, b, r],
            )  # fmt: skip
        elif isinstance(op, nn.GlobalAvgPoolOp):
            self.node("GlobalAveragePool", ins, op.result)
        elif isinstance(op, graph.ReshapeOp):
            shape = self.const(np.array(tensor_of(op.result).get_shape(), np.int64))
            self.node("Reshape", [ins[0], shape], op.result)
        elif isinstance(op, graph.TransposeOp):
            self.node("Transpose", ins, op.result, perm=list(op.permutation))
        else:
            raise ExportError(f"onnx_export: no ONNX mapping for '{op.name}'")

    def conv_grad_input(self, op: graph.Conv2dGradInputOp, ins: list[str]) -> None:
        """ConvTranspose of g with the forward weight (its [C_in, C_out/group, k, k]
        layout), output_padding giving back the input extent."""
        kh, kw = tensor_of(op.weight).get_shape()[2:]
        oh, ow = tensor_of(op.grad).get_shape()[2:]
        h, w = tensor_of(op.result).get_shape()[2:]
        (sy, sx), (dy, dx) = op.stride_values, op.dilation_values
        t, l, b, r = op.pad_values
        extra = [h - (sy * (oh - 1) + (kh - 1) * dy + 1 - t - b), w - (sx * (ow - 1) + (kw - 1) * dx + 1 - l - r)]
        if not all(0 <= e < s for e, s in zip(extra, (sy, sx))):
            raise ExportError("onnx_export: conv2d_grad_input needs an output_padding ConvTranspose lacks")
        self.node(
            "ConvTranspose", ins, op.result, kernel_shape=[kh, kw], strides=[sy, sx], pads=[t, l, b, r],
            dilations=[dy, dx], group=op.group_count, output_padding=extra,
        )  # fmt: skip

    def conv_grad_filter(self, op: graph.Conv2dGradFilterOp, ins: list[str]) -> None:
        """dw[f, c] = Conv(x as [C, N, H, W], g as [F, N, OH, OW]) with the
        strides and dilations swapped, cut to the kernel and transposed."""
        if op.group_count != 1:
            raise ExportError("onnx_export: grouped conv2d_grad_filter has no ONNX form here")
        kh, kw = tensor_of(op.result).get_shape()[2:]
        tmp = [f"{self.name(op.result)}_{k}" for k in ("x", "g", "y", "cut")]
        perm = [1, 0, 2, 3]
        self.nodes.append(helper.make_node("Transpose", [ins[0]], [tmp[0]], perm=perm))
        self.nodes.append(helper.make_node("Transpose", [ins[1]], [tmp[1]], perm=perm))
        self.nodes.append(helper.make_node(
            "Conv", tmp[:2], [tmp[2]], strides=list(op.dilation_values), dilations=list(op.stride_values),
            pads=list(op.pad_values),
        ))  # fmt: skip
        cut = [self.const(np.array(v, np.int64)) for v in ([0, 0], [kh, kw], [2, 3])]
        self.nodes.append(helper.make_node("Slice", [tmp[2], *cut], [tmp[3]]))
        self.node("Transpose", [tmp[3]], op.result, perm=perm)


def export_model(module: ModuleOp, name: str | None = None) -> onnx.ModelProto:
    """The ONNX model of function ``name`` (default: the first) of ``module``."""
    fns = [op for op in module.ops if isinstance(op, func.FuncOp)]
    fn = next(f for f in fns if name is None or f.sym_name.data == name)
    model = _Exporter(fn).export()
    onnx.checker.check_model(model)
    return model


def export(module: ModuleOp, name: str | None = None) -> bytes:
    """Serialized ONNX model, ready for ``onnxruntime.InferenceSession``."""
    return export_model(module, name).SerializeToString()
