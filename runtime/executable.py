"""Calling compiled drivers on numpy arrays.

``compile_loop_module(module, *, max_inline_constant_bytes=4096,
opt_level=3, clone=True) -> CompiledModule`` lowers a loop-level module
(``lower-loop-to-llvm``), JIT-compiles it and wraps every driver
(``func.func`` with ``#loop.abi``).  With ``clone=True`` (default) the input
module is left untouched; with ``clone=False`` it is lowered in place.

``compile_llvm_module(module, opt_level=3) -> CompiledModule`` does the same
for a module already at the llvm level: each driver is described by its
``#loop.abi`` attribute (:mod:`graphopt.runtime.abi`), nothing else.

``num_threads`` (both functions; default :func:`default_num_threads`, the
cores this process may run on) is how many threads the parallel loops use.
It is written once into the compiled module's ``graphopt_num_threads``
global, which every parallel loop reads when it starts
(``CompiledModule.num_threads`` changes it later); libgomp gives each
calling thread its own persistent team, so concurrent calls stay
independent.  Results do not depend on it (no reduction is split).

A :class:`CompiledFunction` is called with the driver's inputs -- by
position, by name (``f(x=a)``; an unnamed argument is ``arg<i>``), or as an
onnxruntime-style feed ``f.run(None, {"x": a})`` -- as numpy arrays of
exactly the declared shape and dtype (``i1`` <-> ``bool``, one byte per
element).  The names are those ``#loop.abi`` records: the source names of the
function's interface (an ONNX model's input and output names exactly as its
file writes them, ``gpu_0/data_0`` included), else the SSA names;
``get_inputs()`` and ``get_outputs()`` describe them as onnxruntime's
``NodeArg`` does (``name``, ``shape``, ``type``).  A call checks the inputs
(raising :class:`ArgumentError`, a ``ValueError``), makes them C-contiguous,
allocates fresh outputs for every call (an output or workspace larger than
this machine's memory is refused first with :class:`SizeError`) and reuses
one 64-byte-aligned workspace per thread (so calls from several threads are
safe), calls the native code through ctypes (which releases the GIL) and
returns the single output array, or a tuple of them.

Native ABI: ``void fn(in0, ..., inN, out0, ..., outM, workspace, hidden0,
...)``, every argument a pointer to dense row-major data; the hidden
arguments are the large constants listed in ``#loop.abi``, passed by the
runtime.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from math import prod

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, ModuleOp

from graphopt.dialects.graph.names import describe_argument, known_names, name_list
from graphopt.dialects.loop import module_target
from graphopt.lowering.to_llvm import emit_llvm_ir, lower_loop_to_llvm
from graphopt.lowering.to_llvm.memref import BOUNDS_FLAG
from graphopt.lowering.to_llvm.parallel import NUM_THREADS_GLOBAL
from graphopt.runtime.abi import DriverInfo, numpy_dtype, read_drivers
from graphopt.diagnostics import attach_location
from graphopt.errors import ArgumentError, LoweringError
from graphopt.memory_limits import allocation_error, check_fits, nbytes
from graphopt.runtime.jit import JITModule, compile_llvm_ir, unresolved_symbols
from graphopt.target import Target

if TYPE_CHECKING:
    from graphopt.runtime.compile import CompileSource

__all__ = [
    "ArgSpec",
    "ArgumentError",
    "BoundsError",
    "CompiledFunction",
    "CompiledModule",
    "NodeArg",
    "aligned_empty",
    "check_num_threads",
    "default_num_threads",
    "compile_loop_module",
    "compile_llvm_module",
    "runnable_target",
]

ALIGNMENT = 64


def default_num_threads() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_num_threads(num_threads: object) -> int:
    """``num_threads`` if it is an int >= 1, else one clear ``ArgumentError``."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
        raise ArgumentError(f"num_threads must be an integer >= 1, got {num_threads!r}")
    return num_threads


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
    role: str = "arg"
    """``"arg"`` for an input, ``"out"`` for an output."""

    @staticmethod
    def from_memref(index: int, name: str | None, t: MemRefType, role: str = "arg") -> ArgSpec:
        return ArgSpec(index, name, tuple(t.get_shape()), numpy_dtype(t.element_type), role)

    @property
    def key(self) -> str:
        """The name to pass or fetch it by: its source name (an ONNX model's
        input or output name), else its SSA name, else ``arg<i>`` / ``out<i>``."""
        return self.name or f"{self.role}{self.index}"

    def describe(self) -> str:
        return describe_argument(self.index, self.name)

    @property
    def nbytes(self) -> int:
        return nbytes(self.shape, self.dtype.itemsize)

    def describe_value(self) -> str:
        """``output 0 (%y, shape (4, 8) float32)``: the value, for size errors."""
        kind = "input" if self.role == "arg" else "output"
        name = f"%{self.name}, " if self.name else ""
        return f"{kind} {self.index} ({name}shape {self.shape} {self.dtype})"

    def signature(self) -> str:
        return f"{self.shape} {self.dtype}"

    def node_arg(self) -> NodeArg:
        return NodeArg(self.key, list(self.shape), onnx_type_name(self.dtype))


