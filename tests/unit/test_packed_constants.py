"""A constant weight packed at compile time is the only copy of it: the module
holds one global per weight (the packed one; a matrix-vector product's weight,
read in place, its original), the kernel receives only what it reads, and the
driver gets one hidden constant per weight."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func, memref

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import run_pipeline

RNG = np.random.default_rng(3)


def model():
    xs = RNG.standard_normal((1, 8, 12, 12)).astype(np.float32)
    ws = RNG.standard_normal((32, 8, 3, 3)).astype(np.float32)
    ms = RNG.standard_normal((32 * 12 * 12, 40)).astype(np.float32)
    b = GraphBuilder("f")
    x = b.input(xs.shape, name="x")
    y = b.relu(b.conv2d(x, b.constant(ws), (1, 1), (1, 1, 1, 1), (1, 1), 1))
    out = b.matmul(b.reshape(y, (1, 32 * 12 * 12)), b.constant(ms))
    return b.build(out), xs, ws, ms


def test_one_global_per_packed_weight() -> None:
    module, xs, ws, ms = model()
    m = module.clone()
    run_pipeline(m, "O2")
    lower_graph_to_loop(m)
    globals_ = [op for op in m.ops if isinstance(op, memref.GlobalOp)]
    # The conv's weight packed; the matmul's (one row of A: a matrix-vector
    # product, which streams its weight in place) as it is.
    assert sorted(g.sym_name.data.split("_")[1].rstrip("0123456789") for g in globals_) == ["cst", "packed"]
    # No kernel argument has the shape of the unpacked conv weight.
    for op in m.ops:
        if isinstance(op, func.FuncOp):
            shapes = [t.get_shape() for t in op.function_type.inputs.data]
            assert ws.shape not in shapes
            assert ms.shape not in shapes or "matmul" in op.sym_name.data

    cm = graphopt.compile(module, opt_level=2)
    assert len(cm["f"].hidden_constants) == 2
    conv = np.zeros((1, 32, 12, 12))
    xp = np.pad(xs.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    for ky in range(3):
        for kx in range(3):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, ky : ky + 12, kx : kx + 12], ws[:, :, ky, kx])
    want = np.maximum(conv, 0).reshape(1, -1) @ ms.astype(np.float64)
    got = cm["f"](xs)
    assert np.abs(got - want).max() / np.abs(want).max() < 2e-6
