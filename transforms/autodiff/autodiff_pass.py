"""The ``autodiff`` pass and its Python API.

    graph-opt -p 'autodiff{func=loss wrt=w1,b1 seed=ones}' model.mlir
    graph-opt -p 'autodiff{func=loss wrt=w1,b1 train=true lr=0.1}' model.mlir

The first adds ``@loss_grad`` (see ``reverse``); the second adds the SGD
training step ``@loss_train`` (see ``training``).  ``wrt`` names arguments by
index or by SSA name (``x`` for ``%x``); by default every float argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from graphopt.transforms.autodiff.reverse import differentiate, resolve_wrt
from graphopt.transforms.autodiff.rules import GradientError
from graphopt.transforms.autodiff.training import training_step
from graphopt.transforms.levels import GRAPH, require_level


def find_function(module: ModuleOp, name: str | None) -> func.FuncOp:
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is None:
        if len(funcs) == 1:
            return funcs[0]
        names = ", ".join("@" + f.sym_name.data for f in funcs) or "none"
        raise GradientError(f"autodiff: choose the function with func=NAME (functions: {names})")
    for f in funcs:
        if f.sym_name.data == name.lstrip("@"):
            return f
    raise GradientError(f"autodiff: no function @{name.lstrip('@')} in the module")


def _insert_after(module: ModuleOp, fn: func.FuncOp, new_fn: func.FuncOp) -> func.FuncOp:
    name = new_fn.sym_name.data
    if any(isinstance(op, func.FuncOp) and op.sym_name.data == name for op in module.ops):
        raise GradientError(f"autodiff: the module already has a function @{name}")
    module.body.block.insert_op_after(new_fn, fn)
    return new_fn


def add_gradient(
    module: ModuleOp,
    func_name: str | None = None,
    wrt: Sequence[int | str] | None = None,
    seed: str = "head",
    name: str | None = None,
) -> func.FuncOp:
    """Add ``@<func>_grad`` to ``module`` (in place) and return it."""
    fn = find_function(module, func_name)
    return _insert_after(module, fn, differentiate(fn, resolve_wrt(fn, wrt), seed, name))


def add_training_step(
    module: ModuleOp,
    func_name: str | None = None,
    wrt: Sequence[int | str] | None = None,
    lr: float = 0.01,
    name: str | None = None,
) -> func.FuncOp:
    """Add the SGD training step ``@<func>_train`` to ``module`` and return it."""
    fn = find_function(module, func_name)
    return _insert_after(module, fn, training_step(fn, resolve_wrt(fn, wrt), lr, name))


@dataclass(frozen=True)
class AutodiffPass(ModulePass):
    """Add the gradient function (or, with ``train``, the SGD training step)
    of ``func`` with respect to ``wrt``."""

    name = "autodiff"

    func: str | None = None
    wrt: tuple[int | str, ...] = ()
    seed: str = "head"
    train: bool = False
    lr: float = 0.01

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        wrt = list(self.wrt) or None
        if self.train:
            add_training_step(op, self.func, wrt, self.lr)
        else:
            add_gradient(op, self.func, wrt, self.seed)
