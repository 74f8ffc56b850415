"""Single kernels: graph-opt vs numpy (OpenBLAS) vs onnxruntime, 1 and 2 threads.

Shapes (issue 12): matmul 256/512/1024; the ResNet-50 conv-as-GEMM shapes
(M=3136 K=576 N=64, M=196 K=2304 N=256, M=49 K=4608 N=512); conv 3x3
64->64 @56 and 256->256 @14 at stride 1 and 2; 1x1 conv 256->64 @56;
depthwise 3x3 (32 channels) @112; the conv backward ops (grad_input as an
ONNX ConvTranspose, grad_filter as a Conv of the transposed operands) of
3x3 64->64 @56 at stride 1 and 2; softmax (128, 1024); layer_norm (128, 768);
the 8-op elementwise chain over 2^22 f32; VGG-19's fully connected layers at
batch 1 (1x25088 @ 25088x4096, 1x4096 @ 4096x4096, 1x4096 @ 4096x1000 with
bias and relu, dense constant weights: matrix-vector products that stream
411, 67 and 16 MB of weights, rated in GB/s of weights).

In one run, with interleaved repeats, every kernel is timed for each system at
each thread count (CPU time and wall time per call, medians).  Rates and
ratios use CPU time at one thread and wall time at two.  The onnxruntime
model is exported from the same graph (``onnx_export.py``) with the same
weights.  The numpy baseline is eager numpy: ``@`` (OpenBLAS sgemm), im2col +
sgemm for conv, ``einsum`` for depthwise.  Each result is also printed as a
percentage of the OpenBLAS sgemm peak (flop-bound kernels) or of the STREAM
triad bandwidth (memory-bound ones) measured in the same run, and every
target of the issue as "met" / "not met".

graph-opt compiles for the host, or for ``--target-cpu``/``--target-features``
(LLVM's names: ``--target-cpu haswell`` is the AVX2 + FMA build, which runs
on any AVX2 machine; ``--target-features=-avx512f`` this CPU without
AVX-512); the header names the host CPU and the target.

Run: ``python benchmarks/kernels.py [--repeats 7] [--only matmul_512,softmax]
[--target-cpu haswell]`` (needs the ``bench`` extra: ``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import math  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402
from onnx_export import export  # noqa: E402

import graphopt  # noqa: E402
from graphopt.dialects.graph import ConstantOp  # noqa: E402
from graphopt.frontends.builder import GraphBuilder  # noqa: E402
from graphopt.target import Target  # noqa: E402

RNG = np.random.default_rng(0)


@dataclass
class Kernel:
    name: str
    module: object  # graph-level ModuleOp, function "f"
    inputs: list[np.ndarray]
    numpy_fn: Callable[..., np.ndarray]
    flops: float = 0.0  # flop-bound: rates in GFLOP/s against sgemm
    bytes: float = 0.0  # memory-bound: rates in GB/s against STREAM triad
    gemm_target: bool = False  # the >= 85% of OpenBLAS target applies
    gemv_target: bool = False  # memory-bound: graph-opt as fast as OpenBLAS's sgemv


def rand(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def matmul_kernel(name: str, m: int, k: int, n: int) -> Kernel:
    b = GraphBuilder("f")
    x, y = b.input((m, k), np.float32), b.input((k, n), np.float32)
    return Kernel(name, b.build(b.matmul(x, y)), [rand(m, k), rand(k, n)], lambda p, q: p @ q,
                  flops=2.0 * m * k * n, gemm_target=True)  # fmt: skip


def fc_kernel(name: str, k: int, n: int) -> Kernel:
    """A fully connected layer at batch 1: relu(x @ W + b), W and b dense
    constants (a matrix-vector product: rated in GB/s of W)."""
    w = rand(k, n, scale=math.sqrt(2.0 / k))
    bias = rand(n, scale=0.1)
    b = GraphBuilder("f")
    x = b.input((1, k), np.float32)
    wc = b.apply(ConstantOp.from_array(w, keep_dense=True))
    bc = b.apply(ConstantOp.from_array(bias, keep_dense=True))
    return Kernel(name, b.build(b.relu(b.add(b.matmul(x, wc), bc))), [rand(1, k)],
                  lambda v: np.maximum(v @ w + bias, np.float32(0)), bytes=4.0 * k * n, gemv_target=True)  # fmt: skip


def numpy_conv(x: np.ndarray, w: np.ndarray, stride: int, pad: int, groups: int) -> np.ndarray:
    """Eager conv: im2col + sgemm (einsum over the windows when depthwise)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if kh == kw == 1 and stride == 1 and pad == 0 and groups == 1:
        return (w.reshape(o, c) @ x.reshape(n, c, h * wd)).reshape(n, o, h, wd)
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    oh, ow = win.shape[2], win.shape[3]
    if groups == c and cg == 1:
        return np.einsum("nchwij,cij->nchw", win, w[:, 0], optimize=True)
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    out = cols @ w.reshape(o, -1).T
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)