_ONNX_TYPE_NAMES = {"float32": "float", "float64": "double", "bool": "bool"}


def onnx_type_name(dtype: np.dtype) -> str:
    """onnxruntime's name of a tensor type: ``tensor(float)``, ``tensor(int64)``..."""
    name = np.dtype(dtype).name
    return f"tensor({_ONNX_TYPE_NAMES.get(name, name)})"


@dataclass(frozen=True)
class NodeArg:
    """One input or output as onnxruntime's ``NodeArg`` describes it:
    ``name`` (what ``run`` takes), ``shape`` (a list of ints) and ``type``
    (``'tensor(float)'``, ``'tensor(int64)'``...)."""

    name: str
    shape: list[int]
    type: str

    def __repr__(self) -> str:
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


class CompiledFunction:
    """A driver compiled to native code; call it with numpy arrays."""

    def __init__(self, info: DriverInfo, address: int, owner: object):
        self.name = info.name
        self.inputs = [
            ArgSpec.from_memref(i, n, t)
            for i, (n, t) in enumerate(zip(info.input_names, info.input_types))
        ]
        self.outputs = [
            ArgSpec.from_memref(i, n, t, "out")
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
        self.bounds_flag: ctypes.c_uint8 | None = None  # set for bounds-checked code

    def __repr__(self) -> str:
        ins = ", ".join(f"{s.key}: {s.signature()}" for s in self.inputs)
        outs = ", ".join(s.signature() for s in self.outputs)
        return f"<CompiledFunction {self.name}({ins}) -> ({outs})>"

    @property
    def input_names(self) -> list[str]:
        return [s.key for s in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [s.key for s in self.outputs]

    def get_inputs(self) -> list[NodeArg]:
        """The inputs as onnxruntime's ``InferenceSession.get_inputs()``."""
        return [s.node_arg() for s in self.inputs]

    def get_outputs(self) -> list[NodeArg]:
        """The outputs as onnxruntime's ``InferenceSession.get_outputs()``."""
        return [s.node_arg() for s in self.outputs]

    def _lookup(self, specs: Sequence[ArgSpec], key: str, kind: str) -> ArgSpec:
        """The input or output called ``key``; one clear error otherwise."""
        found = [s for s in specs if s.key == key]
        if len(found) == 1:
            return found[0]
        if found:
            where = " and ".join(str(s.index) for s in found)
            raise ArgumentError(
                f"{self.name}: {kind}s {where} are both called '{key}'; "
                + ("pass them by position" if kind == "input" else "fetch all outputs (None)")
            )
        known = list(dict.fromkeys(s.key for s in specs))
        raise ArgumentError(f"{self.name}: no {kind} named '{key}'{known_names(key, known)}")

    def bind(self, args: Sequence[object], kwargs: Mapping[str, object]) -> list[object]:
        """Positional then named inputs, in the driver's order, as Python binds
        a call: every input exactly once, names from :attr:`input_names`."""
        if not kwargs:
            return list(args)
        if len(args) > len(self.inputs):
            raise ArgumentError(
                f"{self.name}: expected {len(self.inputs)} input(s), got {len(args)} by position"
            )
        bound: list[object] = list(args) + [_MISSING] * (len(self.inputs) - len(args))
        for key, value in kwargs.items():
            spec = self._lookup(self.inputs, key, "input")
            if bound[spec.index] is not _MISSING:
                raise ArgumentError(f"{self.name}: input '{key}' is given by position and by name")
            bound[spec.index] = value
        missing = [s.key for s in self.inputs if bound[s.index] is _MISSING]
        if missing:
            raise ArgumentError(f"{self.name}: missing input(s): {name_list(missing)}")
        return bound

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
            try:
                ws = aligned_empty((self.workspace_bytes,), np.dtype(np.uint8))
            except (MemoryError, ValueError) as err:
                raise allocation_error(f"{self.name}: the workspace", self.workspace_bytes, err) from None
            local.workspace = ws
            local.address = ws.ctypes.data
        return local.address

    def __call__(
        self, *args: np.ndarray, **kwargs: np.ndarray
    ) -> np.ndarray | tuple[np.ndarray, ...] | None:
        """Run on ``args`` (positional) and ``kwargs`` (by input name); return
        the single output, a tuple of outputs, or ``None`` for none."""
        outs = self._run(self.bind(args, kwargs))
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def run(
        self, output_names: Sequence[str] | None, input_feed: Mapping[str, np.ndarray]
    ) -> list[np.ndarray]:
        """onnxruntime's ``InferenceSession.run``: inputs by name, the outputs
        named in ``output_names`` (all of them for ``None``) as a list."""
        if not isinstance(input_feed, Mapping):
            raise ArgumentError(
                f"{self.name}: run() takes the inputs as a dict by name "
                f"({', '.join(self.input_names)}), not {type(input_feed).__name__}"
            )
        if output_names is not None:
            if isinstance(output_names, str):
                raise ArgumentError(
                    f"{self.name}: run() takes the output names as a list "
                    f"(or None for all), not the str '{output_names}'"
                )
            picks = [self._lookup(self.outputs, key, "output").index for key in output_names]
        outs = self._run(self.bind((), dict(input_feed)))
        if output_names is None:
            return outs
        return [outs[i] for i in picks]

    def check_sizes(self) -> None:
        """Refuse, before anything is allocated, an output or a workspace
        larger than any array or than this machine's memory
        (:mod:`graphopt.memory_limits`); raises :class:`SizeError`."""
        for spec in self.outputs:
            check_fits(f"{self.name}: {spec.describe_value()}", spec.nbytes)
        check_fits(f"{self.name}: the workspace", self.workspace_bytes)

    def _allocate_outputs(self) -> list[np.ndarray]:
        outs = []
        for spec in self.outputs:
            try:
                outs.append(np.empty(spec.shape, spec.dtype))
            except (MemoryError, ValueError) as err:
                raise allocation_error(f"{self.name}: {spec.describe_value()}", spec.nbytes, err) from None
        return outs

    def _run(self, args: Sequence[object]) -> list[np.ndarray]:
        self.check_sizes()
        ins = self.check_inputs(args)
        outs = self._allocate_outputs()
        ptrs = [a.ctypes.data for a in ins] + [o.ctypes.data for o in outs]
        ptrs.append(self.workspace_address())
        ptrs.extend(self._hidden_ptrs)
        self._cfunc(*ptrs)
        self._check_bounds()
        return outs

    def _check_bounds(self) -> None:
        """Bounds-checked code (``lower-loop-to-llvm{bounds-check=true}``)
        turns an out-of-bounds access into one of element 0 and sets a flag."""
        if self.bounds_flag is not None and self.bounds_flag.value:
            self.bounds_flag.value = 0
            raise BoundsError(f"{self.name}: a memref access was out of bounds (it was not performed)")


_MISSING = object()


class BoundsError(RuntimeError):
    """Bounds-checked code found an index outside its memref."""


class CompiledModule:
    """Compiled drivers by name: ``mod["main"]`` or ``mod.main``; ``mod.run``,
    ``mod.get_inputs`` and ``mod.get_outputs`` are those of the only one (or of
    ``main``), onnxruntime-style."""

    source: CompileSource | None
    """What ``graphopt.compile`` was given (kind and name), if it built this."""

    def __init__(
        self,
        functions: dict[str, CompiledFunction],
        jit: JITModule,
        llvm_ir: str,
        threads_global: ctypes.c_int32 | None = None,
    ):
        self._functions = functions
        self.jit = jit
        self.llvm_ir = llvm_ir
        self.source = None
        self._threads_global = threads_global
        self._num_threads = 1

    @property
    def num_threads(self) -> int:
        """The thread count of the parallel loops.  Setting it is safe at any
        time: a parallel loop reads it once, when it starts, and its result
        does not depend on it."""
        return self._num_threads

    @num_threads.setter
    def num_threads(self, value: int) -> None:
        self._num_threads = check_num_threads(value)
        if self._threads_global is not None:
            self._threads_global.value = value

    def function(self, entry: str | None = None) -> CompiledFunction:
        """The function ``entry``; when ``entry`` is ``None``, the only one,
        or ``main`` among several (an imported ONNX model's function, also
        when a pass added others such as ``main_grad``)."""
        if entry is not None:
            return self[entry]
        if len(self._functions) == 1:
            return next(iter(self._functions.values()))
        if "main" in self._functions:
            return self._functions["main"]
        names = ", ".join(self._functions) or "none"
        raise ArgumentError(f"the module has {len(self._functions)} functions ({names}); name one")

    def run(
        self,
        output_names: Sequence[str] | None,
        input_feed: Mapping[str, np.ndarray],
        *,
        entry: str | None = None,
    ) -> list[np.ndarray]:
        """``function(entry).run(output_names, input_feed)``, as onnxruntime's
        ``InferenceSession.run``: inputs by name (an ONNX model's input names
        as its file writes them), the outputs named in ``output_names`` (all
        of them for ``None``) as a list."""
        return self.function(entry).run(output_names, input_feed)

    def get_inputs(self, entry: str | None = None) -> list[NodeArg]:
        """``function(entry).get_inputs()``: onnxruntime's ``get_inputs()``."""
        return self.function(entry).get_inputs()

    def get_outputs(self, entry: str | None = None) -> list[NodeArg]:
        """``function(entry).get_outputs()``: onnxruntime's ``get_outputs()``."""
        return self.function(entry).get_outputs()

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
        origin = f" from {self.source}" if self.source is not None else ""
        return f"<CompiledModule {', '.join(self._functions)}{origin}>"


def runnable_target(module: ModuleOp) -> Target:
    """The module's target (``#loop.target``, else the host), which must be
    one this machine can run: code with instructions the CPU lacks would
    die of an illegal instruction, so it is refused before it is built."""
    target = module_target(module)
    if not target.runs_on_host():
        host = Target.host()
        raise ArgumentError(
            f"the module is compiled for {target.describe()}, which this machine "
            f"({host.cpu}, {host.vector_isa}) cannot run; compile it to an object file "
            "instead (graph-compile, or graph-opt -t obj)"
        )
    return target


def check_external_symbols(module: ModuleOp) -> None:
    """A declared function (``func.func private @ext(...)`` at loop level
    becomes an external symbol) must be defined by a library loaded in this
    process, or the JIT code would call address 0: one error at the
    declaration.  Object files and shared libraries keep it external, for
    the linker."""
    declared = {
        op.sym_name.data: op
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and not op.body.blocks and not op.sym_name.data.startswith("llvm.")
    }
    missing = unresolved_symbols(declared) if declared else []
    if missing:
        name = missing[0]
        raise attach_location(
            LoweringError(
                f"@{name} is declared without a body and no library loaded in this process "
                "defines it, so compiled code cannot call it here; define it in the module, "
                "or compile ahead of time (graph-compile, -t obj) and link a definition"
            ),
            declared[name],
        )


def compile_llvm_module(
    module: ModuleOp, opt_level: int = 3, num_threads: int | None = None
) -> CompiledModule:
    """JIT-compile an llvm-level module; its drivers are read from their
    ``#loop.abi`` attributes and from nothing else."""
    threads = default_num_threads() if num_threads is None else check_num_threads(num_threads)
    target = runnable_target(module)
    drivers = read_drivers(module)
    check_external_symbols(module)
    ir_text = emit_llvm_ir(module)
    jit = compile_llvm_ir(ir_text, opt_level=opt_level, target=target)
    functions = {
        name: CompiledFunction(info, jit.function_address(name), jit)
        for name, info in drivers.items()
    }
    if any(isinstance(op, llvm.GlobalOp) and op.sym_name.data == BOUNDS_FLAG for op in module.ops):
        flag = ctypes.c_uint8.from_address(jit.engine.get_global_value_address(BOUNDS_FLAG))
        for f in functions.values():
            f.bounds_flag = flag
    threads_global = None
    if any(isinstance(op, llvm.GlobalOp) and op.sym_name.data == NUM_THREADS_GLOBAL for op in module.ops):
        address = jit.engine.get_global_value_address(NUM_THREADS_GLOBAL)
        threads_global = ctypes.c_int32.from_address(address)
    compiled = CompiledModule(functions, jit, ir_text, threads_global)
    compiled.num_threads = threads
    return compiled


def compile_loop_module(
    module: ModuleOp,
    *,
    max_inline_constant_bytes: int = 4096,
    opt_level: int = 3,
    clone: bool = True,
    bounds_check: bool = False,
    num_threads: int | None = None,
) -> CompiledModule:
    """Lower a loop-level module to LLVM (``lower-loop-to-llvm``), compile it
    and wrap its drivers."""
    if num_threads is not None:
        check_num_threads(num_threads)
    if clone:
        module = module.clone()
    lower_loop_to_llvm(module, max_inline_constant_bytes, bounds_check)
    return compile_llvm_module(module, opt_level=opt_level, num_threads=num_threads)
