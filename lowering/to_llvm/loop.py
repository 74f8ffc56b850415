"""``convert-loop-to-llvm``: the driver ABI, made ready for the llvm level.

Runs first.  Every driver (a ``func.func`` with ``#loop.abi``) is checked
against its ABI: ``inputs..., outputs..., workspace`` with the recorded
types, no results.  Then the large constants are decided: a constant
``memref.global`` bigger than ``max-inline-constant-bytes`` and read only by
drivers is not compiled into the module.  Each driver reading it gets one
more (``llvm.noalias``) memref argument after the workspace, in order of first
use, and the constant's value moves into the driver's ``#loop.abi``
(``constants = [...]``), from which the runtime passes it.  This keeps
LLVM's parse and optimisation time independent of the size of the weights.
A negative ``max-inline-constant-bytes`` keeps every constant in the module
(object files and shared libraries).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    MemRefType,
    ModuleOp,
    UnitAttr,
    i8,
)
from xdsl.passes import ModulePass

from graphopt.dialects import loop
from graphopt.lowering.op_builder import walk_ops
from graphopt.lowering.to_llvm.common import LoopToLLVMError, static_memref
from graphopt.transforms.levels import require_lowered


def check_driver(f: func.FuncOp, abi: loop.DriverABIAttr) -> None:
    name = f.sym_name.data
    n_in, n_out = abi.num_inputs, abi.num_outputs
    inputs = list(f.function_type.inputs.data)
    if len(inputs) != n_in + n_out + 1:
        raise LoopToLLVMError(
            f"driver @{name}: #loop.abi says {n_in} inputs + {n_out} outputs + "
            f"workspace, but the function has {len(inputs)} arguments"
        )
    if f.function_type.outputs.data:
        raise LoopToLLVMError(f"driver @{name} must not return values")
    ws, ws_bytes = inputs[-1], abi.workspace_bytes.data
    if not isinstance(ws, MemRefType) or ws.get_shape() != (ws_bytes,) or ws.element_type != i8:
        raise LoopToLLVMError(
            f"driver @{name}: the last argument must be the workspace memref<{ws_bytes}xi8>, got {ws}"
        )
    for i, (t, tt) in enumerate(zip(inputs, [*abi.input_types, *abi.output_types])):
        m = static_memref(t, f"driver @{name} argument {i}")
        if m.get_shape() != tt.get_shape() or m.element_type != tt.element_type:
            raise LoopToLLVMError(f"driver @{name}: argument {i} is {m} but #loop.abi says {tt}")


@dataclass(frozen=True)
class ConvertLoopToLLVMPass(ModulePass):
    name = "convert-loop-to-llvm"

    max_inline_constant_bytes: int = 4096

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_lowered(op, self.name)
        self.convert(op)

    def convert(self, op: ModuleOp) -> None:
        """The conversion without the level check."""
        globals_ = {g.sym_name.data: g for g in op.ops if isinstance(g, memref.GlobalOp)}
        funcs = [f for f in op.ops if isinstance(f, func.FuncOp)]
        drivers = {f.sym_name.data: f for f in funcs if loop.get_driver_abi(f) is not None}
        # Which function reads which global, and in which order (drivers).
        users: dict[str, set[str]] = {g: set() for g in globals_}
        reads: dict[str, list[memref.GetGlobalOp]] = {d: [] for d in drivers}
        for f in funcs:
            for inner in walk_ops(f):
                if type(inner) is memref.GetGlobalOp:
                    g = inner.name_.string_value()
                    if g not in globals_:
                        raise LoopToLLVMError(f"memref.get_global of unknown symbol @{g}")
                    users[g].add(f.sym_name.data)
                    if f.sym_name.data in reads:
                        reads[f.sym_name.data].append(inner)

        def hidden(g: str) -> bool:
            gop = globals_[g]
            size = loop.memref_num_bytes(static_memref(gop.type, f"memref.global @{g}"))
            return (
                0 <= self.max_inline_constant_bytes < size
                and bool(users[g])
                and users[g] <= drivers.keys()
                and isinstance(gop.initial_value, DenseIntOrFPElementsAttr)
                and gop.constant is not None
                and gop.initial_value.get_type().get_shape() == gop.type.get_shape()  # type: ignore[union-attr]
            )

        moved: set[str] = set()
        for name, f in drivers.items():
            abi = loop.get_driver_abi(f)
            assert abi is not None
            check_driver(f, abi)
            block = f.body.block
            arg_of: dict[str, object] = {}
            constants: list[DenseIntOrFPElementsAttr] = []
            for get in reads[name]:
                g = get.name_.string_value()
                if not hidden(g):
                    continue
                if g not in arg_of:
                    gop = globals_[g]
                    t = static_memref(gop.type, f"memref.global @{g}")
                    arg_of[g] = block.insert_arg(t, len(block.args))
                    value = gop.initial_value
                    assert isinstance(value, DenseIntOrFPElementsAttr)
                    constants.append(value)
                    moved.add(g)
                get.memref.replace_all_uses_with(arg_of[g])  # type: ignore[arg-type]
                get.detach()
                get.erase()
            if constants:
                n_args = len(f.function_type.inputs.data)
                f.function_type = FunctionType.from_lists(
                    [a.type for a in block.args], list(f.function_type.outputs.data)
                )
                empty, noalias = DictionaryAttr({}), DictionaryAttr({"llvm.noalias": UnitAttr()})
                f.arg_attrs = ArrayAttr([empty] * n_args + [noalias] * len(constants))
                loop.set_driver_abi(f, abi.with_constants(constants))
        for g in moved:
            globals_[g].detach()
            globals_[g].erase()
