"""Per-kernel profile of a model: each graph-opt kernel timed alone on its real
shapes, next to onnxruntime's per-node profile of the same exported model.

graph-opt side: the model (``models.py``, dense random weights as in
``resnet50.py``) goes through the -O3 graph passes up to ``fuse-ops``; every
kernel of the result (each ``fused.group`` and each op left alone) becomes a
function of its own, its constant operands kept as constants (so weights are
packed at compile time as in the model) and its other operands arguments.
All of them compile into one module.  One sample calls every kernel once,
in model order, each on the preallocated arrays its producers wrote (so the
activations and weights are as warm or cold as in the model; the runtime's
argument checks and output allocation are left out), timing each call's CPU
time; the samples are interleaved with whole-model calls of graph-opt and
onnxruntime; medians.  ``--warm`` adds each kernel called alone again and
again (its data warm in the caches): the difference to the chained time is
what the model's cold weights and activations cost it.

onnxruntime side: the model exported by ``onnx_export.py`` (the same
weights), a session with ``enable_profiling``, the per-node kernel times of
the profiled runs (wall time, medians per node), interleaved with the
graph-opt samples.

Kernels are matched by what they compute (conv kernel size, stride,
channels, input size, residual or not; pool kind and shape...), so the table
rows are classes of identical layers with their counts.

``--onnx NAME`` profiles one of the onnx package's light models instead
(``vgg19``, ``bvlc_alexnet``...; ``tests/conformance/light_models.py``),
its ``ConstantOfShape`` weights replaced by seeded random dense ones, both
systems running that model on the onnx runner's input.  ``--target-cpu``
and ``--target-features`` compile graph-opt for another target (``haswell``:
AVX2); onnxruntime runs its own kernels for the host.

Run: ``python benchmarks/kernel_profile.py [--model resnet50 | --onnx vgg19] [--repeats 7] [--top 30]
[--target-cpu haswell]``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import numpy as np  # noqa: E402
from models import MODELS  # noqa: E402
from onnx_export import export  # noqa: E402
from resnet50 import dense_weights  # noqa: E402
from xdsl.dialects import func  # noqa: E402
from xdsl.dialects.builtin import FunctionType, ModuleOp  # noqa: E402
from xdsl.ir import Block, Region  # noqa: E402

import graphopt  # noqa: E402
from graphopt.dialects import fused  # noqa: E402
from graphopt.dialects import graph as gc  # noqa: E402
from graphopt.dialects.graph import tensor_of  # noqa: E402
from graphopt.runtime.compile import run_pipeline, set_target  # noqa: E402
from graphopt.target import Target  # noqa: E402
from graphopt.transforms.pipelines import pipeline_passes  # noqa: E402

#: The -O3 graph passes up to fusion (``plan-memory`` runs per kernel function).
GRAPH_PASSES = "fold-batch-norm,decompose{ops=batch_norm},cse,layout-nchwc,fold-constants,canonicalize,cse,fuse-ops,dce"
RNG = np.random.default_rng(1)


def _shape(v) -> tuple[int, ...]:
    return tuple(tensor_of(v).get_shape())


def conv_key(x: tuple, w: tuple, y: tuple, residual: bool) -> str:
    """``conv 3x3/2 128->128 @56`` (+ ``+res`` when a residual is added)."""
    _, c, h, _ = x
    o, _, kh, kw = w
    stride = h // y[2] if y[2] else 1
    return f"conv {kh}x{kw}/{stride} {c}->{o} @{h}" + (" +res" if residual else "")


def op_key(kind: str, x: tuple, y: tuple) -> str:
    return f"{kind} {'x'.join(map(str, x[1:]))}->{'x'.join(map(str, y[1:]))}"


def graph_opt_key(op, consts: set) -> str:
    """The class of a graph-opt kernel (see :func:`conv_key`)."""
    inner = list(op.body.block.ops) if isinstance(op, fused.GroupOp) else [op]
    anchor = next((o for o in inner if isinstance(o, gc.Conv2dOp | gc.Conv2dNchwcOp | gc.DepthwiseConv2dNchwcOp)), None)
    if isinstance(anchor, gc.Conv2dNchwcOp | gc.DepthwiseConv2dNchwcOp):  # keyed by its NCHW shapes
        x, y = _shape(anchor.input), _shape(anchor.result)
        x = (x[0], x[1] * x[4], x[2], x[3]) if len(x) == 5 else x
        w = _shape(anchor.weight)
        if isinstance(anchor, gc.DepthwiseConv2dNchwcOp):  # [C/16, KH, KW, 16]: as OIHW with one input channel
            w = (w[0] * w[3], 1, w[1], w[2])
        residual = any(v not in consts and _shape(v) == _shape(op.results[0]) for v in op.operands[1:])
        return conv_key(x, w, (y[0], y[1] * y[4], y[2], y[3]), residual)
    if anchor is not None:
        # Another tensor input of the output's full shape is the residual.
        full = _shape(op.results[0])
        x = anchor.input
        x = op.operands[x.index] if isinstance(op, fused.GroupOp) and x.owner is op.body.block else x
        residual = any(v not in consts and v is not x and _shape(v) == full for v in op.operands)
        return conv_key(_shape(anchor.input), _shape(anchor.weight), _shape(anchor.result), residual)
    head = next(o for o in inner if not isinstance(o, fused.YieldOp))
    names = {gc.MaxPool2dOp: "MaxPool", gc.GlobalAvgPoolOp: "GlobalAveragePool", gc.ReshapeOp: "Reshape",
             gc.MatmulOp: "MatMul", gc.AvgPool2dOp: "AveragePool", gc.MaxPool2dNchwcOp: "MaxPool"}  # fmt: skip
    kind = next((n for t, n in names.items() if isinstance(head, t)), head.name)
    x, y = _shape(head.operands[0]), _shape(op.results[0])
    if isinstance(head, gc.MaxPool2dNchwcOp):  # keyed by its NCHW shapes
        x, y = ((s[0], s[1] * s[4], s[2], s[3]) for s in (x, y))
    return op_key(kind, x, y)


def ort_key(event: dict) -> str:
    """The same class for an onnxruntime node event."""
    args = event["args"]
    ins = [next(iter(d.values())) for d in args.get("input_type_shape", [])]
    outs = [next(iter(d.values())) for d in args.get("output_type_shape", [])]
    kind = args.get("op_name", "?")
    if kind in ("Conv", "FusedConv") and len(ins) >= 2 and len(ins[0]) == 4:
        return conv_key(tuple(ins[0]), tuple(ins[1]), tuple(outs[0]), len(ins) >= 4)
    if kind == "Gemm" or kind == "MatMul":
        return op_key("MatMul", tuple(ins[0]), tuple(outs[0]))
    return op_key(kind, tuple(ins[0]) if ins else (), tuple(outs[0]) if outs else ())


@dataclass
class Kernel:
    name: str
    key: str
    group: str
    args: list  # the model's values it reads
    results: list  # and writes
    cpu: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)  # called again and again alone


def kernel_module(module: ModuleOp) -> tuple[ModuleOp, list[Kernel]]:
    """One function per kernel of the fused model (see the module docstring)."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    ops = list(fn.body.block.ops)
    consts = {op.result: op for op in ops if isinstance(op, gc.ConstantOp)}
    funcs, kernels = [], []
    for op in ops:
        if isinstance(op, gc.ConstantOp | func.ReturnOp):
            continue
        args = list(dict.fromkeys(v for v in op.operands if v not in consts))
        block = Block(arg_types=[v.type for v in args])
        mapping = dict(zip(args, block.args))
        for v in op.operands:
            if v not in mapping:
                c = consts[v].clone()
                block.add_op(c)
                mapping[v] = c.result
        new = op.clone(value_mapper=mapping)
        block.add_op(new)
        block.add_op(func.ReturnOp(*new.results))
        name = f"k{len(funcs):02d}"
        ftype = FunctionType.from_lists([v.type for v in args], [r.type for r in new.results])
        funcs.append(func.FuncOp(name, ftype, Region(block)))
        group = op.group_name.data if isinstance(op, fused.GroupOp) else op.name
        kernels.append(Kernel(name, graph_opt_key(op, set(consts)), group, args, list(op.results)))
    return ModuleOp(funcs), kernels


