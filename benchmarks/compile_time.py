"""Compile time against graph size, and for the models of ``models.py``.

A chain of tanh/add ops on 64x64 f32 tensors (at -O0 one kernel per op) is
compiled with ``graphopt.compile`` for 100 to 1,600 ops at -O0 and -O2; the
exponent ``k`` of ``time ~ ops^k`` is fitted by least squares on log-log.
ResNet-50 is compiled at -O0, -O2 and -O3, every model of ``models.py`` at
-O2.  Each row also shows where the time goes: the graph passes,
``lower-graph-to-loop``, ``lower-loop-to-llvm`` (Python, xDSL), printing
LLVM IR, llvmlite's parse + optimisation, and MCJIT's code generation.  Times
are CPU seconds of this process (``time.process_time``), the best of
``--repeats`` runs, with the cyclic garbage collector paused as
``graphopt.compile`` pauses it.

``--steps`` prints, for the 400-op chain at -O0 and the models at -O2, the
split of ``lower-loop-to-llvm`` into its per-dialect steps and of the LLVM
side into llvmlite's parse, the O3 pipeline (for the functions the lowering
marked for LLVM's loop unrolling, with it, and for the rest, without; see
``runtime/llvm_split``), the link of the two and MCJIT's code generation.

Run: ``python benchmarks/compile_time.py [--sizes 100,200,400,800,1600] [--repeats 1] [--skip-models] [--steps]
[--models resnet50,googlenet]`` (``--models``: only those models, at -O2).
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
from pathlib import Path

import llvmlite.binding as llvm
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from models import MODELS  # noqa: E402

from graphopt.lowering.graph_to_loop import lower_graph_to_loop  # noqa: E402
from graphopt.lowering.to_llvm import LowerLoopToLLVMPass, emit_llvm_ir  # noqa: E402
from graphopt.runtime.abi import read_drivers  # noqa: E402
from graphopt.runtime.compile import parse_text, run_pipeline  # noqa: E402
from graphopt.runtime.jit import target_machine, parse_and_optimize  # noqa: E402
from graphopt.runtime.llvm_optimizer import OPTIMISER, parse_ir  # noqa: E402
from graphopt.runtime.llvm_optimizer import run_pipeline as llvm_pipeline  # noqa: E402
from graphopt.runtime.llvm_split import split_module  # noqa: E402

# After its first few runs a process sends LLVM's optimisation to a worker
# process (llvm_optimizer), whose CPU time process_time() would not see: here
# every run stays in this process, as in a fresh process's first compile.
OPTIMISER.in_process_runs = 1 << 30
from graphopt.transforms.pipelines import pipeline_spec  # noqa: E402

PHASES = ("graph", "to-loop", "to-llvm", "print", "llvm-opt", "mcjit")


def chain(n: int) -> ModuleOp:
    t = "tensor<64x64xf32>"
    lines, prev = [], "%x"
    for i in range(n):
        if i % 2 == 0:
            lines.append(f"  %v{i} = graph.tanh {prev} : {t}")
        else:
            lines.append(f"  %v{i} = graph.add {prev}, %x : ({t}, {t}) -> {t}")
        prev = f"%v{i}"
    body = "\n".join(lines)
    return parse_text(f"func.func @chain(%x: {t}) -> {t} {{\n{body}\n  func.return {prev} : {t}\n}}\n")


def compile_phases(module: ModuleOp, level: str) -> dict[str, float]:
    """The steps of ``graphopt.compile``, timed one by one."""
    module = module.clone()
    times: dict[str, float] = {}

    def step(name: str, fn):
        start = time.process_time()
        out = fn()
        times[name] = time.process_time() - start
        return out

    step("graph", lambda: run_pipeline(module, pipeline_spec(level)))
    step("to-loop", lambda: lower_graph_to_loop(module))
    step("to-llvm", lambda: LowerLoopToLLVMPass().apply(Context(), module))
    read_drivers(module)
    ir = step("print", lambda: emit_llvm_ir(module))
    tm = target_machine(opt_level=3)
    mod = step("llvm-opt", lambda: parse_and_optimize(ir, tm, 3))

    def codegen():
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        return engine

    step("mcjit", codegen)
    times["total"] = sum(times[p] for p in PHASES)
    return times


def step_split(module: ModuleOp, level: str) -> dict[str, float]:
    """Every step of ``graphopt.compile``, timed one by one: each graph pass
    by name, ``lower-graph-to-loop``, the steps of ``lower-loop-to-llvm`` as
    ``LowerLoopToLLVMPass.apply`` runs them, the final verification, printing
    LLVM IR, llvmlite's parse, LLVM's optimisation and MCJIT."""
    from xdsl.passes import PassPipeline

    from graphopt.diagnostics import verify_located
    from graphopt.lowering.expand_math import expand_math
    from graphopt.lowering.to_llvm import check_lowered, convert_in_one_walk, convert_scf_to_cf
    from graphopt.lowering.to_llvm.loop import ConvertLoopToLLVMPass
    from graphopt.lowering.to_llvm.merge_functions import merge_constant_variants
    from graphopt.lowering.to_llvm.parallel import outline_parallel
    from graphopt.plugins import available_passes, project_context

    module = module.clone()
    times: dict[str, float] = {}

    def timed(name: str, fn):
        start = time.process_time()
        out = fn()
        times[name] = times.get(name, 0.0) + time.process_time() - start
        return out

    gc.collect()
    gc.disable()
    try:
        spec = pipeline_spec(level)
        passes = PassPipeline.parse_spec(available_passes(), spec).passes if spec else []
        ctx = project_context()
        for p in passes:
            timed(p.name, lambda p=p: p.apply(ctx, module))
        timed("verify graph", lambda: verify_located(module))
        timed("lower-graph-to-loop", lambda: lower_graph_to_loop(module))
        timed("loop", lambda: ConvertLoopToLLVMPass().convert(module))
        timed("parallel", lambda: outline_parallel(module))
        timed("scf-to-cf", lambda: convert_scf_to_cf(module))
        timed("expand-math", lambda: expand_math(module))
        timed("one walk", lambda: convert_in_one_walk(module))
        timed("merge-functions", lambda: merge_constant_variants(module))
        timed("check", lambda: check_lowered(module))
        read_drivers(module)
        out = timed("print", lambda: emit_llvm_ir(module))
        tm = target_machine(opt_level=3)
        parts, restore = timed("split", lambda: split_module(out))
        mods = []
        for text, unroll in parts:
            kind = "unroll" if unroll else "rest"
            mod = timed(f"parse {kind}", lambda text=text: parse_ir(text, tm))
            timed(f"O3 {kind}", lambda mod=mod, unroll=unroll: llvm_pipeline(mod, tm, 3, unroll))
            mods.append(mod)

        def link():
            for other in mods[1:]:
                mods[0].link_in(other)
            return mods[0]

        mod = timed("link", link)

        def codegen():
            engine = llvm.create_mcjit_compiler(mod, tm)
            engine.finalize_object()
            return engine

        timed("mcjit", codegen)
    finally:
        gc.enable()
    times["total"] = sum(times.values())
    return times


def compile_phases_like_compile(module: ModuleOp, level: str) -> dict[str, float]:
    """With the cyclic collector paused, as ``graphopt.compile`` does."""
    gc.collect()
    gc.disable()
    try:
        return compile_phases(module, level)
    finally:
        gc.enable()


def best(module: ModuleOp, level: str, repeats: int) -> dict[str, float]:
    runs = [compile_phases_like_compile(module, level) for _ in range(repeats)]
    return min(runs, key=lambda r: r["total"])


def fit_exponent(sizes: list[int], seconds: list[float]) -> float:
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def row(label: str, t: dict[str, float]) -> str:
    return f"{label:<22}" + "".join(f"{t[p]:>9.2f}" for p in (*PHASES, "total"))


def header() -> str:
    return f"{'':<22}" + "".join(f"{p:>9}" for p in (*PHASES, "total"))


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,200,400,800,1600")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--skip-models", action="store_true")
    parser.add_argument("--steps", action="store_true")
    parser.add_argument("--models", default="", help="only these models of models.py at -O2 (comma-separated)")
    args = parser.parse_args()
    chosen = [m for m in args.models.split(",") if m]
    if chosen and not args.steps:
        print(header())
        for name in chosen:
            print(row(f"{name} -O2", best(MODELS[name](), "O2", args.repeats)), flush=True)
        return
    if args.steps:
        jobs = [] if chosen else [("chain 400 -O0", chain(400), "O0")]
        jobs += [(f"{name} -O2", MODELS[name](), "O2") for name in chosen or MODELS]
        for label, module, level in jobs:
            t = step_split(module, level)
            print(f"{label:<20}" + "  ".join(f"{k} {v:.2f}" for k, v in t.items()), flush=True)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    targets: list[str] = []

    print("tanh/add chain on 64x64 f32, CPU seconds")
    print(header())
    for level in ("O0", "O2"):
        totals = []
        for n in sizes:
            t = best(chain(n), level, args.repeats)
            totals.append(t["total"])
            print(row(f"-{level} {n} ops", t), flush=True)
            if level == "O0" and n == 400:
                targets.append(f"400-op chain at -O0 <= 3 s: {verdict(t['total'] <= 3.0)} ({t['total']:.2f} s)")
        k = fit_exponent(sizes, totals)
        print(f"-{level}: fitted exponent {k:.2f}")
        targets.append(f"exponent at -{level} <= 1.1: {verdict(k <= 1.1)} ({k:.2f})")

    if not args.skip_models:
        print("\nmodels (models.py, batch 1, 224x224), CPU seconds")
        print(header())
        for level in ("O0", "O2", "O3"):
            t = best(MODELS["resnet50"](), level, args.repeats)
            print(row(f"resnet50 -{level}", t), flush=True)
            if level == "O2":
                targets.append(f"resnet50 at -O2 <= 3 CPU-s: {verdict(t['total'] <= 3.0)} ({t['total']:.2f} s)")
        for name, build in MODELS.items():
            if name == "resnet50":
                continue
            t = best(build(), "O2", args.repeats)
            print(row(f"{name} -O2", t), flush=True)
            targets.append(f"{name} at -O2 <= 5 CPU-s: {verdict(t['total'] <= 5.0)} ({t['total']:.2f} s)")

    print("\ntargets")
    for line in targets:
        print(f"  {line}")


if __name__ == "__main__":
    main()
