"""The project's passes, registered by name for ``graph-opt -p``.

Each entry names the module and class of a pass; the module is imported only
when the pass is used, so ``graph-opt`` starts fast.
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

PASS_LOCATIONS: dict[str, tuple[str, str]] = {
    "fold-constants": ("graphopt.transforms.fold_constants", "FoldConstantsPass"),
    "canonicalize-graph": ("graphopt.transforms.canonicalize_graph", "CanonicalizeGraphPass"),
    "decompose": ("graphopt.transforms.decompose", "DecomposePass"),
    "fold-batch-norm": ("graphopt.transforms.fold_batch_norm", "FoldBatchNormPass"),
    "layout-nchwc": ("graphopt.transforms.layout_nchwc", "LayoutNchwcPass"),
    "fuse-ops": ("graphopt.transforms.fusion", "FuseOpsPass"),
    "plan-memory": ("graphopt.transforms.memory", "PlanMemoryPass"),
    "plan-devices": ("graphopt.transforms.plan_devices", "PlanDevicesPass"),
    "autodiff": ("graphopt.transforms.autodiff", "AutodiffPass"),
    "lower-graph-to-loop": ("graphopt.lowering.graph_to_loop", "LowerGraphToLoopPass"),
    "lower-loop-to-llvm": ("graphopt.lowering.to_llvm", "LowerLoopToLLVMPass"),
    "convert-loop-to-llvm": ("graphopt.lowering.to_llvm.loop", "ConvertLoopToLLVMPass"),
    "convert-parallel-to-llvm": ("graphopt.lowering.to_llvm.parallel", "ConvertParallelToLLVMPass"),
    "convert-arith-to-llvm": ("graphopt.lowering.to_llvm.arith", "ConvertArithToLLVMPass"),
    "convert-math-to-llvm": ("graphopt.lowering.to_llvm.math", "ConvertMathToLLVMPass"),
    "convert-memref-to-llvm": ("graphopt.lowering.to_llvm.memref", "ConvertMemRefToLLVMPass"),
    "convert-vector-to-llvm": ("graphopt.lowering.to_llvm.vector", "ConvertVectorToLLVMPass"),
    "convert-cf-to-llvm": ("graphopt.lowering.to_llvm.cf", "ConvertCfToLLVMPass"),
    "convert-func-to-llvm": ("graphopt.lowering.to_llvm.func", "ConvertFuncToLLVMPass"),
    "merge-functions": ("graphopt.lowering.to_llvm.merge_functions", "MergeFunctionsPass"),
    "expand-math": ("graphopt.lowering.expand_math", "ExpandMathPass"),
}


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        return getattr(import_module(module), cls)

    return factory


def project_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> lazy factory of every pass graph-opt defines."""
    return {name: _lazy(mod, cls) for name, (mod, cls) in PASS_LOCATIONS.items()}