def chained_calls(compiled, kernels: list[Kernel], inputs: dict) -> list:
    """Each kernel's native function on preallocated arrays, in model order,
    each reading the arrays its producers write: the activations and weights
    are as warm or cold as in the model.  The runtime's checks and a fresh
    output per call (page faults on megabytes of new memory) are left out."""
    env = dict(inputs)
    calls = []
    for k in kernels:
        f = compiled[k.name]
        outs = []
        for r, spec in zip(k.results, f.outputs):
            env[r] = np.zeros(spec.shape, spec.dtype)
            outs.append(env[r])
        ins = f.check_inputs([env[v] for v in k.args])
        ptrs = [a.ctypes.data for a in ins] + [o.ctypes.data for o in outs]
        ptrs.append(f.workspace_address())
        ptrs.extend(f._hidden_ptrs)
        calls.append((f._cfunc, ptrs))
    return calls, env


def onnx_light_model(name: str) -> tuple[ModuleOp, bytes, np.ndarray]:
    """A light model of the onnx package with seeded random dense weights:
    the graph-opt module, the ONNX model's bytes, the runner's input."""
    import onnx

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "conformance"))
    from light_models import graph_inputs, model_path, runner_input, with_random_weights

    from graphopt.frontends.onnx import import_model

    model = with_random_weights(onnx.load(model_path(name)))
    (vi,) = graph_inputs(model)
    return import_model(model), model.SerializeToString(), runner_input(vi)


