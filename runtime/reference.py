"""The reference interpreter: runs graph-level functions on numpy arrays.

It evaluates every op through its own ``reference`` semantics (the same ones
constant folding and the tests use), walks into ``fused.group`` bodies and
follows ``func.call``.  It is the oracle the compiled code is checked against.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, SSAValue

from graphopt.dialects.fused import GroupOp, YieldOp
from graphopt.diagnostics import attach_location
from graphopt.errors import ArgumentError, SizeError
from graphopt.memory_limits import allocation_error, nbytes, size_message, too_large_reason
from graphopt.dialects.graph import GraphOp, numpy_dtype
from graphopt.dialects.graph.names import describe_argument, input_names


class InputError(ArgumentError):
    """A numpy input does not match the function's signature."""


def describe(array: np.ndarray) -> str:
    return f"{tuple(array.shape)} {array.dtype}"


def check_inputs(
    fn_name: str, arg_types: Sequence[Attribute], inputs: Sequence[np.ndarray], arg_names: Sequence[str] | None = None
) -> list[np.ndarray]:
    """Check count, shape and dtype of ``inputs``; return them as C-contiguous arrays."""
    if len(inputs) != len(arg_types):
        raise InputError(f"@{fn_name} takes {len(arg_types)} inputs, got {len(inputs)}")
    checked: list[np.ndarray] = []
    for i, (value, ty) in enumerate(zip(inputs, arg_types)):
        assert isinstance(ty, TensorType)
        array = np.asarray(value)
        shape = tuple(ty.get_shape())
        dtype = numpy_dtype(ty.element_type)
        if array.shape != shape or array.dtype != dtype:
            what = describe_argument(i, arg_names[i] if arg_names else None)
            raise InputError(f"@{fn_name}: {what}: expected {shape} {dtype}, got {describe(array)}")
        checked.append(np.asarray(array, order="C"))
    return checked


def find_function(module: ModuleOp, name: str | None) -> func.FuncOp:
    """The function ``name``, or the only public one with a body; a
    declaration (no body) has nothing to run: one error at it."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is None:
        public = [
            f
            for f in funcs
            if (f.sym_visibility is None or f.sym_visibility.data == "public") and not f.is_declaration
        ]
        if len(public) == 1:
            return public[0]
        if not public:
            raise InputError("the module has no public function with a body")
        names = ", ".join("@" + f.sym_name.data for f in public)
        raise InputError(f"the module has several functions ({names}); choose one with --entry")
    for f in funcs:
        if f.sym_name.data == name:
            if f.is_declaration:
                raise attach_location(
                    InputError(f"@{name} is a declaration without a body: there is nothing to run"), f
                )
            return f
    raise InputError(f"no function @{name} in the module")


def arg_names(fn: func.FuncOp) -> list[str]:
    """The name of each argument: its source name (``graph.name``), else its
    SSA name, else ``""``."""
    return [n or "" for n in input_names(fn)]


class ReferenceInterpreter:
    """Evaluates functions of a module with numpy."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.functions = {
            op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
        }

    def run(self, name: str | None, *inputs: np.ndarray) -> list[np.ndarray]:
        fn = find_function(self.module, name)
        arrays = check_inputs(fn.sym_name.data, fn.function_type.inputs.data, inputs, arg_names(fn))
        return self._call(fn, arrays)

    def _call(self, fn: func.FuncOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self._run_block(fn.body.block, inputs)

    def _run_block(self, block: Block, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        env: dict[SSAValue, np.ndarray] = dict(zip(block.args, inputs))
        for op in block.ops:
            args = [env[v] for v in op.operands]
            if isinstance(op, GraphOp):
                outs = self._evaluate(op, args)
            elif isinstance(op, GroupOp):
                outs = self._run_block(op.body.block, args)
            elif isinstance(op, func.CallOp):
                outs = self._call(self._callee(op), args)
            elif isinstance(op, (func.ReturnOp, YieldOp)):
                return args
            else:
                raise NotImplementedError(f"the reference interpreter cannot run {op.name}")
            for result, value in zip(op.results, outs, strict=True):
                env[result] = self._keep(value)
        raise ValueError("block has no terminator")

    def _callee(self, call: func.CallOp) -> func.FuncOp:
        name = call.callee.root_reference.data
        callee = self.functions.get(name)
        if callee is None or callee.is_declaration:
            what = "a declaration without a body" if callee is not None else "not in the module"
            raise attach_location(ArgumentError(f"func.call @{name}: @{name} is {what}; there is nothing to run"), call)
        return callee

    def _evaluate(self, op: GraphOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One graph op's results, checked against its result types; a result
        larger than this machine's memory is refused before it is computed."""
        sizes = [_result_size(op, i) for i in range(len(op.results))]
        for what, size in sizes:
            reason = too_large_reason(size)
            if reason is not None:
                raise attach_location(SizeError(size_message(what, size, reason)), op)
        try:
            return _checked(op, op.reference(*args))
        except MemoryError as err:
            what, size = max(sizes, key=lambda s: s[1]) if sizes else (op.name, 0)
            raise attach_location(allocation_error(what, size, err), op) from None

    def _keep(self, value: np.ndarray) -> np.ndarray:
        """What the interpreter stores for a result (subclasses may widen it)."""
        return value


def _result_size(op: GraphOp, index: int) -> tuple[str, int]:
    """``(graph.exp: result #0 (%y, tensor<...>), its byte size)``."""
    result = op.results[index]
    ty = result.type
    assert isinstance(ty, TensorType)
    name = f"%{result.name_hint}, " if result.name_hint else ""
    size = nbytes(ty.get_shape(), numpy_dtype(ty.element_type).itemsize)
    return f"{op.name}: result #{index} ({name}{ty})", size


class ReferenceError_(ValueError):
    """An op's reference semantics returned a value its result type does not allow."""


def _checked(op: GraphOp, outs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``outs`` as arrays (a numpy scalar becomes a 0-d array), each of exactly
    its result's shape and dtype: the oracle must not hide a 0-d vs 1-d slip."""
    if len(outs) != len(op.results):
        raise ReferenceError_(f"{op.name}: the reference returned {len(outs)} values for {len(op.results)} results")
    checked: list[np.ndarray] = []
    for index, (value, result) in enumerate(zip(outs, op.results)):
        array = np.asarray(value)
        ty = result.type
        assert isinstance(ty, TensorType)
        shape, dtype = tuple(ty.get_shape()), numpy_dtype(ty.element_type)
        if array.shape != shape or array.dtype != dtype:
            raise ReferenceError_(
                f"{op.name}: the reference of result #{index} is {describe(array)}, "
                f"but its type is {ty}"
            )
        checked.append(array)
    return checked


def interpret(module: ModuleOp, *inputs: np.ndarray, entry: str | None = None) -> list[np.ndarray]:
    """Run function ``entry`` (default: the only public one) on ``inputs``."""
    return ReferenceInterpreter(module).run(entry, *inputs)
