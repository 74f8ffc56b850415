"""LLVM's O1-O3 module pipeline, without loop unrolling for the scalar parts
of the vectorised kernels, run where its native memory leak is harmless.

``optimise_ir`` splits a module into the launchers and scalar parts of the
kernels the lowering vectorised and the rest, optimises the first without
LLVM's loop unrolling and the rest with the full pipeline, and links them
back into one module (see the comment above ``split_module``).

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
worker process that runs the same pipeline (same host CPU and features) on
the IR text and sends the optimised text back.  The worker is replaced
after ``WORKER_RUNS`` optimisations, which bounds its own growth.  If the
worker cannot be started or dies, the optimisation runs in this process.

Run as a script, this file is the worker: requests and replies are a
decimal byte count on one line followed by that many bytes of UTF-8
(requests start with the opt level and a space).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field

#: Optimisations a process runs itself before it uses the worker.
IN_PROCESS_RUNS = 8
#: Optimisations after which the worker is replaced by a fresh one.
WORKER_RUNS = 200


def host_features() -> str:
    """The host CPU's features as the JIT and the worker both use them: with
    AVX-512, full 16-lane vectors (softmax about 20% faster on Zen 4)."""
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features().flatten()
    if "+avx512f" in features.split(","):
        features += ",-prefer-256-bit"
    return features


def run_pipeline(mod, tm, opt_level: int, unroll: bool = True) -> None:
    """LLVM's default ``O<opt_level>`` module pipeline, loop and SLP
    vectorisers on, loop unrolling as ``unroll`` says, on the llvmlite module
    ``mod`` in place."""
    import llvmlite.binding as llvm

    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = unroll
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    mpm.run(mod, pb)


# -- Two pipelines, one per kind of function ------------------------------
#
# A scheduled kernel (GEMM, conv) is lowered to a vectorised body, launched by
# a scalar function that also runs the kernel's scalar parts: the copy of
# the input into a padded buffer, the edges.  LLVM's loop unrolling of those
# scalar parts (full unrolling of their 28- to 58-iteration row loops, then
# SLP vectorisation of the result) took about 1 of the 2.5 s that LLVM's
# pipeline spends on ResNet-50, and they run no slower without it (their row
# loops are vectorised by the loop vectoriser instead).  Everything else
# keeps the full pipeline: the vectorised bodies need LLVM's full unrolling
# of their short tap loops (3x3 convs run 5-17% slower without), and the
# elementwise and pooling kernels need it before they vectorise (max-pool
# 3x3: 10x slower without).  So the module is optimised as two modules that
# are then linked into one again.

_VECTOR_TYPE = re.compile(r"<\d+ x ")
_GLOBAL_NAME = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)')
_LINKAGE = r"(?:private|internal|available_externally|linkonce|weak|common|appending|extern_weak|linkonce_odr|weak_odr|external)"
_DEFINE = re.compile(rf'define (?:{_LINKAGE} )?(.*?)@("(?:[^"\\]|\\.)*"|[-\w.$]+)\((.*)\)(.*)$')
_PARAM_NAME = re.compile(r' %(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)(?=,|$)')
_GLOBAL_DEF = re.compile(rf"(@\S+) = (?:{_LINKAGE} )?(?:[\w_]+ )*?(global|constant) ")


@dataclass
class _Chunk:
    """A top-level entity of LLVM IR text: a function definition, a global
    variable definition, or anything else (declarations, metadata)."""

    text: str
    name: str | None = None  # functions and global variables
    kind: str = "other"  # "function", "global" or "other"
    uses: set[str] = field(default_factory=set)

    @property
    def is_internal(self) -> bool:
        head = self.text.split(" = ", 1)[-1] if self.kind == "global" else self.text
        return head.startswith(("define internal ", "define private ", "internal ", "private "))


def _chunks(ir_text: str) -> list[_Chunk]:
    """The top-level entities of ``ir_text`` as llvmlite prints a module:
    a function from a ``define`` line to the ``}`` line, the rest a line each."""
    chunks: list[_Chunk] = []
    lines = ir_text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            j = lines.index("}", i)
            text = "\n".join(lines[i : j + 1])
            m = _DEFINE.match(line)
            if m is None:
                raise ValueError(f"unrecognised function definition: {line[:200]}")
            name = m.group(2).strip('"')
            uses = {u.strip('"') for u in _GLOBAL_NAME.findall(text)} - {name}
            chunks.append(_Chunk(text, name, "function", uses))
            i = j + 1
            continue
        if (g := _GLOBAL_DEF.match(line)) is not None:
            uses = {u.strip('"') for u in _GLOBAL_NAME.findall(line[len(g.group(0)) :])}
            chunks.append(_Chunk(line, g.group(1)[1:].strip('"'), "global", uses))
        elif line:
            chunks.append(_Chunk(line))
        i += 1
    return chunks


def _bracketed_type(text: str) -> str:
    """The LLVM type at the start of ``text`` (``[4 x [2 x float]]``, ``i32``...)."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in "[<{(":
            depth += 1
        elif ch in "]>})":
            depth -= 1
        elif ch == " " and depth == 0:
            return text[:k]
    return text


def _declaration(chunk: _Chunk) -> str:
    """An external declaration of a function or global variable chunk."""
    if chunk.kind == "function":
        m = _DEFINE.match(chunk.text.split("\n", 1)[0])
        assert m is not None
        ret, name, params, attrs = m.groups()
        return f"declare {ret}@{name}({_PARAM_NAME.sub('', params)}){attrs.rstrip(' {')}"
    g = _GLOBAL_DEF.match(chunk.text)
    assert g is not None
    return f"{g.group(1)} = external {g.group(2)} {_bracketed_type(chunk.text[len(g.group(0)) :])}"


def _external(chunk: _Chunk) -> str:
    """``chunk``'s definition with its private/internal linkage dropped."""
    if chunk.kind == "function":
        return re.sub(r"^define (?:internal|private) ", "define ", chunk.text)
    return re.sub(r" = (?:internal|private) ", " = ", chunk.text, count=1)


def split_module(ir_text: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """``ir_text`` as modules to optimise apart and then link: ``(text,
    unroll)`` pairs (one pair when there is nothing to split), and the names
    whose internal linkage the linked module must get back.

    The second module holds the launchers of the vectorised kernels and
    their scalar parts, the first everything else with every global
    variable; each declares what it uses of the other, whose definition is
    made external for the link."""
    chunks = _chunks(ir_text)
    functions = [c for c in chunks if c.kind == "function"]
    by_name = {c.name for c in functions}
    vectorised = {c.name for c in functions if _VECTOR_TYPE.search(c.text)}
    # The internal functions that call a vectorised one (their launchers),
    # and the scalar functions those call.
    lean: set[str] = set()
    for c in functions:
        if c.is_internal and c.uses & vectorised and c.name not in vectorised:
            lean |= {c.name} | (c.uses & by_name)
    lean -= vectorised
    if not lean or len(lean) == len(functions):
        return [(ir_text, not lean)], []
    first = [c for c in chunks if c.name not in lean]
    second = [c for c in chunks if c.kind == "other" or c.name in lean]
    defined = {c.name: c for c in chunks if c.kind != "other"}

    def used_by(part: list[_Chunk]) -> set[str]:
        return set().union(*(c.uses for c in part if c.kind != "other"))

    first_uses, second_uses = used_by(first), used_by(second)
    shared = {n for n in second_uses if n in defined and n not in lean}
    shared |= {n for n in first_uses if n in lean}
    restore = [n for n in shared if defined[n].is_internal]

    def text(part: list[_Chunk], declared: set[str]) -> str:
        out = [_external(c) if c.name in shared else c.text for c in part]
        out += [_declaration(defined[n]) for n in sorted(declared)]
        return "\n".join(out) + "\n"

    first_text = text(first, {n for n in first_uses if n in lean})
    second_text = text(second, {n for n in second_uses if n in defined and n not in lean})
    return [(first_text, True), (second_text, False)], restore


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
    Invalid IR raises ``RuntimeError`` (LLVM's message, for the whole text)."""
    try:
        parts, restore = split_module(ir_text)
        mods = [parse_ir(text, tm) for text, _ in parts]
    except (RuntimeError, ValueError):  # reported for the text as given
        parts, restore = [(ir_text, True)], []
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

    def optimise(self, ir_text: str, opt_level: int) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        payload = f"{opt_level} {ir_text}".encode()
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

    def optimise(self, ir_text: str, tm, opt_level: int):
        """:func:`optimise_ir` of ``ir_text`` for ``tm``, here or in the
        worker (whose optimised text is parsed back here)."""
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
                text = self._worker.optimise(ir_text, opt_level)
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

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    target = llvm.Target.from_default_triple()
    machines: dict[int, object] = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = stdin.readline()
        if not header:
            return
        request = stdin.read(int(header)).decode()
        level_text, _, ir_text = request.partition(" ")
        try:
            level = int(level_text)
            tm = machines.get(level)
            if tm is None:
                tm = machines[level] = target.create_target_machine(
                    cpu=llvm.get_host_cpu_name(),
                    features=host_features(),
                    opt=level,
                    codemodel="jitdefault",
                    jit=True,
                )
            mod = optimise_ir(ir_text, tm, level)
            reply, size_sign = str(mod).encode(), 1
        except Exception as err:  # noqa: BLE001 - reported to the parent
            reply, size_sign = f"{type(err).__name__}: {err}".encode(), -1
        stdout.write(b"%d\n" % (size_sign * len(reply)) + reply)
        stdout.flush()


if __name__ == "__main__":
    _serve()
