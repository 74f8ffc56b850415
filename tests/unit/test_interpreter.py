"""The reference interpreter: whole functions against direct numpy, fused
groups and calls, and input checking."""

from __future__ import annotations

import re

import numpy as np
import pytest

from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import InputError, ReferenceInterpreter, check_inputs, interpret

RNG = np.random.default_rng(99)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# --------------------------------------------------------------------------
# an MLP built with GraphBuilder
# --------------------------------------------------------------------------


def test_mlp_matches_numpy() -> None:
    w1 = RNG.standard_normal((16, 32)).astype(np.float32) * 0.3
    b1 = RNG.standard_normal(32).astype(np.float32)
    w2 = RNG.standard_normal((32, 10)).astype(np.float32) * 0.3
    b2 = RNG.standard_normal(10).astype(np.float32)

    b = GraphBuilder("mlp")
    x = b.input((8, 16), name="x")
    h = b.relu(b.add(b.matmul(x, b.constant(w1)), b.constant(b1)))
    logits = b.add(b.matmul(h, b.constant(w2)), b.constant(b2))
    module = b.build(b.softmax(logits), b.reduce_max(logits, (-1,)))

    data = RNG.standard_normal((8, 16)).astype(np.float32)
    probs, top = interpret(module, data)

    want_logits = np.maximum(data @ w1 + b1, 0) @ w2 + b2
    assert probs.dtype == np.float32 and probs.shape == (8, 10)
    np.testing.assert_allclose(probs, softmax(want_logits.astype(np.float64)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(top, want_logits.max(axis=-1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, rtol=1e-6)


def test_inputs_are_not_modified_and_may_be_non_contiguous() -> None:
    b = GraphBuilder("f")
    x = b.input((3, 4), name="x")
    module = b.build(b.neg(b.transpose(x)))
    data = np.asfortranarray(RNG.standard_normal((3, 4)).astype(np.float32))
    before = data.copy()
    (out,) = interpret(module, data)
    np.testing.assert_array_equal(data, before)
    np.testing.assert_array_equal(out, -before.T)


def test_same_value_used_twice_and_multiple_results() -> None:
    b = GraphBuilder("f")
    x = b.input((5,), name="x")
    e = b.exp(x)
    module = b.build(b.mul(e, e), e, x)
    data = RNG.standard_normal(5).astype(np.float32)
    sq, e_out, x_out = interpret(module, data)
    np.testing.assert_allclose(sq, np.exp(data) ** 2, rtol=1e-6)
    np.testing.assert_allclose(e_out, np.exp(data), rtol=1e-6)
    np.testing.assert_array_equal(x_out, data)


# --------------------------------------------------------------------------
# hand-written IR with fused.group and func.call
# --------------------------------------------------------------------------

GROUPS_AND_CALLS = """
func.func private @layer(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = fused.group "matmul_add_relu" pattern(out_ewise_fusable) (%a = %x : tensor<4x8xf32>, %ww = %w : tensor<8x3xf32>, %bb = %b : tensor<3xf32>) -> (tensor<4x3xf32>) {
    %m = graph.matmul %a, %ww : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %s = graph.add %m, %bb : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    %y = graph.relu %s : tensor<4x3xf32>
    fused.yield %y : tensor<4x3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

func.func @model(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> (tensor<4x3xf32>, tensor<4xf32>) {
  %b = graph.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %h = func.call @layer(%x, %w, %b) : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %p, %s = fused.group "softmax_sum" pattern(comm_reduce) (%a = %h : tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4xf32>) {
    %sm = graph.softmax %a {axis = -1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %sum = graph.reduce_sum %a {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
    fused.yield %sm, %sum : tensor<4x3xf32>, tensor<4xf32>
  }
  func.return %p, %s : tensor<4x3xf32>, tensor<4xf32>
}
"""


def test_fused_groups_and_calls(parse_graph_module) -> None:
    module = parse_graph_module(GROUPS_AND_CALLS)
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    w = RNG.standard_normal((8, 3)).astype(np.float32)
    bias = np.array([0.5, -1.0, 2.0], np.float32)

    # @layer is private, so @model is the only entry point.
    probs, sums = interpret(module, x, w)
    hidden = np.maximum(x @ w + bias, 0)
    np.testing.assert_allclose(probs, softmax(hidden), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sums, hidden.sum(axis=1), rtol=1e-5, atol=1e-6)

    # A private function can still be run by name.
    (layer,) = interpret(module, x, w, bias, entry="layer")
    np.testing.assert_allclose(layer, hidden, rtol=1e-5, atol=1e-6)


def test_interpreter_object_runs_several_functions(parse_graph_module) -> None:
    interp = ReferenceInterpreter(parse_graph_module(GROUPS_AND_CALLS))
    assert set(interp.functions) == {"layer", "model"}
    x = np.ones((4, 8), np.float32)
    w = np.ones((8, 3), np.float32)
    probs, sums = interp.run("model", x, w)
    np.testing.assert_allclose(sums, [8.5 + 7.0 + 10.0] * 4, rtol=1e-6)
    np.testing.assert_allclose(probs, np.tile(softmax(np.array([8.5, 7.0, 10.0])), (4, 1)), rtol=1e-5)


def test_nested_calls_and_empty_group(parse_graph_module) -> None:
    module = parse_graph_module(
        """
        func.func private @twice(%x: tensor<3xi32>) -> tensor<3xi32> {
          %y = graph.add %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
          func.return %y : tensor<3xi32>
        }
        func.func private @quad(%x: tensor<3xi32>) -> tensor<3xi32> {
          %y = func.call @twice(%x) : (tensor<3xi32>) -> tensor<3xi32>
          %z = func.call @twice(%y) : (tensor<3xi32>) -> tensor<3xi32>
          func.return %z : tensor<3xi32>
        }
        func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
          fused.group "noop" pattern(opaque) () -> () {
            fused.yield
          }
          %r = func.call @quad(%x) : (tensor<3xi32>) -> tensor<3xi32>
          func.return %r : tensor<3xi32>
        }
        """
    )
    (out,) = interpret(module, np.array([1, -2, 3], np.int32))
    np.testing.assert_array_equal(out, [4, -8, 12])
    assert out.dtype == np.int32


def test_unsupported_op(graph_ctx) -> None:
    from xdsl.dialects.arith import Arith
    from xdsl.parser import Parser

    graph_ctx.load_dialect(Arith)
    module = Parser(
        graph_ctx,
        """
        func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
          %c = arith.constant 1.0 : f32
          func.return %x : tensor<2xf32>
        }
        """,
    ).parse_module()
    with pytest.raises(NotImplementedError, match="the reference interpreter cannot run arith.constant"):
        interpret(module, np.zeros(2, np.float32))


# --------------------------------------------------------------------------
# input errors
# --------------------------------------------------------------------------


def two_input_module():
    b = GraphBuilder("f")
    x = b.input((4, 8), name="x")
    y = b.input((8,), np.int32)
    return b.build(b.exp(x), b.neg(y))


def test_wrong_shape_names_the_argument() -> None:
    module = two_input_module()
    with pytest.raises(
        InputError,
        match=re.escape("@f: argument 0 (%x): expected (4, 8) float32, got (3, 5) float32"),
    ):
        interpret(module, np.zeros((3, 5), np.float32), np.zeros(8, np.int32))


def test_wrong_dtype_names_the_argument() -> None:
    module = two_input_module()
    with pytest.raises(
        InputError,
        match=re.escape("@f: argument 0 (%x): expected (4, 8) float32, got (4, 8) float64"),
    ):
        interpret(module, np.zeros((4, 8)), np.zeros(8, np.int32))


def test_unnamed_argument_is_named_by_position() -> None:
    module = two_input_module()
    with pytest.raises(InputError, match=re.escape("@f: argument 1: expected (8,) int32, got (8,) int64")):
        interpret(module, np.zeros((4, 8), np.float32), np.zeros(8, np.int64))


def test_wrong_input_count() -> None:
    module = two_input_module()
    with pytest.raises(InputError, match="@f takes 2 inputs, got 1"):
        interpret(module, np.zeros((4, 8), np.float32))
    with pytest.raises(InputError, match="@f takes 2 inputs, got 3"):
        interpret(module, *[np.zeros(1)] * 3)


def test_scalar_input() -> None:
    b = GraphBuilder("f")
    s = b.input((), name="s")
    module = b.build(b.mul(s, b.splat((2,), 3.0)))
    (out,) = interpret(module, np.float32(2.0))
    np.testing.assert_array_equal(out, [6.0, 6.0])
    with pytest.raises(InputError, match=re.escape("@f: argument 0 (%s): expected () float32, got (1,) float32")):
        interpret(module, np.array([2.0], np.float32))


def test_check_inputs_returns_c_contiguous_arrays() -> None:
    from graphopt.dialects.graph import tensor

    (arr,) = check_inputs("f", [tensor((2, 3))], [np.asfortranarray(np.ones((2, 3), np.float32))])
    assert arr.flags["C_CONTIGUOUS"]


def test_choosing_the_entry_function(parse_graph_module) -> None:
    module = parse_graph_module(
        """
        func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
          func.return %x : tensor<2xf32>
        }
        func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
          %y = graph.neg %x : tensor<2xf32>
          func.return %y : tensor<2xf32>
        }
        """
    )
    data = np.array([1.0, 2.0], np.float32)
    with pytest.raises(InputError, match="the module has several functions \\(@a, @b\\); choose one with --entry"):
        interpret(module, data)
    np.testing.assert_array_equal(interpret(module, data, entry="b")[0], -data)
    with pytest.raises(InputError, match="no function @c in the module"):
        interpret(module, data, entry="c")


def test_module_without_public_function(parse_graph_module) -> None:
    module = parse_graph_module(
        """
        func.func private @hidden(%x: tensor<2xf32>) -> tensor<2xf32> {
          func.return %x : tensor<2xf32>
        }
        """
    )
    with pytest.raises(InputError, match="the module has no public function"):
        interpret(module, np.zeros(2, np.float32))
