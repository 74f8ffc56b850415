"""fold-constants: values against numpy, splats kept small, never-fold rules."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.transforms.dead_code_elimination import dce

from graphopt.dialects import graph
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret
from xdsl.irdl import irdl_op_definition, traits_def

from graphopt.dialects.graph import UnaryElementwiseOp
from graphopt.dialects.traits import NeverFolded
from graphopt.transforms.fold_constants import FoldConstantsPass, fold_constants


@irdl_op_definition
class FrozenTanhOp(UnaryElementwiseOp):
    """A plugin-style op that declares it is never folded."""

    name = "test.frozen_tanh"
    traits = traits_def(NeverFolded())
    NUMPY_FN = staticmethod(np.tanh)


def ops_of(module, cls):
    """The ``cls`` ops left once ``dce`` has swept the producers folding left dead."""
    dce(module)
    return [op for op in module.walk() if isinstance(op, cls)]


def test_folds_a_chain_to_numpy_values() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = GraphBuilder("f")
    x = b.input((2, 3))
    c = b.constant(a)
    folded = b.softmax(b.add(b.matmul(c, b.transpose(c, [1, 0])), b.splat((), 1.0)))
    module = b.build(b.mul(x, b.reduce_sum(folded, [1], keepdims=True)))
    assert fold_constants(module) == 5
    module.verify()
    consts = ops_of(module, graph.ConstantOp)
    assert len(consts) == 1
    logits = a @ a.T + 1
    e = np.exp(logits - logits.max(1, keepdims=True))
    want = (e / e.sum(1, keepdims=True)).sum(1, keepdims=True)
    np.testing.assert_allclose(consts[0].reference()[0], want, rtol=1e-6)
    xv = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(interpret(module, xv)[0], xv * want, rtol=1e-6)


def test_splat_inputs_never_materialise(monkeypatch) -> None:
    b = GraphBuilder("f")
    big = b.splat((4096, 4096), 3.0)
    module = b.build(b.sigmoid(b.add(big, b.splat((4096,), 1.0))))

    def boom(self, *inputs):
        raise AssertionError("a splat was materialised")

    monkeypatch.setattr(graph.ConstantOp, "reference", boom)
    assert fold_constants(module) == 2
    (c,) = ops_of(module, graph.ConstantOp)
    assert c.is_splat
    assert c.splat.value.data == pytest.approx(1 / (1 + np.exp(-4.0)), rel=1e-6)


def test_integer_and_bool_results() -> None:
    b = GraphBuilder("f")
    i = b.constant(np.array([3, -4, 5], np.int32))
    module = b.build(b.relu(b.neg(i)))
    fold_constants(module)
    (c,) = ops_of(module, graph.ConstantOp)
    np.testing.assert_array_equal(c.reference()[0], np.array([0, 4, 0], np.int32))


def test_max_elements_limits_dense_results() -> None:
    b = GraphBuilder("f")
    c = b.constant(np.arange(8, dtype=np.float32))
    module = b.build(b.neg(c))
    assert fold_constants(module, max_elements=4) == 0
    assert fold_constants(module, max_elements=8) == 1


def test_random_and_copy_ops_survive() -> None:
    b = GraphBuilder("f")
    c = b.constant(np.arange(4, dtype=np.float32))
    d = b.dropout(c, rate=0.5, seed=1, training=True)
    k = b.copy(c, device="cpu")
    module = b.build(d, k)
    assert fold_constants(module) == 0
    assert ops_of(module, graph.DropoutOp) and ops_of(module, graph.CopyOp)


def test_never_folded_trait() -> None:
    b = GraphBuilder("f")
    c = b.constant(np.arange(3, dtype=np.float32))
    frozen = b.apply(FrozenTanhOp(c))
    module = b.build(frozen, b.tanh(c))
    assert fold_constants(module) == 1
    assert len(ops_of(module, FrozenTanhOp)) == 1 and not ops_of(module, graph.TanhOp)


def test_fill_becomes_a_splat() -> None:
    b = GraphBuilder("f")
    module = b.build(b.fill((2000, 2000), 2.5))
    p = FoldConstantsPass()
    p.apply(None, module)  # type: ignore[arg-type]
    (c,) = ops_of(module, graph.ConstantOp)
    assert c.is_splat and c.splat.value.data == 2.5
    assert p.statistics == {"folded": 1}
