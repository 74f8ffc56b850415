"""The loop level to xDSL's ``llvm`` dialect, one pass per source dialect.

``lower-loop-to-llvm`` is a named pipeline of these passes, as in MLIR:

1. ``convert-loop-to-llvm``: the driver ABI; large constants become driver
   arguments recorded in ``#loop.abi`` (:mod:`.loop`);
2. ``convert-parallel-to-llvm``: each ``scf.parallel`` is outlined into a
   function over a context struct and run on libgomp's persistent thread pool
   (``GOMP_parallel``; :mod:`.parallel`);
3. ``convert-scf-to-cf``: xDSL's own patterns; ``scf.for`` becomes a header
   block (``arith.cmpi slt``), a body ending in ``arith.addi`` and a branch
   back; before them xDSL's canonicalisations inline one-iteration loops and
   ``scf.if`` on constants (:func:`convert_scf_to_cf`);
4. ``expand-math`` (:mod:`graphopt.lowering.expand_math`): f32 exp, log,
   tanh and erf become vectorisable polynomials;
5. ``convert-arith-to-llvm``, ``convert-math-to-llvm`` (libm where LLVM has no
   intrinsic), ``convert-vector-to-llvm``, ``convert-memref-to-llvm``,
   ``convert-cf-to-llvm``, ``convert-func-to-llvm`` (:mod:`.arith`,
   :mod:`.math`, :mod:`.vector`, :mod:`.memref`, :mod:`.cf`, :mod:`.func`);
6. ``reconcile-unrealized-casts``: xDSL's pass removes the casts the
   conversions placed between converted and not yet converted values;
7. ``merge-functions``: kernels equal up to integer constants become one
   function taking them as parameters, and thunks (:mod:`.merge_functions`).

The result holds only top-level ``llvm.func`` and ``llvm.mlir.global`` ops, so
``graph-opt -p lower-loop-to-llvm -t llvm`` prints LLVM IR (:mod:`.llvm_ir`),
kernels ``noinline`` (a driver inlining hundreds of kernels made LLVM's
optimisation and code generation superlinear; a kernel call costs nothing next
to its loop nest).  No pointer argument but the hidden constants is
``noalias``: memory planning may make a kernel's input and output share
storage (in-place ops).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnrealizedConversionCastOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier
from xdsl.transforms.canonicalization_patterns.scf import IfPropagateConstantCondition, SimplifyTrivialLoops
from xdsl.transforms.convert_scf_to_cf import IfLowering
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

from graphopt.dialects.loop import module_target
from graphopt.lowering.expand_math import expand_math
from graphopt.lowering.to_llvm.arith import ConvertArithToLLVMPass
from graphopt.lowering.to_llvm.cf import ConvertCfToLLVMPass, ForLowering
from graphopt.lowering.to_llvm.common import ConversionPass, InPlaceCastPattern, LoopToLLVMError, in_place_types
from graphopt.lowering.to_llvm.func import ConvertFuncToLLVMPass
from graphopt.lowering.to_llvm.llvm_ir import print_llvm_ir
from graphopt.lowering.to_llvm.loop import ConvertLoopToLLVMPass
from graphopt.lowering.to_llvm.math import ConvertMathToLLVMPass
from graphopt.lowering.to_llvm.memref import ConvertMemRefToLLVMPass
from graphopt.lowering.to_llvm.merge_functions import merge_constant_variants
from graphopt.lowering.to_llvm.parallel import ConvertParallelToLLVMPass, outline_parallel
from graphopt.lowering.to_llvm.vector import ConvertVectorToLLVMPass
from graphopt.transforms.levels import LOOP, require_level

__all__ = [
    "CONVERSION_PASSES",
    "LoopToLLVMError",
    "LowerLoopToLLVMPass",
    "emit_llvm_ir",
    "lower_loop_to_llvm",
]

CONVERSION_PASSES: tuple[type[ModulePass], ...] = (
    ConvertLoopToLLVMPass,
    ConvertParallelToLLVMPass,
    ConvertArithToLLVMPass,
    ConvertMathToLLVMPass,
    ConvertVectorToLLVMPass,
    ConvertMemRefToLLVMPass,
    ConvertCfToLLVMPass,
    ConvertFuncToLLVMPass,
)


def check_lowered(module: ModuleOp) -> None:
    """Everything left that is not llvm is one diagnostic."""
    for op in module.ops:
        if not isinstance(op, llvm.FuncOp | llvm.GlobalOp):
            raise LoopToLLVMError(f"'{op.name}' at module level is not supported by lower-loop-to-llvm")
        for inner in op.walk():
            if inner is not op and not inner.name.startswith("llvm."):
                where = f" (in @{op.sym_name.data})"
                if isinstance(inner, UnrealizedConversionCastOp):
                    raise LoopToLLVMError(f"a value of type {inner.inputs[0].type} is left unconverted{where}")
                raise LoopToLLVMError(f"'{inner.name}' is not supported by lower-loop-to-llvm{where}")


@dataclass(frozen=True)
class LowerLoopToLLVMPass(ModulePass):
    """The named pipeline of the module docstring."""

    name = "lower-loop-to-llvm"

    max_inline_constant_bytes: int = 4096
    bounds_check: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, LOOP)
        # The level is checked once here, not again by every step.
        ConvertLoopToLLVMPass(self.max_inline_constant_bytes).convert(op)
        outline_parallel(op)
        convert_scf_to_cf(op)
        expand_math(op)
        convert_in_one_walk(op, self.bounds_check)
        merge_constant_variants(op)
        check_lowered(op)


def convert_scf_to_cf(module: ModuleOp) -> None:
    """xDSL's convert-scf-to-cf patterns in one walk, each loop or ``if``
    first offered to xDSL's folding of one-iteration loops and constant
    conditions (a loop of trip count 1 is then no loop in LLVM IR)."""
    ConversionPass.run(module, {
        scf.ForOp: GreedyRewritePatternApplier([SimplifyTrivialLoops(), ForLowering()], dce_enabled=False),
        scf.IfOp: GreedyRewritePatternApplier([IfPropagateConstantCondition(), IfLowering()], dce_enabled=False),
    })  # fmt: skip


def convert_in_one_walk(module: ModuleOp, bounds_check: bool = False) -> None:
    """The arith, math, vector, memref, cf and func steps: their patterns
    (disjoint op classes) applied in one walk, types converted in place
    (:mod:`.common`); xDSL's reconciliation runs only if a cast is left."""
    steps: list[ConversionPass] = [
        ConvertArithToLLVMPass(), ConvertMathToLLVMPass(), ConvertVectorToLLVMPass(bounds_check),
        ConvertMemRefToLLVMPass(bounds_check), ConvertCfToLLVMPass(), ConvertFuncToLLVMPass(),
    ]  # fmt: skip
    tables = [step.patterns() for step in steps]
    merged: dict = {UnrealizedConversionCastOp: InPlaceCastPattern()}
    for table in tables:
        merged.update(table)
    with in_place_types() as state:
        ConversionPass.run(module, merged)
    for step, table in zip(steps, tables):
        step.finish(module, table)
    if not state.fold_casts():
        ConversionPass.run(module, {UnrealizedConversionCastOp: ReconcileUnrealizedCastsPattern()})


def lower_loop_to_llvm(module: ModuleOp, max_inline_constant_bytes: int = 4096, bounds_check: bool = False) -> None:
    """Run ``lower-loop-to-llvm`` on ``module``, in place."""
    LowerLoopToLLVMPass(max_inline_constant_bytes, bounds_check).apply(Context(), module)


def emit_llvm_ir(module: ModuleOp, target_triple: str | None = None) -> str:
    """LLVM IR text of a lowered module (:mod:`.llvm_ir`), for the triple of
    its ``#loop.target`` (or ``llvm.target_triple``; else the host's)."""
    triple = module.attributes.get("llvm.target_triple")
    if isinstance(triple, StringAttr):
        target_triple = triple.data
    elif target_triple is None:
        target_triple = module_target(module).triple
    return print_llvm_ir(module, target_triple)
