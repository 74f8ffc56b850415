"""The reverse walk: accumulation at fan-out, wrt, zeros, errors, graph size."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.irdl import VarConstraint, base, irdl_op_definition, operand_def, result_def

from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp
from graphopt.dialects.graph import AddNOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from graphopt.transforms.autodiff import GradientError, add_gradient
from graphopt.testing.gradcheck import build_module, check_vjp

RNG = np.random.default_rng(7)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def op_counts(fn: func.FuncOp) -> Counter:
    return Counter(op.name for op in fn.body.block.ops)


def backward_counts(module, grad_fn: func.FuncOp) -> Counter:
    forward = next(f for f in module.ops if isinstance(f, func.FuncOp) and f is not grad_fn)
    return op_counts(grad_fn) - op_counts(forward)


# -- accumulation ------------------------------------------------------------------


def test_x_times_x() -> None:
    x = randn(3, 4)
    module = build_module(lambda b, a: b.mul(a[0], a[0]), [x])
    check_vjp(module, [x], rng=RNG)
    grad_fn = add_gradient(module.clone(), "f")
    assert op_counts(grad_fn)["graph.add_n"] == 1


def test_x_used_five_times() -> None:
    def build(b, a):
        x = a[0]
        terms = [b.exp(x), b.tanh(x), b.mul(x, x), b.neg(x)]  # five uses of x
        total = terms[0]
        for t in terms[1:]:
            total = b.add(total, t)
        return total

    x = randn(2, 3)
    module = build_module(build, [x])
    check_vjp(module, [x], rng=RNG)
    m = module.clone()
    grad_fn = add_gradient(m, "f")
    sums = [op for op in grad_fn.body.block.ops if isinstance(op, AddNOp)]
    assert [len(op.operands) for op in sums] == [5]  # ONE n-ary sum, not a chain


def test_diamond() -> None:
    def build(b, a):
        top = b.tanh(a[0])
        return b.mul(b.exp(top), b.sigmoid(top))

    x = randn(4)
    module = build_module(build, [x])
    check_vjp(module, [x], rng=RNG)
    grad_fn = add_gradient(module.clone(), "f")
    assert op_counts(grad_fn)["graph.add_n"] == 1
    # The anchor is differentiated once: one t*t of the tanh rule.
    squares = [
        op for op in grad_fn.body.block.ops
        if isinstance(op, graph.MulOp) and op.lhs is op.rhs and isinstance(op.lhs.owner, graph.TanhOp)
    ]
    assert len(squares) == 1


def test_several_outputs_only_some_depend_on_x() -> None:
    def build(b, a):
        return b.tanh(a[0]), b.exp(a[1]), b.mul(a[0], a[1])

    x, y = randn(3), randn(3)
    module = build_module(build, [x, y])
    check_vjp(module, [x, y], rng=RNG)
    check_vjp(module, [x, y], wrt=[0], rng=RNG)


# -- wrt ----------------------------------------------------------------------------


def _mlp_module():
    b = GraphBuilder("f")
    x = b.input((4, 3), np.float64, name="x")
    w1 = b.input((3, 5), np.float64, name="w1")
    w2 = b.input((5, 2), np.float64, name="w2")
    h = b.tanh(b.matmul(x, w1))
    return b.build(b.reduce_sum(b.matmul(h, w2)))


@pytest.mark.parametrize(
    "wrt,matmuls",
    [
        (["w2"], 1),  # dW2 = hᵀ g only
        (["w1"], 2),  # dh, then dW1
        (["w1", "w2"], 3),
        (["x", "w1", "w2"], 4),
        ([0], 3),  # x by index: dh, dx... and no weight gradients
    ],
)
def test_only_requested_gradients_are_built(wrt, matmuls) -> None:
    module = _mlp_module()
    grad_fn = add_gradient(module, "f", wrt, seed="ones")
    assert backward_counts(module, grad_fn)["graph.matmul"] == (matmuls if wrt != [0] else 2)
    assert len(grad_fn.function_type.outputs.data) == 1 + len(wrt)


def test_default_wrt_is_every_float_argument() -> None:
    b = GraphBuilder("f")
    x = b.input((3,), np.float64, name="x")
    n = b.input((3,), np.int32, name="n")
    module = b.build(b.mul(x, x), n)
    grad_fn = add_gradient(module, "f")
    # Arguments: x, n, one head gradient (the int output gets none).
    assert [str(t) for t in grad_fn.function_type.inputs.data] == [
        "tensor<3xf64>", "tensor<3xi32>", "tensor<3xf64>"
    ]
    assert len(grad_fn.function_type.outputs.data) == 3


def test_unused_input_gets_zeros() -> None:
    b = GraphBuilder("f")
    x = b.input((3,), np.float64, name="x")
    b.input((2, 2), np.float64, name="unused")
    module = b.build(b.reduce_sum(b.exp(x)))
    add_gradient(module, "f", ["x", "unused"], seed="ones")
    xv = randn(3)
    loss, dx, dz = interpret(module, xv, randn(2, 2), entry="f_grad")
    np.testing.assert_allclose(dx, np.exp(xv))
    assert dz.shape == (2, 2) and not dz.any()


def test_non_float_wrt_is_an_error() -> None:
    b = GraphBuilder("f")
    b.input((3,), np.int32, name="n")
    x = b.input((3,), np.float64, name="x")
    module = b.build(b.exp(x))
    with pytest.raises(GradientError, match="only float tensors have gradients"):
        add_gradient(module, "f", ["n"])
    with pytest.raises(GradientError, match="no argument %nope"):
        add_gradient(module, "f", ["nope"])


# -- a missing rule -----------------------------------------------------------------


@irdl_op_definition
class CubeOp(GraphOp):
    """A test op with no gradient rule."""

    name = "test.cube"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)

    def __init__(self, x):
        super().__init__(operands=[x], result_types=[x.type])

    def inferred_result_types(self):
        return [self.input.type]

    def reference(self, *inputs):
        return [inputs[0] ** 3]


def test_missing_rule_names_the_op() -> None:
    b = GraphBuilder("f")
    x = b.input((3,), np.float64, name="x")
    module = b.build(b.exp(b.apply(CubeOp(b.tanh(x)))))
    with pytest.raises(GradientError, match=r"test\.cube has no gradient rule"):
        add_gradient(module, "f")


def test_missing_rule_off_the_path_is_fine() -> None:
    """An op without a rule only matters if a gradient flows through it."""
    b = GraphBuilder("f")
    x = b.input((3,), np.float64, name="x")
    c = b.input((3,), np.float64, name="c")
    module = b.build(b.mul(x, b.apply(CubeOp(c))))
    add_gradient(module, "f", ["x"], seed="ones")
    xv, cv = randn(3), randn(3)
    _, dx = interpret(module, xv, cv, entry="f_grad")
    np.testing.assert_allclose(dx, cv**3)


# -- size ---------------------------------------------------------------------------


def _deep(depth: int):
    b = GraphBuilder("f")
    h = b.input((2, 4), np.float64, name="x")
    ws = [b.input((4, 4), np.float64, name=f"w{i}") for i in range(depth)]
    for w in ws:
        h = b.tanh(b.matmul(h, w))
    module = b.build(b.reduce_sum(h))
    return module, add_gradient(module, "f", [f"w{i}" for i in range(depth)], seed="ones")


def test_backward_size_is_linear_in_depth() -> None:
    sizes = {}
    for depth in (1, 2, 10):
        module, grad_fn = _deep(depth)
        back = backward_counts(module, grad_fn)
        forward_matmuls = op_counts(grad_fn)["graph.matmul"] - back["graph.matmul"]
        assert back["graph.matmul"] <= 2 * forward_matmuls
        sizes[depth] = sum(back.values())
    per_layer = sizes[2] - sizes[1]
    assert sizes[10] - sizes[2] == 8 * per_layer
    assert sizes[10] <= 10 * sizes[1]


def test_every_graph_op_has_a_gradient_rule() -> None:
    """Every op of the dialect has a rule (possibly "no gradient", for
    comparisons, argmax, constants...), except the documented second-order ones."""
    from graphopt.transforms.autodiff import gradient_rule_for
    from graphopt.rules import GRADIENT

    without = {cls.name for cls in graph.GRAPH_OPS if GRADIENT.lookup(cls) is None}
    assert without == {"graph.max_pool2d_grad", "graph.lrn_grad"}
    assert gradient_rule_for(CubeOp(GraphBuilder("t").input((1,), np.float64))) is None
