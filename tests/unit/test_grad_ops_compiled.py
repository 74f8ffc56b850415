"""The convolution backward ops, compiled, match their reference semantics
over strides, padding, dilation and groups (both the row-buffer form, used
for column stride 1, and the dot-product form: these channel counts are too
small for the GEMM schedules, which test_conv_grad_gemm.py covers)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import memref

import graphopt
from graphopt.dialects.graph import Conv2dGradFilterOp, Conv2dGradInputOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.reference import interpret

CASES = [
    # x shape, w shape, strides, padding, dilations, groups
    ((1, 2, 5, 5), (3, 2, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 2, 6, 5), (3, 2, 3, 2), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ((1, 2, 7, 6), (2, 2, 3, 3), (2, 3), (1, 0, 2, 1), (1, 1), 1),
    ((1, 2, 7, 7), (2, 2, 2, 3), (1, 2), (0, 1, 1, 0), (2, 2), 1),
    ((1, 4, 5, 5), (4, 2, 3, 3), (2, 1), (1, 1, 0, 0), (1, 1), 2),
    ((1, 3, 4, 4), (3, 1, 2, 2), (1, 1), (1, 1, 1, 1), (1, 1), 3),
    ((2, 4, 9, 11), (6, 2, 3, 3), (1, 1), (1, 2, 1, 0), (1, 2), 2),
    ((1, 3, 8, 8), (5, 3, 5, 5), (2, 1), (2, 2, 2, 2), (1, 1), 1),
]


def conv_output_shape(xs, ws, strides, padding, dilations, groups):
    b = GraphBuilder("shape")
    y = b.conv2d(b.input(xs), b.input(ws), strides, padding, dilations, groups)
    return tuple(y.type.get_shape())


@pytest.mark.parametrize("grad", ["input", "filter"])
@pytest.mark.parametrize("xs,ws,strides,padding,dilations,groups", CASES)
def test_conv2d_grad(grad, xs, ws, strides, padding, dilations, groups) -> None:
    """``dx`` from (g, w), or ``dw`` from (x, g): compiled == reference; the
    input gradient uses the row buffer exactly for column stride 1."""
    rng = np.random.default_rng(1 if grad == "input" else 2)
    ys = conv_output_shape(xs, ws, strides, padding, dilations, groups)
    other_shape = ws if grad == "input" else xs  # the operand besides g
    other = rng.standard_normal(other_shape).astype(np.float32)
    g = rng.standard_normal(ys).astype(np.float32)
    b = GraphBuilder("f")
    oa, ga = b.input(other_shape), b.input(ys)
    window = dict(strides=strides, padding=padding, dilations=dilations, groups=groups)
    if grad == "input":
        op, args, tol = Conv2dGradInputOp(ga, oa, xs, **window), (other, g), 1e-5
    else:
        op, args, tol = Conv2dGradFilterOp(oa, ga, ws[2:], **window), (other, g), 1e-4
    module = b.build(b.apply(op))
    (want,) = interpret(module, *args)
    np.testing.assert_allclose(graphopt.compile(module)["f"](*args), want, rtol=tol, atol=tol)
    if grad == "input":
        lowered = module.clone()
        lower_graph_to_loop(lowered)
        uses_row = any(isinstance(op, memref.AllocaOp) for op in lowered.walk())
        assert uses_row == (strides[1] == 1 and xs[3] >= 4)
