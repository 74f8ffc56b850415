"""Whole models: ResNet-50 and MobileNetV2 (batch 1, 224x224, f32), graph-opt
vs numpy (OpenBLAS, eager) vs onnxruntime, at 1 and 2 threads.

The models are ``models.py``'s, with every splat weight replaced by random
dense values of the same shape (He-scaled conv and matmul weights, batch-norm
statistics near 1 and 0), so no system computes with a scalar weight.  The
onnxruntime model is exported from the same graph (``onnx_export.py``): the
same weights.  graph-opt compiles at -O3 (fold-batch-norm, like
onnxruntime's conv+bn fusion); its -O2 compile time is printed against the
lowering issue's target (at most 3 CPU-s for ResNet-50).  numpy runs the
graph eagerly: conv as im2col + sgemm, depthwise as einsum.

Timing as in ``kernels.py`` (``harness.py``): interleaved repeats, CPU time
and wall time per call, rates and ratios from CPU time at one thread and
wall time at two, percentages of the OpenBLAS sgemm peak measured in the
same run; "met" / "not met" for each target of the issue.  Each sample is
one warm-up call of the contender (after the pause before a 2-thread
sample), then the calls of about ``SAMPLE_S`` (at least one) timed as the
steady state; the warm-up call's time is printed too ("1st call": the first
call after the pause and after another system ran), for every system alike.

``--realtime`` (root) times at real-time priority (``harness.realtime``), so
that other processes on a shared machine cannot take a CPU from a call.

``--target-cpu`` and ``--target-features`` compile graph-opt for another
target than this machine (``--target-cpu haswell``: AVX2 + FMA, 16 vector
registers; a comma-separated list compiles one build per CPU, each a row:
``--target-cpu host,haswell``); the header names the host CPU and each
target.  onnxruntime always runs its best kernels for the host (it picks
them at run time), so on an AVX-512 host an AVX2 build is compared against
onnxruntime's AVX-512 kernels.  ``--threads 1`` and ``--no-numpy`` leave
rows out.

Run: ``python benchmarks/resnet50.py [--repeats 7] [--models resnet50,mobilenet_v2] [--realtime]
[--target-cpu host,haswell] [--threads 1] [--no-numpy]``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from kernels import numpy_conv  # noqa: E402
from models import MODELS  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402
from onnx_export import export  # noqa: E402
from xdsl.dialects import func  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402

import graphopt  # noqa: E402
from graphopt.target import Target  # noqa: E402
from graphopt.dialects import graph  # noqa: E402
from graphopt.dialects import graph as gc  # noqa: E402
from graphopt.dialects import graph as nn  # noqa: E402
from graphopt.dialects import graph as norm  # noqa: E402
from graphopt.dialects.graph import tensor_of  # noqa: E402

RNG = np.random.default_rng(0)
#: Wall time of the steady calls of one sample (after its warm-up call).
SAMPLE_S = 0.15


def dense_weights(module: ModuleOp) -> ModuleOp:
    """Every splat constant becomes random dense data of its shape, chosen by
    how it is used (conv/matmul weight, batch-norm scale/bias/mean/var, bias)."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    for op in list(fn.body.block.ops):
        if not (isinstance(op, gc.ConstantOp) and op.is_splat):
            continue
        shape = tuple(tensor_of(op.result).get_shape())
        uses = list(op.result.uses)
        user, index = uses[0].operation, uses[0].index
        if isinstance(user, nn.Conv2dOp | graph.MatmulOp) and index == 1:
            fan_in = math.prod(shape[1:]) if len(shape) == 4 else shape[0]
            values = RNG.standard_normal(shape) * math.sqrt((2.0 if len(shape) == 4 else 1.0) / fan_in)
        elif isinstance(user, norm.BatchNormOp) and index in (1, 4):  # scale, var
            values = RNG.uniform(0.5, 1.5, shape)
        else:  # batch-norm bias and mean, classifier bias
            values = RNG.standard_normal(shape) * 0.1
        dense = gc.ConstantOp.from_array(values.astype(np.float32), keep_dense=True)
        fn.body.block.insert_op_before(dense, op)
        op.result.replace_all_uses_with(dense.result)
        fn.body.block.erase_op(op)
    return module


