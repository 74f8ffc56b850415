"""The compile-time shortcuts give the same IR as the long way round:

* ``lower-loop-to-llvm`` applies the arith, math, vector, memref, cf and func
  patterns in one walk with types converted in place; running the steps one by
  one, with casts and xDSL's reconcile-unrealized-casts, gives the same LLVM IR;
* one-to-one conversions turn the op into its llvm op in place (no new op,
  no use moved): new ops replacing them give the same module;
* ``lower-graph-to-loop`` reuses a kernel by its source key before emitting it;
  emitting every kernel and de-duplicating the emitted ones gives the same
  loop-level module."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType, UnrealizedConversionCastOp, VectorType, f32, i1, i64
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

import graphopt.lowering.graph_to_loop as g2l
from graphopt.lowering.expand_math import expand_math
from graphopt.lowering.to_llvm import ConversionPass, LowerLoopToLLVMPass, check_lowered, convert_scf_to_cf, emit_llvm_ir
from graphopt.lowering.to_llvm import arith as arith_to_llvm
from graphopt.lowering.to_llvm import common, memref, scalar, vector
from graphopt.lowering.to_llvm.arith import ConvertArithToLLVMPass
from graphopt.lowering.to_llvm.cf import ConvertCfToLLVMPass
from graphopt.lowering.to_llvm.func import ConvertFuncToLLVMPass
from graphopt.lowering.to_llvm.loop import ConvertLoopToLLVMPass
from graphopt.lowering.to_llvm.math import ConvertMathToLLVMPass
from graphopt.lowering.to_llvm.memref import ConvertMemRefToLLVMPass
from graphopt.lowering.to_llvm.merge_functions import merge_constant_variants
from graphopt.lowering.to_llvm.parallel import outline_parallel
from graphopt.lowering.to_llvm.vector import ConvertVectorToLLVMPass
from graphopt.runtime.compile import parse_file, run_pipeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = [("cnn", "O2"), ("transformer_block", "O2"), ("mlp_loss", "O0"), ("resnet_block", "O3")]


def loop_level(name: str, level: str):
    module = parse_file(EXAMPLES / f"{name}.mlir")
    run_pipeline(module, level)
    g2l.lower_graph_to_loop(module)
    return module


def step_by_step(module, bounds_check: bool) -> None:
    ConvertLoopToLLVMPass().convert(module)
    outline_parallel(module)
    convert_scf_to_cf(module)
    expand_math(module)
    for step in (
        ConvertArithToLLVMPass(), ConvertMathToLLVMPass(), ConvertVectorToLLVMPass(bounds_check),
        ConvertMemRefToLLVMPass(bounds_check), ConvertCfToLLVMPass(), ConvertFuncToLLVMPass(),
    ):  # fmt: skip
        step.convert(module)
    ConversionPass.run(module, {UnrealizedConversionCastOp: ReconcileUnrealizedCastsPattern()})
    merge_constant_variants(module)
    check_lowered(module)


@pytest.mark.parametrize("name,level", CASES)
@pytest.mark.parametrize("bounds_check", [False, True])
def test_one_walk_equals_the_steps(name: str, level: str, bounds_check: bool) -> None:
    one_walk = loop_level(name, level)
    steps = one_walk.clone()
    LowerLoopToLLVMPass(bounds_check=bounds_check).apply(Context(), one_walk)
    step_by_step(steps, bounds_check)
    assert not any(isinstance(op, UnrealizedConversionCastOp) for op in one_walk.walk())
    assert emit_llvm_ir(one_walk) == emit_llvm_ir(steps)


@pytest.mark.parametrize("name,level", CASES)
def test_source_key_reuse_equals_emitting_every_kernel(name: str, level: str, monkeypatch) -> None:
    reused = loop_level(name, level)
    monkeypatch.setattr(g2l.FunctionLowering, "_source_key", lambda *args: None)
    emitted = loop_level(name, level)
    assert str(reused) == str(emitted)


def _rebuild(rewriter, op, cls, operands, properties=None):
    """The long way round of :func:`common.morph`: a new op replaces ``op``."""
    new = common.build(cls, operands, [common.llvm_type(r.type) for r in op.results], dict(properties or {}))
    common.replace_with_llvm(rewriter, op, [new], new.results)
    return list(new.results)


@pytest.mark.parametrize("name,level", CASES)
def test_in_place_conversion_equals_rebuilding(name: str, level: str, monkeypatch) -> None:
    """Ops converted in place (``morph``, an ``arith.constant`` becoming the
    shared constant) give the same module, op for op, as new ops replacing
    them, in the one walk and step by step."""
    morphed = loop_level(name, level)
    rebuilt, steps = morphed.clone(), morphed.clone()
    LowerLoopToLLVMPass().apply(Context(), morphed)
    morphed.verify()  # a morphed op has what its class's constructor gives it
    for module in (scalar, vector, memref):
        monkeypatch.setattr(module, "morph", _rebuild)
    monkeypatch.setitem(arith_to_llvm.HANDLERS, arith.ConstantOp, lambda e, op, a: [scalar.const(e, op.value.value.data, op.results[0].type)])
    LowerLoopToLLVMPass().apply(Context(), rebuilt)
    assert str(morphed) == str(rebuilt)
    step_by_step(steps, False)
    assert emit_llvm_ir(steps) == emit_llvm_ir(rebuilt)


def test_llvm_type_by_class() -> None:
    assert common.llvm_type(MemRefType(f32, [2, 3])) == common.PTR
    assert common.llvm_type(IndexType()) == i64
    for t in (f32, i1, VectorType(f32, [8])):
        assert common.llvm_type(t) == t
    for _ in range(2):  # an unsupported type is never remembered as supported
        with pytest.raises(common.LoopToLLVMError, match="tensor<2xf32>"):
            common.llvm_type(TensorType(f32, [2]))
