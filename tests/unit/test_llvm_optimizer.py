"""The LLVM optimiser: the module split (no loop unrolling for the launchers
and scalar parts of vectorised kernels), the link back, and the worker process."""

import ctypes

import llvmlite.binding as llvm
import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.jit import JITError, compile_llvm_ir, host_target_machine
from graphopt.runtime.llvm_optimizer import Optimiser, optimise_ir, split_module

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


def test_split_puts_the_launcher_of_a_vector_kernel_and_its_scalar_part_apart() -> None:
    parts, restore = split_module(IR)
    assert [unroll for _, unroll in parts] == [True, False]
    full, lean = (text for text, _ in parts)
    for name in ("k_par0", "pool", "main"):
        assert f'void @"{name}"(ptr %".1") noinline\n{{' in full
    for name in ("k", "k_par1"):
        assert f'void @"{name}"(ptr %".1") noinline\n{{' in lean
        assert f'void @"{name}"(ptr %".1") noinline\n{{' not in full
    # What one part uses of the other is declared there and external here.
    assert 'declare void @"k"(ptr) noinline' in full and 'define void @"k"(' in lean
    assert 'declare void @"k_par0"(ptr) noinline' in lean and 'define void @"k_par0"(' in full
    assert '@"cst" = internal constant' in full and "cst" not in lean
    assert sorted(restore) == ["k", "k_par0"]


def test_split_module_links_back_with_the_linkage_it_had() -> None:
    tm = host_target_machine(3)
    mod = optimise_ir(IR, tm, 3)
    assert mod.get_function("main").linkage == llvm.Linkage.external
    assert mod.get_function("k").linkage == llvm.Linkage.internal
    assert mod.get_function("k_par0").linkage == llvm.Linkage.internal
    np.testing.assert_array_equal(run_main(mod, tm), [1, 2, 3, 4, 5, 15])


def test_a_module_without_vector_kernels_is_not_split() -> None:
    scalar_only = IR.replace("<4 x float>", "float")
    assert split_module(scalar_only) == ([(scalar_only, True)], [])


def test_a_conv_launcher_skips_unrolling_and_its_body_and_max_pool_keep_it() -> None:
    """A scheduled conv: its vectorised body gets the full pipeline, its
    launcher and scalar part (the padded input copy) no unrolling; the
    max-pool (scalar, whose 3x3 window LLVM unrolls before it vectorises the
    row) gets the full pipeline."""
    b = GraphBuilder("f")
    x = b.input((1, 64, 56, 56), np.float32)  # large enough for parallel loops
    w = b.constant(np.random.default_rng(0).standard_normal((64, 64, 3, 3)).astype(np.float32))
    y = b.max_pool2d(b.conv2d(x, w, strides=(2, 2), padding=(1,) * 4), (3, 3), strides=(2, 2), padding=(1,) * 4)
    cm = graphopt.compile(b.build(y), opt_level=2)
    (full, _), (lean, _) = split_module(cm.llvm_ir)[0]

    def defined(text: str) -> set[str]:
        return {line.split("@", 1)[1].split("(")[0].strip('"') for line in text.split("\n") if line.startswith("define")}

    assert {n for n in defined(lean) if "conv2d" in n} == defined(lean)
    assert any("conv2d_par" in n for n in defined(full)) and any("max_pool2d" in n for n in defined(full))
    assert not any("max_pool2d" in n for n in defined(lean))


def test_invalid_ir_is_reported_for_the_text_as_given() -> None:
    bad = IR.replace('  ret void\n}\ndefine internal void @"pool"', '  ret i32 0\n}\ndefine internal void @"pool"')
    with pytest.raises(JITError, match="invalid LLVM IR"):
        compile_llvm_ir(bad, 3)


def test_the_worker_optimises_like_this_process() -> None:
    tm = host_target_machine(3)
    here = str(optimise_ir(IR, tm, 3))
    worker = Optimiser(in_process_runs=0)
    try:
        bad = IR.replace("fadd float", "fadd double")
        with pytest.raises(RuntimeError):  # refused by the worker, reported here
            worker.optimise(bad, tm, 3)
        there = worker.optimise(IR, tm, 3)
        assert worker._worker is not None and not worker._worker_failed
        assert worker._worker.runs == 1
    finally:
        worker.close()
    assert str(there).split("\n", 1)[1] == here.split("\n", 1)[1]
    np.testing.assert_array_equal(run_main(there, tm), [1, 2, 3, 4, 5, 15])
