"""Training-step latency: compiled at -O0 and -O2 vs numpy eager.

The workloads are the two training examples (``examples/train_mlp.py``,
``examples/train_cnn.py``): one SGD step -- forward, backward and
``p - lr*g`` -- as the compiled ``@<model>_train`` function, and the same step
written by hand in numpy (forward and backward, im2col for the conv).  Before
timing, every variant's loss and new parameters are checked against each
other.  ``--scale`` multiplies the batch (and, for the MLP, the widths) to
see how the comparison moves once the BLAS-friendly matmuls dominate.

A breakdown of the MLP step's matmuls (each compiled alone) follows, since
they decide the comparison.

numpy's BLAS runs on one thread, like the compiled code (set
``OPENBLAS_NUM_THREADS`` to override): with two threads on this shared
2-core machine, a descheduled BLAS worker stalls every matmul for
milliseconds and the numpy column becomes noise.

Run: ``python benchmarks/training.py [--repeats 51] [--scale 1 4] [--no-profile]``
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads its BLAS

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

import graphopt  # noqa: E402
from graphopt.dialects import graph  # noqa: E402
from graphopt.frontends.builder import GraphBuilder  # noqa: E402
from graphopt.runtime.compile import run_pipeline  # noqa: E402
from graphopt.transforms.pipelines import pipeline_spec  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def log_softmax_xent_grad(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean cross-entropy of one-hot ``y`` under ``log_softmax(z)``, and d/dz."""
    shifted = z - z.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    logp = shifted - np.log(s)
    loss = -np.mean(np.sum(y * logp, axis=1))
    return loss, (e / s - y) / len(z)


def numpy_mlp_step(x, y, w1, b1, w2, b2, lr):
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    loss, dz = log_softmax_xent_grad(h @ w2 + b2, y)
    dw2, db2 = h.T @ dz, dz.sum(axis=0)
    dpre = (dz @ w2.T) * (pre > 0)
    dw1, db1 = x.T @ dpre, dpre.sum(axis=0)
    return (loss, w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2)


