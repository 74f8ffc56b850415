"""Calling compiled drivers on numpy arrays.

``compile_loop_module(module, *, max_inline_constant_bytes=4096,
opt_level=3, clone=True) -> CompiledModule`` lowers a loop-level module
(``lower-loop-to-llvm``), JIT-compiles it and wraps every driver
(``func.func`` with ``#loop.abi``).  With ``clone=True`` (default) the input
module is left untouched; with ``clone=False`` it is lowered in place.

``compile_lowered(result: LLVMLoweringResult, opt_level=3) -> CompiledModule``
does the same for a module already lowered with
:func:`graphopt.lowering.loop_to_llvm.lower_loop_to_llvm`.

A :class:`CompiledFunction` is called with the driver's inputs, in order, as
numpy arrays of exactly the declared shape and dtype (``i1`` <-> ``bool``,
one byte per element); it checks them (raising :class:`ArgumentError`, a
``ValueError``), makes them C-contiguous, allocates fresh outputs for every
call and reuses one 64-byte-aligned workspace per thread (so calls from
several threads are safe), calls the native code through ctypes (which releases the GIL) and
returns the single output array, or a tuple of them.

Native ABI: ``void fn(in0, ..., inN, out0, ..., outM, workspace, hidden0,
...)``, every argument a pointer to dense row-major data; the hidden
arguments are the large constants listed in the lowering result, passed by
the runtime.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp

from graphopt.lowering.loop_to_llvm import (
    DriverInfo,
    LLVMLoweringResult,
    emit_llvm_ir,
    lower_loop_to_llvm,
    numpy_dtype,
)
from graphopt.runtime.jit import JITModule, compile_llvm_ir

__all__ = [
    "ArgSpec",
    "ArgumentError",
    "CompiledFunction",
    "CompiledModule",
    "aligned_empty",
    "compile_loop_module",
    "compile_lowered",
]

ALIGNMENT = 64


class ArgumentError(ValueError):
    """A compiled function was called with a wrong argument."""


def aligned_empty(shape: Sequence[int], dtype: np.dtype, align: int = ALIGNMENT) -> np.ndarray:
    """An uninitialised C-contiguous array whose data is ``align``-byte aligned."""
    dtype = np.dtype(dtype)
    nbytes = prod(shape) * dtype.itemsize
    buf = np.empty(nbytes + align, dtype=np.uint8)
    off = (-buf.ctypes.data) % align
    return buf[off : off + nbytes].view(dtype).reshape(tuple(shape))


@dataclass(frozen=True)
class ArgSpec:
    """Expected shape and dtype of one argument."""

    index: int
    name: str | None
    shape: tuple[int, ...]
    dtype: np.dtype

    @staticmethod
    def from_memref(index: int, name: str | None, t: MemRefType) -> ArgSpec:
        return ArgSpec(index, name, tuple(t.get_shape()), numpy_dtype(t.element_type))

    def describe(self) -> str:
        return f"argument {self.index}" + (f" (%{self.name})" if self.name else "")

    def signature(self) -> str:
        return f"{self.shape} {self.dtype}"


class CompiledFunction:
    """A driver compiled to native code; call it with numpy arrays."""

    def __init__(self, info: DriverInfo, address: int, owner: object):
        self.name = info.name
        self.inputs = [
            ArgSpec.from_memref(i, n, t)
            for i, (n, t) in enumerate(zip(info.input_names, info.input_types))
        ]
        self.outputs = [
            ArgSpec.from_memref(i, n, t)
            for i, (n, t) in enumerate(zip(info.output_names, info.output_types))
        ]
        self.workspace_bytes = info.workspace_bytes
        self.hidden_constants = [np.ascontiguousarray(h.array) for h in info.hidden_constants]
        self._hidden_ptrs = [a.ctypes.data for a in self.hidden_constants]
        self._owner = owner  # keeps the JIT engine alive
        self.address = address
        n = len(self.inputs) + len(self.outputs) + 1 + len(self.hidden_constants)
        self._cfunc = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n))(address)
        self._per_thread = threading.local()

    def __repr__(self) -> str:
        ins = ", ".join(s.signature() for s in self.inputs)
        outs = ", ".join(s.signature() for s in self.outputs)
        return f"<CompiledFunction {self.name}({ins}) -> ({outs})>"

    def check_inputs(self, args: Sequence[object]) -> list[np.ndarray]:
        if len(args) != len(self.inputs):
            raise ArgumentError(
                f"{self.name}: expected {len(self.inputs)} input(s), got {len(args)}"
            )
        arrays: list[np.ndarray] = []
        for spec, arg in zip(self.inputs, args):
            if isinstance(arg, np.generic):
                arg = np.asarray(arg)
            if not isinstance(arg, np.ndarray):
                raise ArgumentError(
                    f"{self.name}: {spec.describe()}: expected a numpy array of shape "
                    f"{spec.signature()}, got {type(arg).__name__}"
                )
            if arg.shape != spec.shape or arg.dtype != spec.dtype:
                raise ArgumentError(
                    f"{self.name}: {spec.describe()}: expected shape {spec.signature()}, "
                    f"got {arg.shape} {arg.dtype}"
                )
            if spec.dtype == np.bool_:
                # numpy reads any nonzero byte as True (np.frombuffer, .view(bool)
                # can make bytes other than 0 and 1); the compiled code reads
                # bit 0.  Normalise to 0/1 so where/cast agree with numpy.
                arg = np.not_equal(np.asarray(arg, order="C").view(np.uint8), 0)
            arrays.append(np.ascontiguousarray(arg))
        return arrays

    def workspace_address(self) -> int:
        """This thread's workspace: allocated once per thread and reused, so
        concurrent calls never share one and a call allocates nothing for it."""
        if self.workspace_bytes == 0:
            return 0
        local = self._per_thread
        ws = getattr(local, "workspace", None)
        if ws is None:
            ws = aligned_empty((self.workspace_bytes,), np.dtype(np.uint8))
            local.workspace = ws
            local.address = ws.ctypes.data
        return local.address

    def __call__(self, *args: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...] | None:
        ins = self.check_inputs(args)
        outs = [np.empty(s.shape, s.dtype) for s in self.outputs]
        ptrs = [a.ctypes.data for a in ins] + [o.ctypes.data for o in outs]
        ptrs.append(self.workspace_address())
        ptrs.extend(self._hidden_ptrs)
        self._cfunc(*ptrs)
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)


class CompiledModule:
    """Compiled drivers by name: ``mod["main"]`` or ``mod.main``."""

    def __init__(self, functions: dict[str, CompiledFunction], jit: JITModule, llvm_ir: str):
        self._functions = functions
        self.jit = jit
        self.llvm_ir = llvm_ir

    @property
    def optimized_llvm_ir(self) -> str:
        return self.jit.optimized_ir

    @property
    def functions(self) -> dict[str, CompiledFunction]:
        return dict(self._functions)

    def __getitem__(self, name: str) -> CompiledFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise KeyError(
                f"no compiled function '{name}'; available: {', '.join(self._functions)}"
            ) from None

    def __getattr__(self, name: str) -> CompiledFunction:
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(name)

    def __contains__(self, name: object) -> bool:
        return name in self._functions

    def __iter__(self) -> Iterator[str]:
        return iter(self._functions)

    def __len__(self) -> int:
        return len(self._functions)

    def __repr__(self) -> str:
        return f"<CompiledModule {', '.join(self._functions)}>"


def compile_lowered(result: LLVMLoweringResult, opt_level: int = 3) -> CompiledModule:
    """JIT-compile a module lowered by ``lower_loop_to_llvm``."""
    ir_text = emit_llvm_ir(result.module)
    jit = compile_llvm_ir(ir_text, opt_level=opt_level)
    functions = {
        name: CompiledFunction(info, jit.function_address(name), jit)
        for name, info in result.drivers.items()
    }
    return CompiledModule(functions, jit, ir_text)


def compile_loop_module(
    module: ModuleOp,
    *,
    max_inline_constant_bytes: int = 4096,
    opt_level: int = 3,
    clone: bool = True,
) -> CompiledModule:
    """Lower a loop-level module to LLVM, compile it and wrap its drivers."""
    if clone:
        module = module.clone()
    result = lower_loop_to_llvm(module, max_inline_constant_bytes=max_inline_constant_bytes)
    return compile_lowered(result, opt_level=opt_level)
