"""decompose and fold-batch-norm: the primitives compute what the composite did.

Tests of ops the dialect does not define are skipped.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphopt.dialects import graph
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from graphopt.rules import DECOMPOSITION
from graphopt.transforms.decompose import DecomposePass, decompose
from graphopt.transforms.fold_batch_norm import fold_batch_norm

RNG = np.random.default_rng(11)


def need(name: str):
    cls = graph.op_class_by_name(name)
    assert cls is not None, f"graph.{name} is not a graph op"
    return cls


def names(module):
    return {op.name for op in module.walk() if op.name.startswith("graph.")}


def check_decomposes(module, op_name: str, inputs, rtol=1e-5, atol=1e-6) -> None:
    want = interpret(module, *inputs)
    assert decompose(module, [op_name]) >= 1
    module.verify()
    assert f"graph.{op_name}" not in names(module)
    for g, w in zip(interpret(module, *inputs), want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax(axis: int, dtype) -> None:
    b = GraphBuilder("f")
    x = b.input((3, 5), dtype)
    module = b.build(b.softmax(x, axis))
    xs = (RNG.standard_normal((3, 5)) * 30).astype(dtype)  # large logits stay stable
    check_decomposes(module, "softmax", [xs])


def test_only_selected_ops() -> None:
    b = GraphBuilder("f")
    x = b.input((3, 5))
    module = b.build(b.softmax(x))
    assert decompose(module, ["gelu"]) == 0
    assert "graph.softmax" in names(module)


def test_option_validation() -> None:
    assert DecomposePass().op_classes == tuple(DECOMPOSITION)
    assert DecomposePass().ops == ("softmax", "log_softmax", "layer_norm", "batch_norm", "gelu")
    with pytest.raises(ValueError, match="unknown op 'conv2d'"):
        DecomposePass(ops=("conv2d",))


def test_log_softmax() -> None:
    need("log_softmax")
    b = GraphBuilder("f")
    x = b.input((4, 6))
    module = b.build(b.log_softmax(x, axis=-1))
    check_decomposes(module, "log_softmax", [RNG.standard_normal((4, 6)).astype(np.float32)])


def test_gelu() -> None:
    need("gelu")
    b = GraphBuilder("f")
    x = b.input((4, 6))
    module = b.build(b.gelu(x))
    check_decomposes(module, "gelu", [RNG.standard_normal((4, 6)).astype(np.float32)])


def test_layer_norm() -> None:
    need("layer_norm")
    b = GraphBuilder("f")
    x = b.input((4, 6))
    g = b.constant(RNG.standard_normal(6).astype(np.float32))
    beta = b.constant(RNG.standard_normal(6).astype(np.float32))
    module = b.build(b.layer_norm(x, g, beta))
    check_decomposes(module, "layer_norm", [RNG.standard_normal((4, 6)).astype(np.float32)], 1e-4, 1e-5)


def _bn_params(c: int):
    return (
        RNG.standard_normal(c).astype(np.float32),
        RNG.standard_normal(c).astype(np.float32),
        RNG.standard_normal(c).astype(np.float32),
        (RNG.random(c) + 0.5).astype(np.float32),
    )


def test_batch_norm_decompose_and_fold_into_matmul() -> None:
    need("batch_norm")
    b = GraphBuilder("f")
    x = b.input((4, 6))
    w = b.constant(RNG.standard_normal((6, 3)).astype(np.float32))
    y = b.batch_norm(b.matmul(x, w), *[b.constant(p) for p in _bn_params(3)])
    module = b.build(y)
    xs = [RNG.standard_normal((4, 6)).astype(np.float32)]
    want = interpret(module, *xs)
    folded = module.clone()
    assert fold_batch_norm(folded) == 1
    folded.verify()
    assert "graph.batch_norm" not in names(folded)
    np.testing.assert_allclose(interpret(folded, *xs)[0], want[0], rtol=1e-4, atol=1e-5)
    check_decomposes(module, "batch_norm", xs, 1e-4, 1e-5)


def test_batch_norm_fold_into_conv() -> None:
    need("batch_norm")
    need("conv2d")
    b = GraphBuilder("f")
    x = b.input((2, 3, 6, 6))
    w = b.constant(RNG.standard_normal((4, 3, 3, 3)).astype(np.float32))
    y = b.batch_norm(b.conv2d(x, w), *[b.constant(p) for p in _bn_params(4)])
    module = b.build(b.relu(y))
    xs = [RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)]
    want = interpret(module, *xs)
    assert fold_batch_norm(module) == 1
    module.verify()
    assert "graph.batch_norm" not in names(module)
    np.testing.assert_allclose(interpret(module, *xs)[0], want[0], rtol=1e-4, atol=1e-4)


def test_fold_batch_norm_needs_constant_weights() -> None:
    need("batch_norm")
    b = GraphBuilder("f")
    x = b.input((4, 6))
    w = b.input((6, 3))
    module = b.build(b.batch_norm(b.matmul(x, w), *[b.constant(p) for p in _bn_params(3)]))
    assert fold_batch_norm(module) == 0