def numpy_cnn_step(x, y, w, bc, v, bv, lr):
    """conv 3x3 pad 1 (im2col + matmul), relu, 2x2 max pool, dense."""
    n, cin, hh, ww = x.shape
    f = w.shape[0]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = sliding_window_view(xp, (3, 3), axis=(2, 3))  # n, cin, H, W, 3, 3
    cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * hh * ww, cin * 9)
    conv = (cols @ w.reshape(f, -1).T).reshape(n, hh, ww, f).transpose(0, 3, 1, 2) + bc
    act = np.maximum(conv, 0)
    windows = act.reshape(n, f, hh // 2, 2, ww // 2, 2)
    pooled = windows.max(axis=(3, 5))
    flat = pooled.reshape(n, -1)
    loss, dz = log_softmax_xent_grad(flat @ v + bv, y)
    dv, dbv = flat.T @ dz, dz.sum(axis=0)
    dpooled = (dz @ v.T).reshape(pooled.shape)[:, :, :, None, :, None]
    # Ties only happen between relu zeros, whose gradient the relu mask drops.
    dact = (windows == pooled[:, :, :, None, :, None]) * dpooled
    dconv = dact.reshape(n, f, hh, ww) * (conv > 0)
    dbc = dconv.sum(axis=(0, 2, 3)).reshape(bc.shape)
    dw = (dconv.transpose(1, 0, 2, 3).reshape(f, -1) @ cols).reshape(w.shape)
    return (loss, w - lr * dw, bc - lr * dbc, v - lr * dv, bv - lr * dbv)


def interleaved_medians(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds of each, timed in turns so that load on this shared
    machine hits every variant alike."""
    for fn in fns.values():
        for _ in range(3):
            fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            start = time.perf_counter()
            fn()
            samples[k].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in samples.items()}


def workload(name: str, scale: int):
    """(module, inputs, numpy step, lr) of one example, scaled."""
    ex = load_example(f"train_{name}")
    if name == "mlp":
        dims = (ex.N * scale, ex.D * scale, ex.H * scale, ex.C)
        module = ex.build_module(np.float32, lr=ex.LR, dims=dims)
        x, y, params = ex.make_data(0, np.float32, dims=dims)
        return module, [x, y, *params], numpy_mlp_step, ex.LR
    dims = (ex.N * scale, ex.S, ex.F, ex.C)
    module = ex.build_module(np.float32, lr=ex.LR, dims=dims)
    x, y, params = ex.make_data(0, np.float32, dims=dims)
    return module, [x, y, *params], numpy_cnn_step, ex.LR


def run(name: str, scale: int, repeats: int) -> dict:
    module, inputs, eager, lr = workload(name, scale)
    entry = f"{name}_train"
    steps = {
        "O0": graphopt.compile(module, opt_level=0)[entry],
        "O2": graphopt.compile(module, opt_level=2)[entry],
        "numpy": lambda *a: eager(*a, np.float32(lr)),
    }
    want = steps["numpy"](*inputs)
    for level in ("O0", "O2"):
        got = steps[level](*inputs)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5, err_msg=f"{name} {level}")
    times = interleaved_medians({k: (lambda f=f: f(*inputs)) for k, f in steps.items()}, repeats)
    shape = "x".join(str(d) for d in inputs[0].shape)
    return {"name": f"{name} ({shape})", **times}


def matmul_shapes(module) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Operand shapes of every matmul in the -O2 training step (fused or not)."""
    module = module.clone()
    run_pipeline(module, pipeline_spec("O2"))
    step = next(op for op in module.ops if op.sym_name.data.endswith("_train"))
    return [
        (tuple(op.lhs.type.get_shape()), tuple(op.rhs.type.get_shape()))
        for op in step.walk()
        if isinstance(op, graph.MatmulOp)
    ]


def matmul_profile(name: str, repeats: int) -> list[str]:
    """Each matmul of the step compiled alone at -O2 vs numpy's ``@``, net of
    the call overhead (a one-element function): where the compiled step loses."""
    module, _, _, _ = workload(name, 1)
    rng = np.random.default_rng(0)
    b = GraphBuilder("f")
    empty = graphopt.compile(b.build(b.neg(b.input((1,)))), opt_level=2)["f"]
    one = np.ones(1, np.float32)
    lines = []
    overheads = []
    total_c = total_n = 0.0
    for a_shape, b_shape in matmul_shapes(module):
        b = GraphBuilder("f")
        fn = graphopt.compile(b.build(b.matmul(b.input(a_shape), b.input(b_shape))), opt_level=2)["f"]
        a, w = (rng.standard_normal(s).astype(np.float32) for s in (a_shape, b_shape))
        t = interleaved_medians(
            {"empty": lambda: empty(one), "compiled": lambda: fn(a, w), "numpy": lambda: a @ w}, repeats
        )
        overheads.append(t["empty"])
        t_c, t_n = max(t["compiled"] - t["empty"], 0.0), t["numpy"]
        total_c, total_n = total_c + t_c, total_n + t_n
        macs = int(np.prod(a_shape)) * b_shape[-1]
        rate = f"{macs / t_c / 1e9:5.2f} GMAC/s" if t_c > 1e-7 else "    - GMAC/s"
        lines.append(
            f"  {'x'.join(map(str, a_shape))} @ {'x'.join(map(str, b_shape)):<8} K={a_shape[-1]:<4} "
            f"compiled {t_c * 1e6:6.1f} us ({rate})   numpy {t_n * 1e6:5.1f} us"
        )
    lines.insert(0, f"call overhead of a compiled function, subtracted: {statistics.median(overheads) * 1e6:.1f} us")
    lines.append(f"  all matmuls: compiled {total_c * 1e6:.1f} us, numpy {total_n * 1e6:.1f} us")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=51)
    parser.add_argument("--scale", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--no-profile", dest="profile", action="store_false",
                        help="skip the per-matmul breakdown")
    args = parser.parse_args(argv)
    rows = [run(name, s, args.repeats) for s in args.scale for name in ("mlp", "cnn")]
    print(f"training step (forward + backward + SGD), f32, median of {args.repeats} (times in ms)")
    print(f"{'workload':<22} {'-O0':>9} {'-O2':>9} {'numpy':>9} {'O0/O2':>7} {'numpy/O2':>9}")
    for r in rows:
        print(
            f"{r['name']:<22} {r['O0'] * 1e3:>9.3f} {r['O2'] * 1e3:>9.3f} {r['numpy'] * 1e3:>9.3f} "
            f"{r['O0'] / r['O2']:>6.2f}x {r['numpy'] / r['O2']:>8.2f}x"
        )
    for r in rows:
        verdict = "met" if r["O2"] < r["numpy"] else "NOT met"
        print(f"target {r['name']}: -O2 faster than numpy eager: {verdict}")
    if args.profile:
        print("\nmatmuls of the mlp step at scale 1, each compiled alone at -O2:")
        print("\n".join(matmul_profile("mlp", args.repeats)))


if __name__ == "__main__":
    main()
