"""LLVM's O1-O3 module pipeline, without LLVM's loop unrolling (the lowering
unrolls what needs it) but for the functions the lowering marks as wanting
it (``runtime/llvm_split``), run where its native memory leak is harmless.

Every run of llvmlite's new-pass-manager default pipeline (``PassBuilder`` /
``ModulePassManager.run``, llvmlite 0.50, LLVM 22) leaves native memory
behind: about 70 KiB for a one-kernel module and 300-500 KiB for the
examples, growing with the module.  Neither closing nor reusing the pass
objects returns it, a fresh ``LLVMContext`` per module does not either, a
pass manager cannot be run twice (an assertion in LLVM), and llvmlite no
longer has the legacy pass manager.  Parsing, the target machine and MCJIT
do not leak.  So a long-lived process (a server, a training loop that
recompiles) grew by that much on every compile.

The workaround keeps the pipeline and moves where it runs: the first
``IN_PROCESS_RUNS`` optimisations of a process run in it (a command-line
tool compiles once and pays no start-up cost); later ones are sent to one
worker process that runs the same pipeline (the same triple, CPU and
features) on the IR text and sends the optimised text back.  The worker is replaced
after ``WORKER_RUNS`` optimisations, which bounds its own growth.  If the
worker cannot be started or dies, the optimisation runs in this process.

Run as a script, this file is the worker: requests and replies are a
decimal byte count on one line followed by that many bytes of UTF-8
(a request's first line is the opt level, triple, CPU and features,
tab-separated; the IR follows).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from graphopt.runtime.llvm_split import split_module
from graphopt.target import Target

#: Optimisations a process runs itself before it uses the worker.
IN_PROCESS_RUNS = 8
#: Optimisations after which the worker is replaced by a fresh one.
WORKER_RUNS = 200


def run_pipeline(mod, tm, opt_level: int, unroll: bool = False) -> None:
    """LLVM's default ``O<opt_level>`` module pipeline on the llvmlite module
    ``mod`` in place: loop and SLP vectorisers on, LLVM's loop unrolling as
    ``unroll`` says.

    The lowering unrolls the short constant loops that want it (window
    taps, register-tile rows) as it emits them, so LLVM's LoopUnroll and
    LoopFullUnroll (a quarter of the pipeline's time on ResNet-50, and more
    of MCJIT's, whose input they made larger) would mostly grow the code.  A
    loop whose latch carries ``llvm.loop.unroll.full`` metadata is still
    unrolled: with unrolling off LLVM unrolls only where forced."""
    import llvmlite.binding as llvm

    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = unroll
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    mpm.run(mod, pb)


def parse_ir(text: str, tm):
    """Parse and verify ``text`` for the target machine ``tm``."""
    import llvmlite.binding as llvm

    mod = llvm.parse_assembly(text)
    mod.verify()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    return mod


def optimise_ir(ir_text: str, tm, opt_level: int):
    """Parse, verify and optimise ``ir_text`` (see above): a ``ModuleRef``.
    The functions marked for LLVM's unrolling are optimised apart with it
    and linked back.  Invalid IR raises ``RuntimeError`` (LLVM's message,
    for the whole text)."""
    try:
        parts, restore = split_module(ir_text)
        mods = [parse_ir(text, tm) for text, _ in parts]
    except (RuntimeError, ValueError):  # reported for the text as given
        parts, restore = [(ir_text, False)], []
        mods = [parse_ir(ir_text, tm)]
    for mod, (_, unroll) in zip(mods, parts):
        run_pipeline(mod, tm, opt_level, unroll)
    whole = mods[0]
    for mod in mods[1:]:
        whole.link_in(mod)
    for name in restore:
        try:
            value = whole.get_function(name)
        except NameError:
            try:
                value = whole.get_global_variable(name)
            except NameError:  # optimised away
                continue
        value.linkage = "internal"
    return whole


class _Worker:
    def __init__(self) -> None:
        env = dict(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.runs = 0
        self.owner = os.getpid()

    def optimise(self, ir_text: str, opt_level: int, target: Target) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        payload = f"{opt_level}\t{target.triple}\t{target.cpu}\t{target.llvm_features}\n{ir_text}".encode()
        self.proc.stdin.write(b"%d\n" % len(payload) + payload)
        self.proc.stdin.flush()
        header = self.proc.stdout.readline()
        if not header:
            raise OSError("the LLVM optimiser process exited")
        size = int(header)
        body = self.proc.stdout.read(abs(size))
        if size < 0:  # the worker's error message
            raise RuntimeError(body.decode(errors="replace"))
        self.runs += 1
        return body.decode()

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - a worker that will not stop is killed
            self.proc.kill()


class Optimiser:
    """Runs :func:`run_pipeline` in this process first, then in a worker."""

    def __init__(self, in_process_runs: int = IN_PROCESS_RUNS, worker_runs: int = WORKER_RUNS):
        self.in_process_runs = in_process_runs
        self.worker_runs = worker_runs
        self.runs = 0
        self._worker: _Worker | None = None
        self._worker_failed = False
        self._lock = threading.Lock()

    def optimise(self, ir_text: str, tm, opt_level: int, target: Target):
        """:func:`optimise_ir` of ``ir_text`` for ``tm``, made for ``target``,
        here or in the worker (whose optimised text is parsed back here)."""
        with self._lock:
            self.runs += 1
            if self.runs <= self.in_process_runs or self._worker_failed:
                return optimise_ir(ir_text, tm, opt_level)
            if self._worker is not None and self._worker.owner != os.getpid():
                self._worker = None  # a forked child: the pipes are the parent's
            try:
                if self._worker is None or self._worker.runs >= self.worker_runs:
                    if self._worker is not None:
                        self._worker.close()
                    self._worker = _Worker()
                text = self._worker.optimise(ir_text, opt_level, target)
            except RuntimeError:
                # The worker refused the IR: the same run here reports why.
                return optimise_ir(ir_text, tm, opt_level)
            except (OSError, ValueError):
                if self._worker is not None:
                    self._worker.close()
                self._worker, self._worker_failed = None, True
                return optimise_ir(ir_text, tm, opt_level)
            return parse_ir(text, tm)

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None


OPTIMISER = Optimiser()


def _serve() -> None:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    machines: dict[str, object] = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = stdin.readline()
        if not header:
            return
        request = stdin.read(int(header)).decode()
        first, _, ir_text = request.partition("\n")
        try:
            level_text, triple, cpu, features = first.split("\t")
            level = int(level_text)
            tm = machines.get(first)
            if tm is None:
                tm = machines[first] = llvm.Target.from_triple(triple).create_target_machine(
                    cpu=cpu, features=features, opt=level, codemodel="jitdefault", jit=True,
                )
            mod = optimise_ir(ir_text, tm, level)
            reply, size_sign = str(mod).encode(), 1
        except Exception as err:  # noqa: BLE001 - reported to the parent
            reply, size_sign = f"{type(err).__name__}: {err}".encode(), -1
        stdout.write(b"%d\n" % (size_sign * len(reply)) + reply)
        stdout.flush()


if __name__ == "__main__":
    _serve()
