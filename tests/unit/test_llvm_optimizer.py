"""The LLVM optimiser: one pipeline without LLVM's loop unrolling (unless a
loop's metadata asks for it, or the lowering marks the function for it), and
the worker process."""

import ctypes

import llvmlite.binding as llvm
import numpy as np
import pytest

from graphopt.runtime.jit import JITError, compile_llvm_ir, target_machine
from graphopt.target import Target
from graphopt.runtime.llvm_optimizer import Optimiser, optimise_ir

# As llvmlite prints a lowered module: a vector kernel launched by an internal
# wrapper that also runs a scalar part, a scalar kernel, an external driver,
# and an internal constant that the vector kernel reads.
IR = """; ModuleID = ""
target triple = "unknown-unknown-unknown"
target datalayout = ""

@"cst" = internal constant [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0]
declare void @"run"(ptr, ptr)
define internal void @"k_par0"(ptr %".1") noinline
{
.2:
  %".3" = load <4 x float>, ptr @"cst"
  store <4 x float> %".3", ptr %".1"
  ret void
}
define internal void @"k_par1"(ptr %".1") noinline
{
.2:
  %".3" = getelementptr float, ptr %".1", i64 4
  store float 5.0, ptr %".3"
  ret void
}
define internal void @"k"(ptr %".1") noinline
{
.2:
  call void @"k_par0"(ptr %".1")
  call void @"k_par1"(ptr %".1")
  ret void
}
define internal void @"pool"(ptr %".1") noinline
{
.2:
  br label %".3"
.3:
  %".4" = phi i64 [0, %".2"], [%".9", %".3"]
  %".5" = phi float [0.0, %".2"], [%".8", %".3"]
  %".6" = getelementptr float, ptr %".1", i64 %".4"
  %".7" = load float, ptr %".6"
  %".8" = fadd float %".5", %".7"
  %".9" = add i64 %".4", 1
  %".10" = icmp slt i64 %".9", 5
  br i1 %".10", label %".3", label %".11"
.11:
  %".12" = getelementptr float, ptr %".1", i64 5
  store float %".8", ptr %".12"
  ret void
}
define void @"main"(ptr %".1") noinline
{
.2:
  call void @"k"(ptr %".1")
  call void @"pool"(ptr %".1")
  ret void
}
"""


def run_main(mod: llvm.ModuleRef, tm: llvm.TargetMachine) -> np.ndarray:
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    out = np.zeros(6, np.float32)
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.get_function_address("main"))(out.ctypes.data)
    return out


def _phis(mod: llvm.ModuleRef, name: str) -> int:
    """The phi nodes of function ``name`` (its loops' induction variables)."""
    return str(mod).split(f" @{name}(", 1)[1].split("\n}\n", 1)[0].count(" = phi ")


def test_one_pipeline_without_llvm_unrolling() -> None:
    """The whole module in one pipeline (internal linkage kept); the 5-trip
    reduction loop of ``pool`` stays a loop: LLVM unrolls no loop."""
    tm = target_machine(opt_level=3)
    mod = optimise_ir(IR, tm, 3)
    assert mod.get_function("main").linkage == llvm.Linkage.external
    assert mod.get_function("pool").linkage == llvm.Linkage.internal
    assert _phis(mod, "pool") > 0
    np.testing.assert_array_equal(run_main(mod, tm), [1, 2, 3, 4, 5, 15])


def test_a_loop_with_unroll_full_metadata_is_still_unrolled() -> None:
    """With unrolling off LLVM unrolls only the loops whose latch asks for it."""
    forced = IR.replace('label %".3", label %".11"', 'label %".3", label %".11", !llvm.loop !0')
    forced += '!0 = distinct !{!0, !1}\n!1 = !{!"llvm.loop.unroll.full"}\n'
    tm = target_machine(opt_level=3)
    mod = optimise_ir(forced, tm, 3)
    assert _phis(mod, "pool") == 0
    np.testing.assert_array_equal(run_main(mod, tm), [1, 2, 3, 4, 5, 15])


def test_invalid_ir_is_reported_for_the_text_as_given() -> None:
    bad = IR.replace('  ret void\n}\ndefine internal void @"pool"', '  ret i32 0\n}\ndefine internal void @"pool"')
    with pytest.raises(JITError, match="invalid LLVM IR"):
        compile_llvm_ir(bad, 3)


def test_the_worker_optimises_like_this_process() -> None:
    tm = target_machine(opt_level=3)
    here = str(optimise_ir(IR, tm, 3))
    worker = Optimiser(in_process_runs=0)
    try:
        bad = IR.replace("fadd float", "fadd double")
        with pytest.raises(RuntimeError):  # refused by the worker, reported here
            worker.optimise(bad, tm, 3, Target.default())
        there = worker.optimise(IR, tm, 3, Target.default())
        assert worker._worker is not None and not worker._worker_failed
        assert worker._worker.runs == 1
    finally:
        worker.close()
    assert str(there).split("\n", 1)[1] == here.split("\n", 1)[1]
    np.testing.assert_array_equal(run_main(there, tm), [1, 2, 3, 4, 5, 15])