def numpy_model(module: ModuleOp):
    """An eager numpy runner for the ops of these models."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    consts = {op.result: op.reference()[0] for op in fn.body.block.ops if isinstance(op, gc.ConstantOp)}
    ops = [op for op in fn.body.block.ops if not isinstance(op, gc.ConstantOp)]

    def pool(x, op, reduce):
        t, l, b, r = op.pad_values
        kh, kw = op.kernel_values
        sh, sw = op.stride_values
        fill = -np.inf if reduce is np.max else 0.0
        xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=fill)
        win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]
        return reduce(win, axis=(4, 5))

    def run(image: np.ndarray) -> np.ndarray:
        env = dict(consts)
        env[fn.body.block.args[0]] = image
        for op in ops:
            a = [env[v] for v in op.operands]
            if isinstance(op, func.ReturnOp):
                return a[0]
            if isinstance(op, nn.Conv2dOp):
                out = numpy_conv(a[0], a[1], op.stride_values[0], op.pad_values[0], op.group_count)
            elif isinstance(op, norm.BatchNormOp):
                x, s, bias, m, v = a
                f = (s / np.sqrt(v + np.float32(op.epsilon)))[:, None, None]
                out = (x - m[:, None, None]) * f + bias[:, None, None]
            elif isinstance(op, graph.ReluOp):
                out = np.maximum(a[0], np.float32(0))
            elif isinstance(op, graph.AddOp):
                out = a[0] + a[1]
            elif isinstance(op, nn.MaxPool2dOp):
                out = pool(a[0], op, np.max)
            elif isinstance(op, nn.AvgPool2dOp):
                out = pool(a[0], op, np.mean)
            elif isinstance(op, nn.GlobalAvgPoolOp):
                out = a[0].mean(axis=(2, 3), keepdims=True)
            elif isinstance(op, graph.ReshapeOp):
                out = a[0].reshape(tensor_of(op.result).get_shape())
            elif isinstance(op, graph.MatmulOp):
                out = a[0] @ a[1]
            else:
                raise NotImplementedError(op.name)
            env[op.results[0]] = np.ascontiguousarray(out, dtype=np.float32)
        raise AssertionError("no return")

    return run


def model_flops(module: ModuleOp) -> float:
    """Multiply-adds x 2 of the convs and matmuls."""
    total = 0.0
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    for op in fn.body.block.ops:
        if isinstance(op, nn.Conv2dOp):
            _, o, oh, ow = tensor_of(op.result).get_shape()
            _, cg, kh, kw = tensor_of(op.weight).get_shape()
            total += 2.0 * o * oh * ow * cg * kh * kw
        elif isinstance(op, graph.MatmulOp):
            m, k = tensor_of(op.lhs).get_shape()[-2:]
            total += 2.0 * m * k * tensor_of(op.rhs).get_shape()[-1]
    return total


def cpu_seconds(fn) -> tuple[object, float]:
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--models", default="resnet50,mobilenet_v2")
    parser.add_argument("--realtime", action="store_true", help="time at SCHED_FIFO priority (needs root)")
    parser.add_argument("--target-cpu", default="host", help="graph-opt's target CPU(s), comma-separated (default: host)")
    parser.add_argument("--target-features", default=None, help="LLVM features added or removed (e.g. -avx512f)")
    parser.add_argument("--threads", default="1,2", help="thread counts to time (default 1,2)")
    parser.add_argument("--no-numpy", action="store_true", help="leave the numpy rows out")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    targets = {cpu: Target.from_options(cpu=cpu, features=args.target_features) for cpu in args.target_cpu.split(",")}
    labels = {cpu: "graph-opt" if len(targets) == 1 else f"graph-opt {cpu}" for cpu in targets}

    if args.realtime:
        harness.realtime(True)
    peaks = harness.print_run_header(args.repeats)
    harness.realtime(False)
    print(f"host: {Target.host().describe()}")
    for cpu, target in targets.items():
        print(f"graph-opt target{'' if len(targets) == 1 else ' ' + cpu}: {target.describe()}")
    print("onnxruntime: its own kernels for the host's CPU, chosen at run time, whatever graph-opt's target\n")

    summary = {}
    for name in args.models.split(","):
        module = dense_weights(MODELS[name]())
        flops = model_flops(module)
        builds, compile_o2 = {}, {}
        for cpu, target in targets.items():
            _, compile_o2[cpu] = cpu_seconds(lambda t=target: graphopt.compile(module, opt_level=2, target=t))
            builds[cpu], compile_o3 = cpu_seconds(lambda t=target: graphopt.compile(module, opt_level=3, target=t))
            print(f"{name}, graph-opt for {cpu}: compile, CPU s: -O2 {compile_o2[cpu]:.1f}, -O3 {compile_o3:.1f}")
        model = export(module)
        sessions, ort_setup = {}, 0.0
        for t in threads:
            sessions[t], s = cpu_seconds(lambda t=t: harness.ort_session(model, t))
            ort_setup = s if t == threads[0] else ort_setup
        eager = numpy_model(module)
        image = RNG.standard_normal((1, 3, 224, 224)).astype(np.float32)
        ort_in = {sessions[threads[0]].get_inputs()[0].name: image}
        ref = sessions[threads[0]].run(None, ort_in)[0]
        checks = [(labels[cpu], c[name](image)) for cpu, c in builds.items()]
        if not args.no_numpy:
            checks.append(("numpy", eager(image)))
        for system, out in checks:
            err = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
            assert err < 1e-3, f"{name}: {system} differs from onnxruntime by {err:.1e}"
        print(f"{name}: {flops / 1e9:.2f} GFLOP; onnxruntime session {ort_setup:.2f} CPU s")
        contenders = []
        for t in threads:
            for cpu, compiled in builds.items():
                contenders.append(harness.Contender(labels[cpu], t, harness.graph_opt_call(compiled, compiled[name], t, [image])))
            if not args.no_numpy:
                contenders.append(harness.Contender("numpy", t, lambda: eager(image)))
            contenders.append(harness.Contender("onnxruntime", t, harness.ort_call(sessions[t], [image])))
        if args.realtime:
            harness.realtime(True)
        harness.measure(contenders, args.repeats, min_sample_s=SAMPLE_S)
        harness.realtime(False)
        by = {(c.system, c.threads): c for c in contenders}
        width = max(12, *(len(label) + 1 for label in labels.values()))
        print(f"{'system':{width}}{'thr':>4}{'CPU':>10}{'wall':>10}{'GFLOP/s':>9}{'vs ort':>8}{'% sgemm':>9}"
              f"{'1st call':>10}")  # fmt: skip
        for c in contenders:
            rate = flops / c.basis_s / 1e9
            ratio = c.basis_s / by[("onnxruntime", c.threads)].basis_s
            print(f"{c.system:{width}}{c.threads:>4}{harness.fmt_time(c.cpu_s):>10}{harness.fmt_time(c.wall_s):>10}"
                  f"{rate:>9.1f}{ratio:>7.2f}x{100 * rate / peaks.sgemm_gflops[c.threads]:>8.0f}%"
                  f"{harness.fmt_time(c.first_basis_s):>10}")  # fmt: skip
        if 2 in threads and 1 in threads:
            for label in labels.values():
                g1, g2 = by[(label, 1)], by[(label, 2)]
                print(f"{label} 2 threads vs 1 (1-thread CPU / 2-thread wall): {g1.basis_s / g2.basis_s:.2f}x; "
                      f"first calls after the pause: {g1.first_basis_s / g2.first_basis_s:.2f}x")  # fmt: skip
        print()
        summary[name] = (by, compile_o2)

    if "resnet50" in summary and 1 in threads:
        by, compile_o2 = summary["resnet50"]
        o1 = by[("onnxruntime", 1)]
        for cpu, label in labels.items():
            g1 = by[(label, 1)]
            r = g1.cpu_s / o1.cpu_s
            print(f"targets (ResNet-50, graph-opt for {targets[cpu].cpu}, {targets[cpu].vector_isa}):")
            print(f"  one thread, <= 1.2x onnxruntime (CPU time): {harness.met(r <= 1.2)} ({r:.2f}x)")
            print(f"  one thread, <= 1.0x onnxruntime (CPU time): {harness.met(r <= 1.0)} ({r:.2f}x)")
            if 2 in threads:
                g2 = by[(label, 2)]
                speedup, first = g1.basis_s / g2.basis_s, g1.first_basis_s / g2.first_basis_s
                print(f"  two threads >= 1.7x faster than one (1-thread CPU / 2-thread wall, steady state): "
                      f"{harness.met(speedup >= 1.7)} ({speedup:.2f}x; first call after a pause {first:.2f}x)")  # fmt: skip
            print(f"  compiles at -O2 in <= 3 CPU-s: {harness.met(compile_o2[cpu] <= 3.0)} ({compile_o2[cpu]:.1f} s)")


if __name__ == "__main__":
    main()
