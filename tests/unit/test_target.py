"""The target description: what it reads of LLVM, how it is chosen and
recorded, and that the code built for it is for it (no AVX-512 instruction
in an AVX2 build; an object for another architecture)."""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt.dialects.loop import TARGET_ATTR_NAME, TargetAttr, module_target
from graphopt.errors import ArgumentError
from graphopt.runtime.compile import lowered_module
from graphopt.runtime.jit import parse_and_optimize, target_machine
from graphopt.lowering.to_llvm import emit_llvm_ir
from graphopt.target import Target

X86 = "x86_64-unknown-linux-gnu"
AARCH64 = "aarch64-unknown-linux-gnu"

CONV_MLP = """
func.func @net(%x: tensor<1x16x12x12xf32>) -> tensor<1x10xf32> {
  %w = graph.constant dense<0.01> : tensor<32x16x3x3xf32>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x12x12xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x12x12xf32>
  %r = graph.relu %c : tensor<1x32x12x12xf32>
  %w2 = graph.constant dense<0.02> : tensor<32x32x1x1xf32>
  %c2 = graph.conv2d %r, %w2 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x12x12xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x12x12xf32>
  %f = graph.reshape %c2 : (tensor<1x32x12x12xf32>) -> tensor<1x4608xf32>
  %m = graph.constant dense<0.001> : tensor<4608x10xf32>
  %y = graph.matmul %f, %m : (tensor<1x4608xf32>, tensor<4608x10xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}
"""


def test_the_vector_unit_is_read_off_llvm() -> None:
    haswell = Target.from_options(cpu="haswell", triple=X86)
    assert (haswell.vector_bits, haswell.f32_lanes, haswell.vector_registers, haswell.fma) == (256, 8, 16, True)
    assert haswell.vector_isa == "AVX2" and haswell.has_micro_kernels
    skx = Target.from_options(cpu="skylake-avx512", triple=X86)
    assert (skx.vector_bits, skx.f32_lanes, skx.vector_registers, skx.fma) == (512, 16, 32, True)
    assert skx.llvm_features == "-prefer-256-bit"  # full zmm vectors, as the kernels are shaped
    baseline = Target.from_options(cpu="x86-64", triple=X86)
    assert (baseline.f32_lanes, baseline.fma, baseline.has_micro_kernels) == (4, False, False)
    arm = Target.from_options(triple=AARCH64)
    assert (arm.cpu, arm.f32_lanes, arm.vector_registers, arm.fma, arm.vector_isa) == ("generic", 4, 32, True, "NEON")


def test_features_change_the_host_or_the_named_cpu() -> None:
    host = Target.host()
    assert Target.from_options() == host
    without = Target.from_options(features="-avx512f")
    assert without.cpu == host.cpu and without.features.endswith(",-avx512f")
    assert without.vector_bits <= 256
    assert Target.from_options(cpu="skylake-avx512", features="-avx512f").f32_lanes == 8
    # a target for this CPU keeps the machine's caches; another CPU's come from the table
    assert Target.from_options(cpu=host.cpu).caches == host.caches
    assert Target.from_options(cpu="haswell", triple=X86).caches == (32 << 10, 512 << 10, 16 << 20)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cpu": "no-such-cpu"}, "'no-such-cpu' is not a recognized processor"),
        ({"cpu": "haswell", "features": "+no-such-feature"}, "'\\+no-such-feature' is not a recognized feature"),
        ({"features": "avx2"}, "must be '\\+name' or '-name'"),
        ({"triple": "no-such-arch-linux"}, "unknown target triple 'no-such-arch-linux'"),
    ],
)
def test_an_unknown_target_is_one_argument_error(options: dict, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        Target.from_options(**options)


def test_the_environment_sets_the_default_target(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHOPT_TARGET_FEATURES", raising=False)  # (the suite may run under it)
    monkeypatch.setenv("GRAPHOPT_TARGET_CPU", "haswell")
    monkeypatch.setenv("GRAPHOPT_TARGET_TRIPLE", X86)
    assert Target.default() == Target.from_options(cpu="haswell", triple=X86)
    module = graphopt.parse_text(CONV_MLP)
    assert module_target(module).f32_lanes == 8
    monkeypatch.delenv("GRAPHOPT_TARGET_CPU")
    monkeypatch.delenv("GRAPHOPT_TARGET_TRIPLE")
    assert Target.default() == Target.host()


def test_the_module_attribute_is_the_target() -> None:
    module = graphopt.parse_text(CONV_MLP)
    module.attributes[TARGET_ATTR_NAME] = TargetAttr("haswell", "", X86)
    fn = next(iter(module.ops))
    assert module_target(fn) == Target.from_options(cpu="haswell", triple=X86)  # from an op inside


def _assembly(target: Target) -> str:
    module = lowered_module(CONV_MLP, opt_level=3, target=target, max_inline_constant_bytes=-1)
    assert module_target(module) == target
    tm = target_machine(target, 3, jit=False)
    return tm.emit_assembly(parse_and_optimize(emit_llvm_ir(module), tm, 3, target))


def test_an_avx2_build_has_no_avx512_instruction() -> None:
    """Kernels for AVX2 use ymm registers only: compiled for haswell, the
    conv, pointwise-conv and matmul kernels hold no zmm register, while the
    AVX-512 build of the same model does (checked on any host: the
    assembly, not the run)."""
    avx2 = _assembly(Target.from_options(cpu="haswell", triple=X86))
    assert "ymm" in avx2 and "zmm" not in avx2
    assert "vfmadd" in avx2
    avx512 = _assembly(Target.from_options(cpu="skylake-avx512", triple=X86))
    assert "zmm" in avx512


def test_an_object_for_another_architecture() -> None:
    from graphopt.runtime.aot import object_code

    module = lowered_module(CONV_MLP, opt_level=2, target=Target.from_options(triple=AARCH64), max_inline_constant_bytes=-1)
    obj = object_code(module)
    assert obj[:4] == b"\x7fELF" and int.from_bytes(obj[18:20], "little") == 183  # EM_AARCH64


def test_a_target_this_machine_cannot_run_is_refused() -> None:
    with pytest.raises(ArgumentError, match="which this machine .* cannot run"):
        graphopt.compile(CONV_MLP, opt_level=2, target=Target.from_options(triple=AARCH64))


@pytest.mark.parametrize("cpu", ["haswell", "x86-64", "skylake-avx512"])
def test_each_x86_target_computes_the_reference(cpu: str) -> None:
    """The same model compiled for AVX2, for the SSE baseline (no FMA: the
    scalar-safe path) and for AVX-512, run where this machine can."""
    target = Target.from_options(cpu=cpu, triple=X86)
    if not target.runs_on_host():
        pytest.skip(f"this machine cannot run {target.vector_isa} code (compiled in the test above)")
    x = np.random.default_rng(0).standard_normal((1, 16, 12, 12)).astype(np.float32)
    (expected,) = graphopt.interpret(graphopt.parse_text(CONV_MLP), x)
    got = graphopt.compile(CONV_MLP, opt_level=3, target=target)["net"](x)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-5)
