"""A Python API to build graph functions, with result types inferred.

    b = GraphBuilder("mlp")
    x = b.input((8, 784))
    w = b.constant(np.random.rand(784, 10).astype(np.float32))
    y = b.softmax(b.relu(b.add(b.matmul(x, w), bias)))
    module = b.build(y)

Every method appends one ``graph`` op and returns its result value(s); types
come from the op's own inference, so shape errors surface at build time as a
``VerifyException`` naming the op and shapes.

Every graph op is a real method: the few written out below, and one method
per remaining op of ``GRAPH_OPS``, made from the op's constructor (same
parameters, its docstring), so ``dir()``, ``help()`` and
``inspect.signature`` see them.  ``builder.pyi`` declares them all for type
checkers and IDEs; it is generated from the same signatures
(``python -m graphopt.frontends.builder > frontends/builder.pyi``) and a test
keeps it in sync.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np
from xdsl.builder import Builder
from xdsl.rewriter import InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Region, SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph import GraphOp, element_type_of, f32, tensor


class GraphBuilder:
    """Builds one ``func.func`` of graph ops; ``build`` wraps it in a module."""

    def __init__(self, name: str = "main"):
        self.name = name
        self.block = Block()
        self._builder = Builder(InsertPoint.at_end(self.block))
        self.functions: list[func.FuncOp] = []

    # -- arguments and constants ---------------------------------------------

    def input(
        self, shape: Sequence[int], dtype: np.dtype | type | Attribute = np.float32, name: str | None = None
    ) -> SSAValue:
        """A new function argument of the given shape and dtype."""
        elem = dtype if isinstance(dtype, Attribute) else element_type_of(dtype)
        arg = self.block.insert_arg(tensor(shape, elem), len(self.block.args))
        if name:
            arg.name_hint = name
        return arg

    def constant(self, value: np.ndarray | float | int, dtype: np.dtype | type | None = None) -> SSAValue:
        array = np.asarray(value, dtype=dtype if dtype is not None else None)
        if array.dtype == np.float64 and dtype is None and not isinstance(value, np.ndarray):
            array = array.astype(np.float32)
        return self._add(graph.ConstantOp.from_array(array)).result

    def splat(self, shape: Sequence[int], value: float | int, dtype: Attribute = f32) -> SSAValue:
        return self._add(graph.ConstantOp.splat_of(tensor(shape, dtype), value)).result

    # -- ops -----------------------------------------------------------------

    def _add(self, op: GraphOp) -> GraphOp:
        self._builder.insert(op)
        return op

    def apply(self, op: GraphOp) -> SSAValue | tuple[SSAValue, ...]:
        """Insert a ready-made op (e.g. a plugin's); return its result(s)."""
        self._add(op)
        return op.results[0] if len(op.results) == 1 else tuple(op.results)

    def neg(self, x: SSAValue) -> SSAValue:
        return self._add(graph.NegOp(x)).result

    def exp(self, x: SSAValue) -> SSAValue:
        return self._add(graph.ExpOp(x)).result

    def log(self, x: SSAValue) -> SSAValue:
        return self._add(graph.LogOp(x)).result

    def sqrt(self, x: SSAValue) -> SSAValue:
        return self._add(graph.SqrtOp(x)).result

    def tanh(self, x: SSAValue) -> SSAValue:
        return self._add(graph.TanhOp(x)).result

    def sigmoid(self, x: SSAValue) -> SSAValue:
        return self._add(graph.SigmoidOp(x)).result

    def relu(self, x: SSAValue) -> SSAValue:
        return self._add(graph.ReluOp(x)).result

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(graph.AddOp(a, b)).result

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(graph.SubOp(a, b)).result

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(graph.MulOp(a, b)).result

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(graph.DivOp(a, b)).result

    def maximum(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(graph.MaximumOp(a, b)).result

    def matmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(graph.MatmulOp(a, b)).result

    def transpose(self, x: SSAValue, perm: Sequence[int] | None = None) -> SSAValue:
        return self._add(graph.TransposeOp(x, perm)).result

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        return self._add(graph.ReshapeOp(x, shape)).result

    def reduce_sum(self, x: SSAValue, axes: Sequence[int] | None = None, keepdims: bool = False) -> SSAValue:
        return self._add(graph.ReduceSumOp(x, axes, keepdims)).result

    def reduce_mean(self, x: SSAValue, axes: Sequence[int] | None = None, keepdims: bool = False) -> SSAValue:
        return self._add(graph.ReduceMeanOp(x, axes, keepdims)).result

    def reduce_max(self, x: SSAValue, axes: Sequence[int] | None = None, keepdims: bool = False) -> SSAValue:
        return self._add(graph.ReduceMaxOp(x, axes, keepdims)).result

    def softmax(self, x: SSAValue, axis: int = -1) -> SSAValue:
        return self._add(graph.SoftmaxOp(x, axis)).result

    # -- finishing -------------------------------------------------------------

    def function(self, *outputs: SSAValue) -> func.FuncOp:
        """Close the current function, returning ``outputs``; start a new one."""
        self._builder.insert(func.ReturnOp(*outputs))
        arg_types = [a.type for a in self.block.args]
        out_types: list[Attribute] = [o.type for o in outputs]
        fn = func.FuncOp(self.name, (arg_types, out_types), Region(self.block))
        self.functions.append(fn)
        self.block = Block()
        self._builder = Builder(InsertPoint.at_end(self.block))
        return fn

    def build(self, *outputs: SSAValue) -> ModuleOp:
        """Finish the function returning ``outputs`` and return a verified module."""
        if outputs or not self.functions:
            self.function(*outputs)
        module = ModuleOp(list(self.functions))
        self.functions = []
        module.verify()
        return module


def tensor_type(shape: Sequence[int], dtype: np.dtype | type = np.float32) -> TensorType:
    return tensor(shape, element_type_of(dtype))


# -- one method per graph op -------------------------------------------------


def _several_results(cls: type[GraphOp]) -> bool:
    results = cls.get_irdl_definition().results
    return len(results) != 1 or type(results[0][1]).__name__ == "VarResultDef"


def _op_method(cls: type[GraphOp]) -> Callable[..., SSAValue | tuple[SSAValue, ...]]:
    """``GraphBuilder.<op>``: build ``cls`` from the same arguments as its
    constructor, append it, return its result (or tuple of results)."""
    short = cls.name.removeprefix("graph.")
    several = _several_results(cls)

    def method(self: GraphBuilder, *args: object, **kwargs: object) -> SSAValue | tuple[SSAValue, ...]:
        op = self._add(cls(*args, **kwargs))
        return tuple(op.results) if several else op.results[0]

    what = "a tuple of its results" if several else "its result"
    method.__name__ = short
    method.__qualname__ = f"GraphBuilder.{short}"
    method.__doc__ = f"Append a ``{cls.name}`` op and return {what}.\n\n{inspect.getdoc(cls) or ''}".rstrip()
    signature = inspect.signature(cls.__init__)
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        return_annotation="tuple[SSAValue, ...]" if several else "SSAValue"
    )
    return method


def _add_op_methods() -> None:
    for cls in graph.GRAPH_OPS:
        short = cls.name.removeprefix("graph.")
        if short not in GraphBuilder.__dict__:
            setattr(GraphBuilder, short, _op_method(cls))


_add_op_methods()


# -- the typed stub ----------------------------------------------------------

_STUB_DOC = '''"""Typed declarations of graphopt.frontends.builder, for type checkers and
IDEs.  Generated by ``python -m graphopt.frontends.builder``; do not edit."""
'''


def _public_home(value: object, name: str) -> str:
    """The shortest package that exports ``value`` as ``name`` (``xdsl.ir``
    for ``Attribute``, the dialect's package for a graph dialect name)."""
    parts = value.__module__.split(".")  # type: ignore[attr-defined]
    for n in range(1, len(parts) + 1):
        module = sys.modules.get(".".join(parts[:n]))
        if module is not None and getattr(module, name, None) is value:
            return module.__name__
    return value.__module__  # type: ignore[attr-defined]


def _stub_imports(declarations: Sequence[str]) -> list[str]:
    """The import lines of the names the declarations use (docstrings left
    out), each from where this module has it."""
    code = re.sub(r'"""(.|\n)*?"""', "", "\n".join(declarations))
    froms: dict[str, set[str]] = {}
    plain: list[str] = []
    for name in sorted(set(re.findall(r"[A-Za-z_]\w*", code))):
        value = globals().get(name)
        if isinstance(value, ModuleType):
            package, _, module = value.__name__.rpartition(".")
            if module == name and package:
                froms.setdefault(package, set()).add(name)
            else:
                plain.append(f"import {value.__name__}" + (f" as {name}" if value.__name__ != name else ""))
        elif isinstance(value, type) and value.__module__ not in ("builtins", __name__):
            froms.setdefault(_public_home(value, name), set()).add(name)
    return plain + [f"from {m} import {', '.join(sorted(names))}" for m, names in sorted(froms.items())]


def _stub_signature(name: str, fn: Callable[..., object]) -> str:
    sig = inspect.signature(fn)
    parts: list[str] = []
    for p in sig.parameters.values():
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text = "*" + text
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + text
        if p.annotation is not p.empty:
            a = p.annotation
            text += f": {a if isinstance(a, str) else inspect.formatannotation(a)}"
        if p.default is not p.empty:
            text += " = ..."
        parts.append(text)
    ret = sig.return_annotation
    ret_text = f" -> {ret}" if ret is not sig.empty else ""
    return f"    def {name}({', '.join(parts)}){ret_text}: ..."


def stub_text() -> str:
    """The text of ``builder.pyi``: every method of :class:`GraphBuilder`."""
    body = ["class GraphBuilder:"]
    body.append('    """Builds one ``func.func`` of graph ops; ``build`` wraps it in a module."""\n')
    body += ["    name: str", "    block: Block", "    functions: list[func.FuncOp]", ""]
    names = ["__init__"] + sorted(
        n for n, v in GraphBuilder.__dict__.items() if callable(v) and not n.startswith("_")
    )
    for name in names:
        body.append(_stub_signature(name, GraphBuilder.__dict__[name]))
    body.append("")
    body.append(_stub_signature("tensor_type", tensor_type).strip())
    return "\n".join([_STUB_DOC, *_stub_imports(body), "", "", *body]) + "\n"


if __name__ == "__main__":
    print(stub_text(), end="")