def ort_profile_session(model, prefix: str):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.enable_profiling = True
    opts.profile_file_prefix = prefix
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def ort_node_times(path: str, skip_runs: int) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Per node: its kernel times (s) over the profiled runs after the first
    ``skip_runs``, and its class."""
    events = json.load(open(path))
    runs = sorted(e["ts"] for e in events if e.get("cat") == "Session" and e.get("name") == "model_run")
    start = runs[skip_runs] if len(runs) > skip_runs else 0
    times: dict[str, list[float]] = defaultdict(list)
    keys: dict[str, str] = {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time") or e["ts"] < start:
            continue
        times[e["name"]].append(e["dur"] * 1e-6)
        keys[e["name"]] = ort_key(e)
    return times, keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--top", type=int, default=40, help="rows of the per-class table")
    parser.add_argument("--warm", action="store_true", help="also time each kernel called alone again and again")
    parser.add_argument("--no-nchwc", action="store_true", help="leave layout-nchwc out (kernels and whole model)")
    parser.add_argument("--onnx", default=None, help="a light model of the onnx package instead (vgg19, ...)")
    parser.add_argument("--target-cpu", default=None, help="graph-opt's target CPU (default: this machine's)")
    parser.add_argument("--target-features", default=None, help="LLVM features added or removed (e.g. -avx512f)")
    args = parser.parse_args()
    drop = ("layout-nchwc",) if args.no_nchwc else ()
    passes = ",".join(p for p in GRAPH_PASSES.split(",") if p not in drop)
    target = Target.from_options(cpu=args.target_cpu, features=args.target_features)
    print(f"host: {Target.host().describe()}\ngraph-opt target: {target.describe()}")

    if args.onnx:
        module, onnx_model, image = onnx_light_model(args.onnx)
        args.model = "main"
    else:
        module = dense_weights(MODELS[args.model]())
        onnx_model = export(module)
        image = RNG.standard_normal((1, 3, 224, 224)).astype(np.float32)
    set_target(module, target)
    fused_model = module.clone()
    run_pipeline(fused_model, passes)
    kmod, kernels = kernel_module(fused_model)
    set_target(kmod, target)
    t0 = time.process_time()
    compiled = graphopt.compile(kmod, pipeline="plan-memory", num_threads=1)
    compile_s = time.process_time() - t0
    whole = graphopt.compile(module, ",".join(p for p in pipeline_passes("O3") if p not in drop), num_threads=1)

    tmp = tempfile.mkdtemp(prefix="kernel_profile_")
    sess = ort_profile_session(onnx_model, os.path.join(tmp, "ort"))
    feed = {sess.get_inputs()[0].name: image}
    plain = harness.ort_session(onnx_model, 1)

    fused_fn = next(op for op in fused_model.ops if isinstance(op, func.FuncOp))
    calls, env = chained_calls(compiled, kernels, {fused_fn.body.block.args[0]: image})
    warm = 3
    for _ in range(warm):
        sess.run(None, feed)
        for cfunc, ptrs in calls:
            cfunc(*ptrs)
    model_cpu: dict[str, list[float]] = defaultdict(list)
    entry = whole[args.model]
    for _ in range(args.repeats):
        c0 = time.thread_time()
        for k, (cfunc, ptrs) in zip(kernels, calls):
            t0 = time.thread_time()
            cfunc(*ptrs)
            k.cpu.append(time.thread_time() - t0)
        model_cpu["graph-opt kernels"].append(time.thread_time() - c0)
        if args.warm:
            for k, (cfunc, ptrs) in zip(kernels, calls):
                t0, n = time.thread_time(), 0
                while time.thread_time() - t0 < 0.005:
                    cfunc(*ptrs)
                    n += 1
                k.warm.append((time.thread_time() - t0) / n)
        for label, run in (("graph-opt", lambda: entry(image)), ("onnxruntime", lambda: plain.run(None, feed)),
                           ("onnxruntime profiled", lambda: sess.run(None, feed))):  # fmt: skip
            c0 = time.thread_time()
            run()
            model_cpu[label].append(time.thread_time() - c0)
    out = env[fused_fn.body.block.last_op.operands[0]]
    ref = plain.run(None, feed)[0]
    err = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
    assert err < 1e-3, f"the chained kernels differ from onnxruntime by {err:.1e}"
    path = sess.end_profiling()
    ort_times, ort_keys = ort_node_times(path, warm)

    go_by: dict[str, list[float]] = defaultdict(list)
    warm_by: dict[str, float] = defaultdict(float)
    groups: dict[str, str] = {}
    for k in kernels:
        go_by[k.key].append(statistics.median(k.cpu))
        warm_by[k.key] += statistics.median(k.warm) if k.warm else 0.0
        groups[k.key] = k.group
    ort_by: dict[str, list[float]] = defaultdict(list)
    for node, ts in ort_times.items():
        ort_by[ort_keys[node]].append(statistics.median(ts))

    go_total = sum(sum(v) for v in go_by.values())
    ort_total = sum(sum(v) for v in ort_by.values())
    print(f"{args.onnx or args.model}: {len(kernels)} graph-opt kernels (compiled alone: {compile_s:.1f} CPU-s), "
          f"{len(ort_times)} onnxruntime nodes; medians of {args.repeats} interleaved repeats")  # fmt: skip
    print(f"whole model, CPU ms per call: graph-opt -O3 {1e3 * statistics.median(model_cpu['graph-opt']):.1f}, "
          f"onnxruntime {1e3 * statistics.median(model_cpu['onnxruntime']):.1f} "
          f"(profiled session {1e3 * statistics.median(model_cpu['onnxruntime profiled']):.1f})")  # fmt: skip
    print(f"kernels chained, CPU ms: {1e3 * statistics.median(model_cpu['graph-opt kernels']):.1f} "
          f"(sum of the per-kernel medians {1e3 * go_total:.1f}); "
          f"onnxruntime nodes (wall): {1e3 * ort_total:.1f}\n")  # fmt: skip
    rows = []
    for key in set(go_by) | set(ort_by):
        g, o = sum(go_by.get(key, [])), sum(ort_by.get(key, []))
        rows.append((g - o, key, len(go_by.get(key, [])), len(ort_by.get(key, [])), g, o))
    rows.sort(reverse=True)
    warm_head = f"{'warm':>8}" if args.warm else ""
    print(f"{'kernel class':34}{'n':>3}{'graph-opt ms':>13}{warm_head}{'ort ms':>9}{'ratio':>7}{'gap ms':>8}  group")
    for gap, key, ng, no, g, o in rows[: args.top]:
        ratio = f"{g / o:6.2f}x" if o else "      -"
        n = f"{ng}" if ng == no else f"{ng}/{no}"
        warm = f"{1e3 * warm_by.get(key, 0.0):>8.3f}" if args.warm else ""
        print(f"{key:34}{n:>3}{1e3 * g:>13.3f}{warm}{1e3 * o:>9.3f}{ratio}{1e3 * gap:>8.2f}  {groups.get(key, '-')}")
    warm_total = f"{1e3 * sum(warm_by.values()):>8.3f}" if args.warm else ""
    print(f"{'total':34}{'':>3}{1e3 * go_total:>13.3f}{warm_total}{1e3 * ort_total:>9.3f}{go_total / ort_total:6.2f}x"
          f"{1e3 * (go_total - ort_total):>8.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
