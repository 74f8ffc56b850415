"""Compile LLVM IR text to native code in this process with llvmlite (MCJIT).

``compile_llvm_ir(ir_text, opt_level=3) -> JITModule`` parses and verifies
the IR, optimises it with LLVM's new pass manager (``O<opt_level>``, host CPU
name and features, loop and SLP vectorisation on, LLVM's loop unrolling off
but for the functions the lowering marks for it: see ``llvm_optimizer``) and
compiles it with an MCJIT engine for the host.  The :class:`JITModule` owns the engine: keep it
alive while any function address obtained from it is in use.

libm is loaded permanently into LLVM's symbol search space so calls to
``tanhf``/``erff``/... emitted by ``lower-loop-to-llvm`` resolve, and so is
libgomp, whose ``GOMP_parallel`` runs the parallel loops (its worker threads
persist between calls).  Before libgomp loads, ``thread_pool.configure_libgomp``
chooses how its idle threads wait (a bounded spin, unless the user set a
policy).
"""

from __future__ import annotations

import ctypes.util
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

import llvmlite.binding as llvm

from graphopt.runtime.llvm_optimizer import OPTIMISER
from graphopt.runtime.thread_pool import configure_libgomp
from graphopt.target import Target

__all__ = [
    "JITError",
    "JITModule",
    "compile_llvm_ir",
    "compile_object",
    "parse_and_optimize",
    "target_machine",
    "unresolved_symbols",
]

_init_lock = threading.Lock()
_initialised = False
_compile_lock = threading.Lock()


class JITError(RuntimeError):
    """LLVM rejected the IR or could not compile it."""


def _initialise() -> None:
    global _initialised
    with _init_lock:
        if _initialised:
            return
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        configure_libgomp()  # libgomp reads its environment when it loads
        for lib in ("m", "gomp"):
            path = ctypes.util.find_library(lib)
            if path:
                try:
                    llvm.load_library_permanently(path)
                except RuntimeError:  # the process already has it
                    pass
        _initialised = True


def target_machine(target: Target | None = None, opt_level: int = 3, *, jit: bool = True) -> llvm.TargetMachine:
    """LLVM's target machine for ``target`` (default: this CPU, its name and
    features): the JIT code model, or position-independent code for object
    files and shared libraries."""
    _initialise()
    target = target or Target.default()
    tm = llvm.Target.from_triple(target.triple).create_target_machine(
        cpu=target.cpu,
        features=target.llvm_features,
        opt=opt_level,
        reloc="default" if jit else "pic",
        codemodel="jitdefault" if jit else "default",
        jit=jit,
    )
    return tm


def parse_and_optimize(
    ir_text: str, tm: llvm.TargetMachine, opt_level: int, target: Target | None = None
) -> llvm.ModuleRef:
    """Parse and verify ``ir_text``, then optimise it for ``tm`` (made for
    ``target``, default the host: the optimiser's worker makes its own): LLVM's
    ``O<opt_level>`` pipeline, vectorisers on, LLVM's loop unrolling only
    for the functions the lowering marks (see ``llvm_optimizer``)."""
    try:
        if opt_level == 0:
            mod = llvm.parse_assembly(ir_text)
            mod.verify()
            mod.triple = tm.triple
            mod.data_layout = str(tm.target_data)
            return mod
        # The new-pass-manager run leaks native memory in llvmlite; see
        # llvm_optimizer for where it runs instead.
        return OPTIMISER.optimise(ir_text, tm, opt_level, target or Target.default())
    except RuntimeError as exc:
        raise JITError(f"invalid LLVM IR: {exc}") from None


def unresolved_symbols(names: Iterable[str]) -> list[str]:
    """The ``names`` no library loaded in this process defines (libm and
    libgomp are loaded first): calling one from JIT code would jump to
    address 0."""
    _initialise()
    return [name for name in names if not llvm.address_of_symbol(name)]


def compile_object(ir_text: str, opt_level: int = 3, target: Target | None = None) -> bytes:
    """A position-independent object file of ``ir_text`` for ``target``
    (default: this machine); any target LLVM knows, this host's or not."""
    _initialise()
    with _compile_lock:
        tm = target_machine(target, opt_level, jit=False)
        return tm.emit_object(parse_and_optimize(ir_text, tm, opt_level, target))


@dataclass
class JITModule:
    """A compiled module; keeps the MCJIT engine (and so the code) alive."""

    engine: llvm.ExecutionEngine
    target_machine: llvm.TargetMachine
    ir: str
    _module: llvm.ModuleRef | None = field(default=None, repr=False)

    @property
    def optimized_ir(self) -> str:
        """The optimised module's text, printed on first use (it is large)."""
        return str(self._module) if self._module is not None else ""

    def function_address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise JITError(f"function '{name}' not found in the compiled module")
        return addr

    def assembly(self) -> str:
        """Host assembly of the optimised module (for inspection)."""
        return self.target_machine.emit_assembly(llvm.parse_assembly(self.optimized_ir))


def compile_llvm_ir(ir_text: str, opt_level: int = 3, target: Target | None = None) -> JITModule:
    """Parse, verify, optimise (``opt_level`` 0..3) and JIT-compile ``ir_text``
    for ``target`` (default: this machine), which must run here (see
    :meth:`Target.runs_on_host`; the caller checks it)."""
    _initialise()
    with _compile_lock:
        tm = target_machine(target, opt_level)
        mod = parse_and_optimize(ir_text, tm, opt_level, target)
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        engine.run_static_constructors()
    return JITModule(engine=engine, target_machine=tm, ir=ir_text, _module=mod)
