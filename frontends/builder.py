"""A Python API to build graph functions, with result types inferred.

    b = GraphBuilder("mlp")
    x = b.input((8, 784))
    w = b.constant(np.random.rand(784, 10).astype(np.float32))
    y = b.softmax(b.relu(b.add(b.matmul(x, w), bias)))
    module = b.build(y)

Every method appends one ``graph`` op and returns its result value(s); types
come from the op's own inference, so shape errors surface at build time as a
``VerifyException`` naming the op and shapes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.rewriter import InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Region, SSAValue

from graphopt.dialects import graph
from graphopt.dialects.graph_base import GraphOp, element_type_of, f32, tensor


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

    def __getattr__(self, name: str):
        """``b.<op>(*operands, **params)`` for every graph op without a named
        method above (e.g. ``b.conv2d(x, w, strides=(2, 2))``): it calls the
        op class's constructor and returns the result, or a tuple of results."""
        if name.startswith("_"):
            raise AttributeError(name)
        cls = graph.op_class_by_name(name)
        if cls is None:
            raise AttributeError(f"GraphBuilder has no method or graph op '{name}'")

        def build_op(*args, **kwargs):
            return self.apply(cls(*args, **kwargs))

        return build_op

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
