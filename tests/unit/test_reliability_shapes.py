"""Every op at rank 0 and with a zero-size dimension (issue 15, items 5, 6):
the reference returns exactly the declared result shape, and the compiled
code (-O0 and -O3, which runs every graph-level pass of the pipelines)
matches it.  With constant operands, fold-constants evaluates each op, so
the folded constants (empty ones included) must lower too."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret

from reliability_catalog import NOT_APPLICABLE_RANK0, cases


def _module(build, inputs, constant_operands: bool = False):
    b = GraphBuilder("f")
    if constant_operands:
        args = [b.constant(np.asarray(a)) for a in inputs]
    else:
        args = [b.input(np.shape(a), np.asarray(a).dtype) for a in inputs]
    out = build(b, args)
    return b.build(*(out if isinstance(out, tuple) else (out,)))


def _check(module, inputs, levels) -> None:
    fn = next(iter(module.ops))
    want = interpret(module, *inputs)
    for w, t in zip(want, fn.function_type.outputs.data, strict=True):
        assert isinstance(w, np.ndarray) and w.shape == tuple(t.get_shape())
    for level in levels:
        got = graphopt.compile(module, opt_level=level)["f"](*inputs)
        got = list(got) if isinstance(got, tuple) else [got]
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype, f"-O{level}"
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"-O{level}")


def _ids(kind):
    return [c[0] for c in cases(kind)]


@pytest.mark.parametrize("case", cases("rank0"), ids=_ids("rank0"))
def test_rank0(case) -> None:
    _, build, inputs = case
    _check(_module(build, inputs), inputs, (0, 3))


@pytest.mark.parametrize("case", cases("empty"), ids=_ids("empty"))
def test_zero_size(case) -> None:
    _, build, inputs = case
    _check(_module(build, inputs), inputs, (0, 3))


@pytest.mark.parametrize("kind", ["rank0", "empty"])
def test_folded_constants_lower(kind) -> None:
    """All operands constant: -O1 folds each op to a constant of its result
    type (0-d and empty ones included), and those constants compile."""
    for name, build, inputs in cases(kind):
        module = _module(build, inputs, constant_operands=True)
        try:
            _check(module, [], (1,))
        except Exception as err:  # pragma: no cover - names the failing case
            raise AssertionError(f"{kind} case {name}: {err}") from err


@pytest.mark.parametrize("name", sorted(NOT_APPLICABLE_RANK0))
def test_rank0_not_applicable_is_a_verify_error(name) -> None:
    words, build, inputs = NOT_APPLICABLE_RANK0[name]
    with pytest.raises(VerifyException, match=words):
        _module(build, inputs)


@pytest.mark.parametrize("kind", ["rank0", "empty"])
def test_autodiff_and_graph_passes(kind) -> None:
    """autodiff, decompose and plan-devices on every case: the gradient
    function runs (reference and compiled) and keeps its shapes."""
    from graphopt.runtime.compile import run_pipeline
    from graphopt.transforms.autodiff import add_gradient
    from graphopt.transforms.autodiff.rules import GradientError

    for name, build, inputs in cases(kind):
        module = _module(build, inputs)
        try:
            add_gradient(module, "f", None, "ones")
        except GradientError as err:
            assert "has no gradient rule" in str(err), name  # max_pool2d_grad
            continue
        want = interpret(module, *inputs, entry="f_grad")
        got = graphopt.compile(module, opt_level=2)["f_grad"](*inputs)
        got = list(got) if isinstance(got, tuple) else [got]
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, name
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=name)
        for spec in ("decompose", "plan-devices", "O3"):
            m = module.clone()
            run_pipeline(m, spec)
            for g, w in zip(interpret(m, *inputs, entry="f_grad"), want, strict=True):
                np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"{name} after {spec}")
