"""The conv backward schedules (lowering/conv_grad.py): conv2d_grad_input as
the transposed conv and conv2d_grad_filter as a GEMM over the pixels, on the
FMA micro-kernels, against a float64 numpy reference over strides, paddings,
dilations, groups, remainder tiles and panels, constant (packed at compile
time) and input weights, a fused epilogue; bitwise equal at 1 and 2 threads
(every loop the schedule can split made parallel), and no less accurate
than the scalar loops they replace."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, vector

import graphopt
from graphopt.dialects.graph import Conv2dGradFilterOp, Conv2dGradInputOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering import conv_grad
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.transforms.autodiff import add_training_step
from test_conv_gemm import uses_micro_kernel
from threads_check import call_threaded, compile_threaded

# x shape, w shape, strides, padding, dilations, groups
CASES = [
    ((1, 32, 12, 11), (40, 32, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # 11-pixel rows, a 8-wide tail panel
    ((2, 32, 13, 10), (48, 16, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 2),  # stride 2, two images, two groups
    ((1, 20, 15, 14), (20, 20, 3, 2), (1, 2), (0, 1, 2, 0), (2, 1), 1),  # uneven stride/pads, dilation, even kernel
    ((1, 16, 17, 16), (32, 16, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),  # 1x1 stride 2 (odd input: an unread row)
    ((1, 16, 23, 23), (16, 16, 5, 5), (3, 3), (2, 2, 2, 2), (1, 1), 1),  # stride 3, 5x5
    ((1, 48, 6, 6), (64, 48, 3, 3), (1, 1), (3, 3, 3, 3), (1, 1), 1),  # padding > K-1: negative transposed pad
    ((1, 16, 9, 10), (16, 16, 3, 3), (2, 2), (2, 2, 2, 1), (1, 1), 1),  # the same, stride 2
]


def output_shape(xs, ws, strides, padding, dilations, groups):
    b = GraphBuilder("shape")
    return tuple(b.conv2d(b.input(xs), b.input(ws), strides, padding, dilations, groups).type.get_shape())


def build(grad, xs, ws, window, constant: bool, residual: bool = False):
    """The module, its arguments and the float64 reference; the operand
    besides g is a constant (packed weight) or an input."""
    rng = np.random.default_rng(len(xs) + ws[0])
    ys = output_shape(xs, ws, *window)
    other = rng.standard_normal(ws if grad == "input" else xs).astype(np.float32)
    g = rng.standard_normal(ys).astype(np.float32)
    b = GraphBuilder("f")
    o = b.constant(other) if constant else b.input(other.shape)
    ga = b.input(ys)
    props = dict(zip(("strides", "padding", "dilations", "groups"), window))
    if grad == "input":
        op = Conv2dGradInputOp(ga, o, xs, **props)
        want = op.reference(g.astype(np.float64), other.astype(np.float64))[0]
    else:
        op = Conv2dGradFilterOp(o, ga, ws[2:], **props)
        want = op.reference(other.astype(np.float64), g.astype(np.float64))[0]
    y = b.apply(op)
    args = [g] if constant else [other, g]
    if residual:  # a fused epilogue: relu(dx + r)
        r = rng.standard_normal(want.shape).astype(np.float32)
        y = b.relu(b.add(y, b.input(r.shape)))
        args, want = [*args, r], np.maximum(want + r, 0)
    return b.build(y), args, want


def rel_err(got, want) -> float:
    return float(np.abs(got - want).max() / np.abs(want).max())


@pytest.mark.parametrize("grad", ["input", "filter"])
@pytest.mark.parametrize("xs,ws,strides,padding,dilations,groups", CASES)
def test_backward_schedule_at_1_and_2_threads(grad, xs, ws, strides, padding, dilations, groups) -> None:
    window = (strides, padding, dilations, groups)
    module, args, want = build(grad, xs, ws, window, constant=grad == "input" and groups == 1, residual=xs[1] == 20)
    assert uses_micro_kernel(module)
    cm = compile_threaded(module, opt_level=2)
    assert "GOMP_parallel" in cm.llvm_ir
    assert rel_err(call_threaded(cm, args)[0], want) < 2e-6


@pytest.mark.parametrize("grad", ["input", "filter"])
def test_no_less_accurate_than_the_scalar_loops(grad) -> None:
    """Against float64: the blocked sums of the micro-kernels err no more
    than the scalar loops' one sequential sum per element (576 products for
    grad_input, 1,600 for grad_filter here)."""
    window = ((1, 1), (1, 1, 1, 1), (1, 1), 1)
    module, args, want = build(grad, (1, 64, 20, 20), (64, 64, 3, 3), window, constant=False)
    tiled = rel_err(graphopt.compile(module, opt_level=2)["f"](*args), want)
    conv_grad.MICRO_KERNELS = False
    try:
        assert not uses_micro_kernel(module)
        scalar = rel_err(graphopt.compile(module, opt_level=2)["f"](*args), want)
    finally:
        conv_grad.MICRO_KERNELS = True
    assert tiled <= scalar, (tiled, scalar)


def test_small_channel_counts_keep_the_scalar_loops() -> None:
    """Fewer than 16 output channels per group: no GEMM tile (still correct)."""
    window = ((1, 1), (1, 1, 1, 1), (1, 1), 1)
    module, args, want = build("input", (1, 8, 9, 9), (32, 8, 3, 3), window, constant=False)
    assert not uses_micro_kernel(module)
    assert rel_err(graphopt.compile(module)["f"](*args), want) < 2e-6


def test_cnn_training_step_runs_the_backward_schedules() -> None:
    """conv 3->16 -> relu -> conv 16->16 -> relu -> pool -> dense: both
    backward ops run on the micro-kernels inside the compiled SGD step, which
    matches the reference interpreter's step and lowers the loss."""
    n, f = 4, 16
    b = GraphBuilder("loss")
    x, y = b.input((n, 3, 10, 10), np.float32, name="x"), b.input((n, 2), np.float32, name="y")
    w1, w2 = b.input((f, 3, 3, 3), np.float32, name="w1"), b.input((f, f, 3, 3), np.float32, name="w2")
    v = b.input((f, 2), np.float32, name="v")
    h = b.relu(b.conv2d(x, w1, (1, 1), (1, 1, 1, 1), (1, 1), 1))
    h = b.relu(b.conv2d(h, w2, (2, 2), (1, 1, 1, 1), (1, 1), 1))
    logp = b.log_softmax(b.matmul(b.reshape(b.global_avg_pool(h), (n, f)), v), -1)
    module = b.build(b.neg(b.reduce_mean(b.reduce_sum(b.mul(y, logp), [-1]))))
    add_training_step(module, "loss", ["w1", "w2", "v"], lr=0.5)
    lowered = module.clone()
    run_pipeline(lowered, "O2")
    lower_graph_to_loop(lowered)
    grads = [k for k in lowered.walk() if isinstance(k, func.FuncOp) and "conv2d_grad" in k.sym_name.data]
    assert {"input", "filter"} <= {k.sym_name.data.rsplit("_", 1)[1] for k in grads}
    assert all(any(isinstance(o, vector.FMAOp) for o in k.walk()) for k in grads)

    rng = np.random.default_rng(5)
    labels = np.arange(n) % 2
    xs = rng.standard_normal((n, 3, 10, 10)).astype(np.float32)
    xs[labels == 1, :, :5] += 1.5
    ys = np.eye(2, dtype=np.float32)[labels]
    params = [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in ((f, 3, 3, 3), (f, f, 3, 3), (f, 2))]
    step = graphopt.compile(module)["loss_train"]
    loss0, *got = step(xs, ys, *params)
    _, *want = interpret(module, xs, ys, *params, entry="loss_train")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    for _ in range(30):
        loss, *got = step(xs, ys, *got)
    assert float(loss) < 0.5 * float(loss0)


