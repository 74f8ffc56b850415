"""The graph dialect's shared op machinery: the constructor's Python property
values and inferred result types, ``PropertyValue`` accessors, ``AxisOp``'s
axis reading, and an op defined the way a plugin defines one."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, UnitAttr, i64
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects import graph
from graphopt.dialects.graph import f64_attr, tensor
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret


def test_python_property_values_become_the_declared_attributes() -> None:
    b = GraphBuilder()
    x = b.input((1, 3, 8, 8))
    op = graph.AvgPool2dOp(x, (2, 2), strides=(2, 2), count_include_pad=True)
    assert op.properties["kernel"] == DenseArrayBase.from_list(i64, [2, 2])
    assert isinstance(op.properties["count_include_pad"], UnitAttr)
    assert "dilations" not in op.properties and "ceil_mode" not in op.properties
    assert list(op.properties) == ["kernel", "strides", "padding", "count_include_pad"]  # printed order
    assert op.result.type == tensor((1, 3, 4, 4))
    drop = graph.DropoutOp(x, rate=1, seed=3)
    assert drop.properties["rate"] == f64_attr(1.0) and drop.properties["seed"] == IntegerAttr(3, i64)
    assert "training" not in drop.properties and drop.is_training is False


def test_constructor_and_verifier_infer_the_same_types() -> None:
    b = GraphBuilder()
    x = b.input((4, 6))
    for op in (graph.SplitOp(x, 3, axis=1), graph.BatchNormTrainOp(b.input((2, 4, 3)), b.input((4,)), b.input((4,)))):
        assert [r.type for r in op.results] == list(op.inferred_result_types())
    with pytest.raises(VerifyException, match="graph.split: sizes"):
        graph.SplitOp(x, [2, 2], axis=1)


def test_a_property_the_op_does_not_have_is_refused() -> None:
    x = GraphBuilder().input((4,))
    with pytest.raises(TypeError, match="no property 'axis'"):
        graph.GraphOp.__init__(graph.ReluOp.__new__(graph.ReluOp), operands=[x], properties={"axis": 0})


def test_property_values_read_with_defaults() -> None:
    x = GraphBuilder().input((1, 2, 6, 6))
    pool = graph.MaxPool2dOp(x, (3, 3))
    assert pool.dilation_values == (1, 1) and pool.kernel_values == (3, 3) and pool.is_ceil_mode is False
    assert isinstance(pool.properties["strides"], DenseArrayBase) and pool.stride_values == (1, 1)
    assert graph.LeakyReluOp(x, 0.25).alpha_value == 0.25
    assert isinstance(graph.LeakyReluOp(x).properties["alpha"], FloatAttr)


def test_axis_ops_read_their_axis_one_way() -> None:
    b = GraphBuilder()
    x = b.input((2, 3, 4))
    assert graph.ArgmaxOp(x, axis=-1).normalized_axis == 2
    assert graph.ConcatOp([x, x], axis=-2).normalized_axis == 1
    assert graph.FlattenOp(x, axis=3).normalized_axis == 3  # flatten may split after the last axis
    with pytest.raises(VerifyException, match="graph.argmax: axis 3 is out of range for rank 3"):
        graph.ArgmaxOp(x, axis=3)


@irdl_op_definition
class CubeOp(graph.UnaryElementwiseOp):
    name = "test.cube"
    NUMPY_FN = staticmethod(lambda x: x * x * x)


def test_an_elementwise_op_is_its_name_and_numpy_function() -> None:
    b = GraphBuilder()
    x = b.input((3,), name="x")
    module = b.build(b.apply(CubeOp(x)))
    assert CubeOp.FUSE_PATTERN == graph.UnaryElementwiseOp.FUSE_PATTERN
    (y,) = interpret(module, np.array([1.0, -2.0, 3.0], np.float32))
    np.testing.assert_array_equal(y, [1.0, -8.0, 27.0])
    with pytest.raises(VerifyException, match="test.cube: operand #0 has element type i32"):
        b2 = GraphBuilder()
        b2.build(b2.apply(CubeOp(b2.input((3,), np.int32))))
