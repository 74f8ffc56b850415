"""Module-level verification that per-op verifiers cannot do, run by
``graph-opt`` and ``graphopt.compile`` after the ops verify
(``graphopt.diagnostics.verify_located``):

* SSA dominance in every region (``dominance``);
* a ``func.func`` without a body is a declaration, which must be private
  (as MLIR requires): a public one would be an entry point with no code;
* every dimension of a function signature fits in int64, and its byte size
  in an array, as the per-op verifiers check for the values the ops use;
* the source names of a function's arguments and results (``graph.name``,
  see ``names``) are non-empty strings, distinct among the arguments and
  among the results.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.graph.base import check_tensor_size
from graphopt.dialects.graph.dominance import ModuleVerifyError, verify_dominance
from graphopt.dialects.graph.names import check_interface_names


def _check_function(fn: func.FuncOp) -> None:
    name = f"func.func @{fn.sym_name.data}"
    if not fn.body.blocks:
        visibility = fn.sym_visibility.data if fn.sym_visibility is not None else "public"
        if visibility == "public":
            raise ModuleVerifyError(
                fn,
                f"{name}: a function without a body is a declaration and must be private "
                "(func.func private @name(...)); give it a body to define it",
            )
    signature = fn.function_type
    arg_names = [a.name_hint for a in fn.body.blocks[0].args] if fn.body.blocks else []
    for kind, types in (("argument", signature.inputs.data), ("result", signature.outputs.data)):
        for index, t in enumerate(types):
            hint = arg_names[index] if kind == "argument" and index < len(arg_names) else None
            try:
                check_tensor_size(f"{name}: {kind} #{index}", t, hint)
            except VerifyException as err:
                raise ModuleVerifyError(fn, str(err)) from None
    try:
        check_interface_names(fn)
    except VerifyException as err:
        raise ModuleVerifyError(fn, str(err)) from None


def verify_graph_module(root: Operation) -> None:
    """Raise :class:`ModuleVerifyError` at the first failure."""
    modules = [root]
    while modules:  # functions live in (possibly nested) module bodies
        for region in modules.pop().regions:
            for block in region.blocks:
                for op in block.ops:
                    if isinstance(op, func.FuncOp):
                        _check_function(op)
                    elif isinstance(op, ModuleOp):
                        modules.append(op)
    verify_dominance(root)


__all__ = ["ModuleVerifyError", "verify_graph_module"]