# LLVM 22's LoopVectorize fails an assertion ("VPlan cost model and legacy
# cost model disagreed") and aborts the process on a scalar maxnum reduction
# loop at these trip counts (f64: 6, 7, 20-23, 28-31; f32: 20-23, 28-31, 127).
# The lowering keeps such loops from the vectoriser (lowering/to_llvm/cf.py),
# and the row max of softmax and log_softmax is an integer max of the ordered
# bits, which LLVM vectorises without the assertion.  Both compiled in a child
# process, so that an abort is this test's failure and not the end of the test
# run.
_MAXNUM_ROWS = """
import numpy as np
import graphopt
from graphopt.frontends.builder import GraphBuilder
for dtype, n in [("float64", 6), ("float64", 7), ("float64", 22), ("float64", 31), ("float32", 21), ("float32", 127)]:
    b = GraphBuilder("f")
    y = b.log_softmax(b.input((3, n), np.dtype(dtype)))
    x = np.random.default_rng(n).standard_normal((3, n)).astype(dtype) * 100
    got = graphopt.compile(b.build(y))["f"](x)
    want = (x - x.max(-1, keepdims=True)) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.parser import Parser
from graphopt.dialects.loop import Loop
from graphopt.runtime.executable import compile_loop_module
ctx = Context()
for d in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, scf.Scf, Loop):
    ctx.load_dialect(d)
for t, n in [("f64", 6), ("f64", 7), ("f64", 22), ("f32", 21), ("f32", 127)]:
    text = f'''builtin.module {{
  func.func @main(%a: memref<{n}x{t}>, %o: memref<1x{t}>, %ws: memref<0xi8>) attributes {{loop.abi = #loop.abi<inputs = ["a" : tensor<{n}x{t}>], outputs = ["o" : tensor<1x{t}>], workspace = 0>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cn = arith.constant {n} : index
    %ninf = arith.constant 0xFF800000 : f32
    %init = {"arith.extf %ninf : f32 to f64" if t == "f64" else "arith.addf %ninf, %ninf : f32"}
    %m = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %init) -> ({t}) {{
      %x = memref.load %a[%i] : memref<{n}x{t}>
      %y = arith.maxnumf %acc, %x : {t}
      scf.yield %y : {t}
    }}
    memref.store %m, %o[%c0] : memref<1x{t}>
    func.return
  }}
}}'''
    x = np.random.default_rng(n).standard_normal(n).astype("float64" if t == "f64" else "float32")
    out = compile_loop_module(Parser(ctx, text).parse_module()).main(x)
    assert out[0] == x.max(), (t, n, out, x.max())
print("ok")
"""


def test_max_reduction_rows_compile_without_an_llvm_abort() -> None:
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _MAXNUM_ROWS], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


def test_a_function_marked_for_llvm_unrolling_is_optimised_with_it() -> None:
    """``pool``'s loop carries the ``graphopt.llvm_unroll`` property: its
    function (and its launcher ``main``) are optimised apart with LLVM's
    unrolling and linked back; the rest keeps its loops, internal linkage
    survives the link."""
    from graphopt.runtime.llvm_split import split_module

    marked = IR.replace('label %".3", label %".11"', 'label %".3", label %".11", !llvm.loop !0')
    marked += '!0 = distinct !{!0, !1}\n!1 = !{!"graphopt.llvm_unroll"}\n'
    parts, restore = split_module(marked)
    assert [unroll for _, unroll in parts] == [True, False]
    assert '@"pool"' in parts[0][0].split("define void @\"main\"")[0] and "k_par0" in parts[1][0]
    tm = target_machine(opt_level=3)
    mod = optimise_ir(marked, tm, 3)
    assert _phis(mod, "pool") == 0
    assert mod.get_function("k").linkage == llvm.Linkage.internal
    np.testing.assert_array_equal(run_main(mod, tm), [1, 2, 3, 4, 5, 15])


def test_window_rows_are_marked_for_llvm_unrolling() -> None:
    """The row form of max-pool marks its row loop; an elementwise kernel
    does not (its module is optimised as one)."""
    import graphopt
    from graphopt.frontends.builder import GraphBuilder

    b = GraphBuilder("f")
    x = b.input((1, 4, 12, 12))
    pooled = graphopt.compile(b.build(b.max_pool2d(x, (3, 3), (2, 2), (1, 1, 1, 1))))
    b = GraphBuilder("f")
    plain = graphopt.compile(b.build(b.relu(b.input((4, 12)))))
    assert '!{!"graphopt.llvm_unroll"}' in pooled.llvm_ir
    assert "graphopt.llvm_unroll" not in plain.llvm_ir


SHORT_BLOCKS = """
func.func @f(%x: tensor<1x4x9x9x8xf32>) -> (tensor<1x4x5x5x8xf32>, tensor<1x4x1x1x8xf32>) {
  %s = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 9, 9>, axes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<1x4x9x9x8xf32>) -> tensor<1x4x5x5x8xf32>
  %m = graph.reduce_mean %x {axes = array<i64: 2, 3>, keepdims} : (tensor<1x4x9x9x8xf32>) -> tensor<1x4x1x1x8xf32>
  func.return %s, %m : tensor<1x4x5x5x8xf32>, tensor<1x4x1x1x8xf32>
}
"""


@pytest.mark.parametrize("cpu", ["haswell", "x86-64"])
def test_short_innermost_loops_vectorise_without_llvm_warnings(cpu, capfd) -> None:
    """An innermost loop of 8 (an NCHWc block of AVX2) asks LLVM's vectoriser
    only when its body is plain loads, stores and arithmetic (the slice); an
    innermost output loop around a reduction's loops (the mean) does not ask,
    which LLVM would answer on stderr ('loop not vectorized')."""
    import graphopt
    from graphopt.runtime.compile import parse_text

    x = np.random.default_rng(0).standard_normal((1, 4, 9, 9, 8)).astype(np.float32)
    s, m = graphopt.compile(parse_text(SHORT_BLOCKS), opt_level=2, target=cpu)["f"](x)
    np.testing.assert_array_equal(s, x[:, :, ::2, ::2])
    np.testing.assert_allclose(m, x.mean(axis=(2, 3), keepdims=True), rtol=1e-5, atol=1e-6)
    assert "loop not vectorized" not in capfd.readouterr().err
