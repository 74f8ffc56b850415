"""The ONNX importer: shapes, initializers, names and locations, opset
variants, folding at import, and its errors."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func
from xdsl.dialects.builtin import NameLoc

import graphopt
from graphopt.dialects import graph
from graphopt.frontends.onnx import OnnxImportError, import_model, parse_input_shapes

RNG = np.random.default_rng(3)


def make(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def ops_of(module):
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return list(fn.body.block.ops)


def check_against_onnx(model, *xs, level=2, rtol=1e-5, atol=1e-6):
    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    want = ReferenceEvaluator(model).run(None, dict(zip(names, xs)))
    got = graphopt.compile(import_model(model), opt_level=level)["main"](*xs)
    got = got if isinstance(got, (tuple, list)) else [got]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def test_names_locations_and_constants() -> None:
    w = numpy_helper.from_array(RNG.standard_normal((3, 4)).astype(np.float32), "fc.weight")
    b = numpy_helper.from_array(np.zeros(3, np.float32), "fc.bias")
    model = make([helper.make_node("Gemm", ["x", "fc.weight", "fc.bias"], ["y"], name="fc1", transB=1)],
                 [vi("x", [2, 4])], [vi("y", [2, 3])], [w, b])
    module = import_model(model)
    ops = ops_of(module)
    consts = [op for op in ops if isinstance(op, graph.ConstantOp)]
    # the transposed weight is folded at import (dense), the zero bias is a splat
    assert not any(isinstance(op, graph.TransposeOp) for op in ops)
    assert {op.result.type.get_shape() for op in consts} == {(4, 3), (3,)}
    assert any(op.is_splat for op in consts) and any(not op.is_splat for op in consts)
    assert all(isinstance(op.location, NameLoc) and op.location.desc.data == "fc1" for op in ops[:-1])
    assert {op.result.name_hint for op in consts} == {"fc.weight", "fc.bias"}
    fn = next(iter(module.ops))
    assert fn.body.block.args[0].name_hint == "x"
    check_against_onnx(model, RNG.standard_normal((2, 4)).astype(np.float32))


def test_input_shape_for_dynamic_dims() -> None:
    model = make([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 3])], [vi("y", ["N", 3])])
    with pytest.raises(OnnxImportError, match="input 'x' has a dynamic dimension 'N' on axis 0"):
        import_model(model)
    module = import_model(model, {"x": [5, 3]})
    assert next(iter(module.ops)).function_type.inputs.data[0].get_shape() == (5, 3)
    assert parse_input_shapes(["x=5x3", "y=1"]) == {"x": [5, 3], "y": [1]}
    with pytest.raises(OnnxImportError, match="axis 1 is fixed to 3"):
        import_model(model, {"x": [5, 4]})


def test_compile_takes_input_shapes(tmp_path) -> None:
    import graphopt

    model = make([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 3])], [vi("y", ["N", 3])])
    path = tmp_path / "relu.onnx"
    onnx.save(model, str(path))
    cm = graphopt.compile(str(path), input_shapes={"x": [5, 3]})
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_array_equal(cm["main"](x), np.maximum(x, 0))


def test_unsupported_op_names_node_and_opset() -> None:
    model = make([helper.make_node("Hardmax", ["x"], ["y"], name="h")], [vi("x", [2])], [vi("y", [2])], opset=11)
    with pytest.raises(OnnxImportError, match=r"node 'h' \(Hardmax, opset 11\): unsupported op 'Hardmax'"):
        import_model(model)


@pytest.mark.parametrize("opset", [7, 11, 13, 18])
def test_split_squeeze_reduce_across_opsets(opset: int) -> None:
    """Split sizes, Squeeze/Unsqueeze and Reduce axes as attributes or inputs."""
    inits, nodes = [], []
    if opset < 13:
        nodes.append(helper.make_node("Split", ["x"], ["a", "b"], axis=1, split=[1, 3]))
    else:
        inits.append(numpy_helper.from_array(np.array([1, 3], np.int64), "sizes"))
        nodes.append(helper.make_node("Split", ["x", "sizes"], ["a", "b"], axis=1))
    if opset < 13:
        nodes.append(helper.make_node("Unsqueeze", ["a"], ["u"], axes=[0]))
    else:
        inits.append(numpy_helper.from_array(np.array([0], np.int64), "ax0"))
        nodes.append(helper.make_node("Unsqueeze", ["a", "ax0"], ["u"]))
    if opset < 18:
        nodes.append(helper.make_node("ReduceMax", ["b"], ["r"], axes=[1], keepdims=0))
    else:
        inits.append(numpy_helper.from_array(np.array([1], np.int64), "ax1"))
        nodes.append(helper.make_node("ReduceMax", ["b", "ax1"], ["r"], keepdims=0))
    model = make(nodes, [vi("x", [2, 4])], [vi("u", None), vi("r", None)], inits, opset)
    check_against_onnx(model, RNG.standard_normal((2, 4)).astype(np.float32))


@pytest.mark.parametrize("opset", [9, 13])
def test_softmax_legacy_and_new_axis(opset: int) -> None:
    """Opset < 13 normalizes over the flattened axes from ``axis`` on; 13 over
    ``axis`` alone (checked with numpy: onnx's reference evaluator applies an
    opset-9 Softmax along the last axis)."""
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    model = make([helper.make_node("Softmax", ["x"], ["y"], axis=1)], [vi("x", [2, 3, 4])], [vi("y", None)], opset=opset)
    got = graphopt.compile(import_model(model))["main"](x)
    if opset < 13:
        e = np.exp(x.reshape(2, 12) - x.reshape(2, 12).max(1, keepdims=True))
        want = (e / e.sum(1, keepdims=True)).reshape(2, 3, 4)
    else:
        e = np.exp(x - x.max(1, keepdims=True))
        want = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_clip_bounds_as_attributes_and_inputs() -> None:
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    old = make([helper.make_node("Clip", ["x"], ["y"], min=-0.5, max=0.5)], [vi("x", [3, 4])], [vi("y", None)], opset=7)
    check_against_onnx(old, x)
    new = make([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], [vi("x", [3, 4]), vi("hi", [])], [vi("y", None)],
               [numpy_helper.from_array(np.array(-0.25, np.float32), "lo")])
    check_against_onnx(new, x, np.array(0.3, np.float32))


def test_reshape_zero_minus_one_and_allowzero() -> None:
    shape = numpy_helper.from_array(np.array([0, -1], np.int64), "s")
    model = make([helper.make_node("Reshape", ["x", "s"], ["y"])], [vi("x", [2, 3, 4])], [vi("y", None)], [shape], 14)
    check_against_onnx(model, RNG.standard_normal((2, 3, 4)).astype(np.float32))


def test_shape_arithmetic_is_folded() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write it."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.array(0, np.int64), "zero"),
             numpy_helper.from_array(np.array([0], np.int64), "ax"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus1")]
    model = make(nodes, [vi("x", [2, 3, 4])], [vi("y", None)], inits)
    ops = ops_of(import_model(model))
    assert [type(op) for op in ops] == [graph.ReshapeOp, func.ReturnOp]
    check_against_onnx(model, RNG.standard_normal((2, 3, 4)).astype(np.float32))


def test_conv_auto_pad_groups_dilations_and_pools() -> None:
    w = numpy_helper.from_array(RNG.standard_normal((4, 2, 3, 3)).astype(np.float32), "w")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], auto_pad="SAME_UPPER", group=2, strides=[2, 2]),
        helper.make_node("Conv", ["x", "w"], ["d"], dilations=[2, 2], group=2),
        helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("AveragePool", ["d"], ["q"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1),
        helper.make_node("GlobalMaxPool", ["d"], ["g"]),
    ]
    model = make(nodes, [vi("x", [1, 4, 9, 9])], [vi("p", None), vi("q", None), vi("g", None)], [w], 11)
    check_against_onnx(model, RNG.standard_normal((1, 4, 9, 9)).astype(np.float32), rtol=1e-4, atol=1e-5)


def test_compile_onnx_file(tmp_path) -> None:
    model = make([helper.make_node("Tanh", ["x"], ["y"])], [vi("x", [2, 2])], [vi("y", [2, 2])])
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    x = RNG.standard_normal((2, 2)).astype(np.float32)
    np.testing.assert_allclose(graphopt.compile(str(path))["main"](x), np.tanh(x), rtol=1e-5)