@pytest.mark.parametrize("stride", [1, 2])
def test_grad_input_blocks_are_finer_than_the_forward_conv(stride) -> None:
    """grad_input sums about GRAD_INPUT_BLOCK_PRODUCTS products per block (the
    forward conv: 128), so at 3x3 64->64 it errs less against float64 than
    with the forward conv's blocks (onnxruntime's ConvTranspose sums 64 per
    tap, then the taps: benchmarks/kernels.py)."""
    window = ((stride, stride), (1, 1, 1, 1), (1, 1), 1)
    module, args, want = build("input", (1, 64, 20, 20), (64, 64, 3, 3), window, constant=False)
    fine = rel_err(graphopt.compile(module, opt_level=2)["f"](*args), want)
    conv_grad.GRAD_INPUT_BLOCK_PRODUCTS = 128
    try:
        coarse = rel_err(graphopt.compile(module, opt_level=2)["f"](*args), want)
    finally:
        conv_grad.GRAD_INPUT_BLOCK_PRODUCTS = 36
    assert fine < coarse, (fine, coarse)


@pytest.mark.parametrize("stride", [1, 2])
def test_non_finite_run_time_weight_matches_the_reference(stride) -> None:
    """The micro-kernel multiplies the gradient's zero padding by the weight;
    the op has no such term (reference, ONNX ConvTranspose).  A weight read
    at run time holding inf or NaN takes the scalar loops: NaN exactly where
    the reference has it, at 1 and 2 threads; a finite one the micro-kernel."""
    window = ((stride, stride), (1, 1, 1, 1), (1, 1), 1)
    module, (w, g), _ = build("input", (1, 16, 12, 12), (16, 16, 3, 3), window, constant=False)
    assert uses_micro_kernel(module)
    cm = compile_threaded(module, opt_level=2)
    for bad in (np.inf, np.nan):
        wb = w.copy()
        wb[3, 5, 0, 0] = bad  # a corner tap: padding terms at the borders
        with np.errstate(all="ignore"):
            want = interpret(module, wb, g)[0]
        assert np.isnan(want).sum() < want.size // 2
        for got in call_threaded(cm, [wb, g]):
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    want = interpret(module, w, g)[0]
    for got in call_threaded(cm, [w, g]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_forward_conv_multiplies_its_padding_as_the_reference() -> None:
    """The forward conv's padding is a real zero (ONNX; the reference pads
    too): an inf weight read at run time gives NaN at the same border pixels
    in the micro-kernel and in the reference, at 1 and 2 threads."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    w[3, 5, 0, 0] = np.inf
    b = GraphBuilder("f")
    module = b.build(b.conv2d(b.input(x.shape), b.input(w.shape), (1, 1), (1, 1, 1, 1), (1, 1), 1))
    assert uses_micro_kernel(module)
    with np.errstate(all="ignore"):
        want = interpret(module, x, w)[0]
    assert np.isnan(want[0, 3, 0]).all() and not np.isnan(want[0, 3, 1:, 1:]).any()
    (got,) = call_threaded(compile_threaded(module, opt_level=2), [x, w])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