def conv_kernel(name: str, c: int, o: int, size: int, k: int, stride: int, groups: int = 1) -> Kernel:
    pad = k // 2
    w = rand(o, c // groups, k, k, scale=math.sqrt(2.0 / (c // groups * k * k)))
    b = GraphBuilder("f")
    x = b.input((1, c, size, size), np.float32)
    wc = b.apply(ConstantOp.from_array(w, keep_dense=True))
    y = b.conv2d(x, wc, strides=(stride, stride), padding=(pad,) * 4, groups=groups)
    out = (size + 2 * pad - k) // stride + 1
    flops = 2.0 * o * out * out * (c // groups) * k * k
    return Kernel(name, b.build(y), [rand(1, c, size, size)],
                  lambda v: numpy_conv(v, w, stride, pad, groups), flops=flops)  # fmt: skip


def conv_grad_kernel(name: str, grad: str, c: int, size: int, stride: int) -> Kernel:
    """The backward ops of a 3x3 pad-1 conv c->c (weights are inputs, as in
    training); numpy: im2col + sgemm (grad_filter), sgemm + col2im (grad_input)."""
    from graphopt.dialects.graph import Conv2dGradFilterOp, Conv2dGradInputOp

    out = (size + 2 - 3) // stride + 1
    xs, ws, gs = (1, c, size, size), (c, c, 3, 3), (1, c, out, out)
    win = dict(strides=(stride, stride), padding=(1, 1, 1, 1))
    b = GraphBuilder("f")
    if grad == "input":
        op = Conv2dGradInputOp(b.input(gs, np.float32), b.input(ws, np.float32), xs, **win)
        inputs = [rand(*gs), rand(*ws, scale=math.sqrt(2.0 / (9 * c)))]

        def ref(g: np.ndarray, w: np.ndarray) -> np.ndarray:
            cols = (w.reshape(c, -1).T @ g.reshape(c, -1)).reshape(c, 3, 3, out, out)
            dx = np.zeros((1, c, size + 2, size + 2), g.dtype)
            for i in range(3):
                for j in range(3):
                    dx[0, :, i : i + stride * out : stride, j : j + stride * out : stride] += cols[:, i, j]
            return dx[:, :, 1 : size + 1, 1 : size + 1]
    else:
        op = Conv2dGradFilterOp(b.input(xs, np.float32), b.input(gs, np.float32), (3, 3), **win)
        inputs = [rand(*xs), rand(*gs)]

        def ref(x: np.ndarray, g: np.ndarray) -> np.ndarray:
            xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
            win_ = sliding_window_view(xp, (3, 3), axis=(2, 3))[0, :, ::stride, ::stride]
            return (g.reshape(c, -1) @ win_.transpose(1, 2, 0, 3, 4).reshape(out * out, -1)).reshape(ws)

    return Kernel(name, b.build(b.apply(op)), inputs, ref, flops=2.0 * c * c * 9 * out * out)


def softmax_kernel() -> Kernel:
    b = GraphBuilder("f")
    x = b.input((128, 1024), np.float32)

    def ref(v: np.ndarray) -> np.ndarray:
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return Kernel("softmax_128x1024", b.build(b.softmax(x, axis=1)), [rand(128, 1024, scale=3.0)], ref,
                  bytes=2.0 * 128 * 1024 * 4)  # fmt: skip


def layer_norm_kernel() -> Kernel:
    b = GraphBuilder("f")
    x = b.input((128, 768), np.float32)
    s, t = b.input((768,), np.float32), b.input((768,), np.float32)

    def ref(v: np.ndarray, sc: np.ndarray, bi: np.ndarray) -> np.ndarray:
        m = v.mean(axis=1, keepdims=True)
        d = v - m
        return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + np.float32(1e-5)) * sc + bi

    return Kernel("layer_norm_128x768", b.build(b.layer_norm(x, s, t, axis=-1)),
                  [rand(128, 768), rand(768), rand(768)], ref, bytes=2.0 * 128 * 768 * 4)  # fmt: skip


def chain_kernel(rows: int = 1024, cols: int = 4096) -> Kernel:
    """The 8-op chain of ``elementwise.py``: bias, scale, relu, sub, square,
    maximum, add, divide; fused into one kernel by -O2."""
    b = GraphBuilder("f")
    x = b.input((rows, cols), np.float32)
    vb, vc, vd = (b.input((cols,), np.float32) for _ in range(3))

    def k(v: float):
        return b.constant(np.float32(v))

    t = b.mul(b.add(x, vb), k(0.5))
    t = b.maximum(t, k(0.0))
    t = b.sub(t, vc)
    t = b.mul(t, t)
    t = b.maximum(t, x)
    t = b.div(b.add(t, k(1.0)), vd)

    def ref(xa, ba, ca, da):
        u = np.maximum((xa + ba) * np.float32(0.5), np.float32(0.0)) - ca
        return (np.maximum(u * u, xa) + np.float32(1.0)) / da

    d = (RNG.random(cols) + 0.5).astype(np.float32)
    return Kernel("chain8_2^22", b.build(t), [rand(rows, cols), rand(cols), rand(cols), d], ref,
                  bytes=2.0 * rows * cols * 4 + 3 * cols * 4)  # fmt: skip


def all_kernels() -> list[Kernel]:
    ks = [matmul_kernel(f"matmul_{n}", n, n, n) for n in (256, 512, 1024)]
    ks += [matmul_kernel(f"gemm_{m}x{k}x{n}", m, k, n) for m, k, n in ((3136, 576, 64), (196, 2304, 256), (49, 4608, 512))]
    ks += [
        conv_kernel("conv3x3_64@56_s1", 64, 64, 56, 3, 1),
        conv_kernel("conv3x3_64@56_s2", 64, 64, 56, 3, 2),
        conv_kernel("conv3x3_256@14_s1", 256, 256, 14, 3, 1),
        conv_kernel("conv3x3_256@14_s2", 256, 256, 14, 3, 2),
        conv_kernel("conv3x3_512@7_s1", 512, 512, 7, 3, 1),  # 4,608 products per output
        conv_kernel("conv7x7_3->64@224_s2", 3, 64, 224, 7, 2),  # the ResNet-50 stem
        conv_kernel("conv1x1_256->64@56", 256, 64, 56, 1, 1),
        conv_kernel("dwconv3x3_32@112", 32, 32, 112, 3, 1, groups=32),
        conv_grad_kernel("convgrad_in_64@56_s1", "input", 64, 56, 1),
        conv_grad_kernel("convgrad_in_64@56_s2", "input", 64, 56, 2),
        conv_grad_kernel("convgrad_w_64@56_s1", "filter", 64, 56, 1),
        conv_grad_kernel("convgrad_w_64@56_s2", "filter", 64, 56, 2),
    ]
    ks += [softmax_kernel(), layer_norm_kernel(), chain_kernel()]
    ks += [fc_kernel(f"vgg_fc_{k}x{n}", k, n) for k, n in ((25088, 4096), (4096, 4096), (4096, 1000))]
    return ks


def max_rel_error(got: np.ndarray, want64: np.ndarray) -> float:
    return float(np.max(np.abs(got.astype(np.float64) - want64)) / np.max(np.abs(want64)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", default="", help="comma-separated kernel names")
    parser.add_argument("--target-cpu", default=None, help="LLVM CPU graph-opt compiles for (default: the host)")
    parser.add_argument("--target-features", default=None, help="LLVM features, e.g. -avx512f")
    args = parser.parse_args()
    only = {s for s in args.only.split(",") if s}
    target = Target.from_options(args.target_cpu, args.target_features) if args.target_cpu or args.target_features else Target.default()

    print(f"host: {Target.host().describe()}")
    print(f"graph-opt target: {target.describe()}")
    peaks = harness.print_run_header(args.repeats)

    results: dict[str, dict[tuple[str, int], harness.Contender]] = {}
    errors: dict[str, dict[str, float]] = {}
    kernels = [k for k in all_kernels() if not only or k.name in only]
    header = f"{'kernel':22}{'system':11}{'thr':>4}{'CPU':>10}{'wall':>10}{'rate':>14}{'vs ort':>8}{'% peak':>8}"
    print(header)
    for k in kernels:
        compiled = graphopt.compile(k.module, opt_level=2, target=target)
        fn = compiled["f"]
        model = export(k.module)
        sessions = {t: harness.ort_session(model, t) for t in harness.THREADS}
        want = k.numpy_fn(*k.inputs)
        got = fn(*k.inputs)
        ort_out = sessions[1].run(None, dict(zip([i.name for i in sessions[1].get_inputs()], k.inputs)))[0]
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=f"{k.name}: graph-opt")
        np.testing.assert_allclose(ort_out, want, rtol=2e-3, atol=2e-3, err_msg=f"{k.name}: onnxruntime")
        if k.flops:
            ins64 = [a.astype(np.float64) for a in k.inputs]
            want64 = k.numpy_fn(*ins64)
            errors[k.name] = {"graph-opt": max_rel_error(got, want64), "onnxruntime": max_rel_error(ort_out, want64)}
        contenders = []
        for t in harness.THREADS:
            contenders.append(harness.Contender("graph-opt", t, harness.graph_opt_call(compiled, fn, t, k.inputs)))
            contenders.append(harness.Contender("numpy", t, lambda: k.numpy_fn(*k.inputs)))
            contenders.append(harness.Contender("onnxruntime", t, harness.ort_call(sessions[t], k.inputs)))
        harness.measure(contenders, args.repeats)
        by = {(c.system, c.threads): c for c in contenders}
        results[k.name] = by
        for c in contenders:
            basis = c.basis_s
            ort_basis = by[("onnxruntime", c.threads)].basis_s
            if k.flops:
                rate = f"{k.flops / basis / 1e9:.1f} GFLOP/s"
                pct = 100 * (k.flops / basis / 1e9) / peaks.sgemm_gflops[c.threads]
            else:
                rate = f"{k.bytes / basis / 1e9:.1f} GB/s"
                pct = 100 * (k.bytes / basis / 1e9) / peaks.triad_gbs
            print(f"{k.name:22}{c.system:11}{c.threads:>4}{harness.fmt_time(c.cpu_s):>10}"
                  f"{harness.fmt_time(c.wall_s):>10}{rate:>14}{basis / ort_basis:>7.2f}x{pct:>7.0f}%")  # fmt: skip
        sys.stdout.flush()

    print("\ntargets (one thread, CPU time):")
    for k in kernels:
        by = results[k.name]
        g1 = by[("graph-opt", 1)].cpu_s
        if k.gemm_target:
            share = by[("numpy", 1)].cpu_s / g1
            print(f"  {k.name}: >= 85% of OpenBLAS sgemm: {harness.met(share >= 0.85)} ({100 * share:.0f}%)")
        if k.name.startswith(("softmax", "layer_norm")):
            ratio = g1 / by[("onnxruntime", 1)].cpu_s
            print(f"  {k.name}: <= 1.5x onnxruntime: {harness.met(ratio <= 1.5)} ({ratio:.2f}x)")
        if k.gemv_target:
            share = by[("numpy", 1)].cpu_s / g1
            rate = k.bytes / g1 / 1e9
            print(f"  {k.name}: as fast as OpenBLAS sgemv: {harness.met(share >= 1.0)} ({100 * share:.0f}%; "
                  f"{rate:.1f} GB/s of weights, {100 * rate / peaks.triad_gbs:.0f}% of STREAM triad)")  # fmt: skip
        if k.name.startswith("chain"):
            share = k.bytes / g1 / 1e9 / peaks.triad_gbs
            print(f"  {k.name}: >= 80% of STREAM triad: {harness.met(share >= 0.8)} ({100 * share:.0f}%)")
    if errors:
        print("accuracy, max |y - y64| / max |y64| against float64 (target: graph-opt no worse than onnxruntime):")
        for name, e in errors.items():
            ok = e["graph-opt"] <= e["onnxruntime"]
            print(f"  {name}: graph-opt {e['graph-opt']:.1e}, onnxruntime {e['onnxruntime']:.1e}: {harness.met(ok)}")


if __name__ == "__main__":
    main()
