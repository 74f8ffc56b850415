"""The target: the machine generated code is for, described once per compile.

A :class:`Target` is LLVM's triple, CPU name and feature string, and what the
schedule reads of them: the vector width, the number of vector registers,
whether there is a fused multiply-add, and the cache sizes.  The same object
makes LLVM's target machine (``runtime/jit.py``) and every schedule decision
(lanes per vector, register tiles, cache blocks, the NCHWc block size), so a
kernel is shaped for the registers it will run in, not for one machine::

    Target.host()                                  # this machine
    Target.default()                               # the host, or GRAPHOPT_TARGET_*
    Target.from_options(cpu="haswell")             # AVX2 + FMA, 16 ymm registers
    Target.from_options(features="-avx512f")       # this CPU without AVX-512
    Target.from_options(triple="aarch64-unknown-linux-gnu")

What the vector unit is, LLVM knows and llvmlite does not tell: it is read
off the assembly of a small probe function (an FMA of two ``<16 x float>``
vectors) compiled for the target -- zmm, ymm or xmm registers, a fused or a
split multiply-add -- once per target and process.  The probe also catches
a CPU or feature LLVM does not know (LLVM only warns and carries on).

Cache sizes come from the operating system when the target CPU is the
host's, else from a table by vector class (a cross-compiled schedule must
not depend on the machine that compiles it).

The IR records the target as the module attribute ``loop.target`` (see
``graphopt.dialects.loop.TargetAttr``) when one is chosen; a module without
it is compiled for :meth:`Target.default` (the host).  This module sits below the dialects: it knows
LLVM, not the IR.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from graphopt.errors import ArgumentError

__all__ = ["HOST", "Target"]

#: The CPU name that means "this machine" (with its own features), as in
#: clang's ``-mcpu=native``.
HOST = "host"

_PROBE_IR = """
define void @probe(ptr %a, ptr %b, ptr %c) {
  %x = load <16 x float>, ptr %a
  %y = load <16 x float>, ptr %b
  %z = load <16 x float>, ptr %c
  %r = call <16 x float> @llvm.fma.v16f32(<16 x float> %x, <16 x float> %y, <16 x float> %z)
  store <16 x float> %r, ptr %c
  ret void
}
declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)
"""

#: Cache sizes (L1 data, L2 per core, L3) of a target that is not the host,
#: by vector width: the AVX-512 servers' and the AVX2/NEON parts' common sizes.
_DEFAULT_CACHES = {512: (32 << 10, 1 << 20, 32 << 20), 256: (32 << 10, 512 << 10, 16 << 20)}
_SMALL_CACHES = (32 << 10, 256 << 10, 4 << 20)

@dataclass(frozen=True)
class Target:
    """A concrete target: ``triple``, ``cpu`` and ``features`` are LLVM's
    spellings (``features`` a comma-separated list of ``+name``/``-name``).
    Make one with :meth:`host` or :meth:`from_options`, which check it."""

    triple: str
    cpu: str
    features: str = ""

    # ----------------------------------------------------------------- making

    @classmethod
    def host(cls) -> Target:
        """This machine: its triple, CPU name and every feature it has."""
        return _host()

    @classmethod
    def default(cls) -> Target:
        """The target of a compile that names none: the host, or what the
        environment variables ``GRAPHOPT_TARGET_CPU``, ``GRAPHOPT_TARGET_FEATURES``
        and ``GRAPHOPT_TARGET_TRIPLE`` say (as the flags would: so a test suite
        runs as on an AVX2 machine with ``GRAPHOPT_TARGET_FEATURES=-avx512f``)."""
        cpu, features, triple = (os.environ.get(f"GRAPHOPT_TARGET_{k}") for k in ("CPU", "FEATURES", "TRIPLE"))
        if not (cpu or features or triple):
            return _host()
        return cls.from_options(cpu, features, triple)

    @classmethod
    def from_options(cls, cpu: str | None = None, features: str | None = None, triple: str | None = None) -> Target:
        """The target of ``--target-cpu``, ``--target-features`` and
        ``--target-triple``; what is not given is the host's.

        ``cpu`` ``None`` or ``"host"`` is the host CPU with all its features,
        to which ``features`` then add or remove (``-avx512f``); a named CPU
        has its own features plus ``features``.  On another architecture
        than the host's, the CPU defaults to LLVM's ``generic``.  An unknown
        triple, CPU or feature is an :class:`ArgumentError`."""
        return _from_options(cpu or HOST, features or "", triple or "")

    # ---------------------------------------------------------- what LLVM gets

    @property
    def llvm_features(self) -> str:
        """The feature string LLVM's target machine gets: with AVX-512, full
        512-bit vectors also where LLVM's own vectoriser would prefer 256
        (softmax about 20% faster on Zen 4), unless the features say otherwise."""
        if self.vector_bits == 512 and "prefer-256-bit" not in self.features:
            return f"{self.features},-prefer-256-bit" if self.features else "-prefer-256-bit"
        return self.features

    @property
    def arch(self) -> str:
        """The triple's architecture (``x86_64``, ``aarch64``...)."""
        return self.triple.split("-", 1)[0]

    # ------------------------------------------------------ what the schedule reads

    @functools.cached_property
    def _facts(self) -> tuple[int, bool]:
        return _probe(self.triple, self.cpu, self.features)

    @property
    def vector_bits(self) -> int:
        """Width of one vector register (512, 256, 128; 0: no vector unit for f32)."""
        return self._facts[0]

    @property
    def fma(self) -> bool:
        """Whether a vector multiply-add is one fused instruction."""
        return self._facts[1]

    @property
    def f32_lanes(self) -> int:
        """f32 elements per vector register (1 where there is no vector unit)."""
        return max(1, self.vector_bits // 32)

    @property
    def vector_registers(self) -> int:
        """Architectural vector registers: 32 with AVX-512 or on AArch64, else 16."""
        if self.arch in ("aarch64", "arm64") or (self.arch == "x86_64" and self.vector_bits == 512):
            return 32
        return 16

    @property
    def vector_isa(self) -> str:
        """A readable name of the vector unit: AVX-512, AVX2, SSE, NEON..."""
        if self.arch == "x86_64":
            return {512: "AVX-512", 256: "AVX2" if self.fma else "AVX", 128: "SSE"}.get(self.vector_bits, "scalar")
        if self.arch in ("aarch64", "arm64"):
            return "NEON" if self.vector_bits else "scalar"
        return f"{self.vector_bits}-bit vectors" if self.vector_bits else "scalar"

    @property
    def has_micro_kernels(self) -> bool:
        """Whether the register-tiled micro-kernels suit this target: vectors
        of at least 4 f32 and a fused multiply-add (else the compute rules'
        loops, which LLVM vectorises as it can: the scalar-safe path)."""
        return self.fma and self.f32_lanes >= 4

    @functools.cached_property
    def caches(self) -> tuple[int, int, int]:
        """Bytes of (L1 data, L2, L3): the OS's for the host CPU, else the table's."""
        if self == _host() or (self.cpu == _host().cpu and self.triple == _host().triple):
            found = _host_caches()
            if found is not None:
                return found
        return _DEFAULT_CACHES.get(self.vector_bits, _SMALL_CACHES)

    @property
    def l1d_bytes(self) -> int:
        return self.caches[0]

    @property
    def l2_bytes(self) -> int:
        return self.caches[1]

    @property
    def l3_bytes(self) -> int:
        return self.caches[2]

    # ------------------------------------------------------------------ running

    def runs_on_host(self) -> bool:
        """Whether code for this target can run here: the same architecture,
        and no wider vectors or FMA the host lacks."""
        host = _host()
        if self == host:
            return True
        return (
            self.arch == host.arch
            and self.vector_bits <= host.vector_bits
            and (host.fma or not self.fma)
            and not _removed_from(host.features, self.features)
        )

    def describe(self) -> str:
        """One line for messages and benchmark tables."""
        kb = lambda n: f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"  # noqa: E731
        l1, l2, l3 = self.caches
        return (
            f"{self.cpu} ({self.triple}; {self.vector_isa}: {self.f32_lanes} f32 lanes, "
            f"{self.vector_registers} vector registers{', FMA' if self.fma else ''}; "
            f"L1d {kb(l1)}, L2 {kb(l2)}, L3 {kb(l3)})"
        )

    def __str__(self) -> str:
        return self.describe()


def _removed_from(host_features: str, features: str) -> bool:
    """Whether ``features`` enables a feature the host's list disables."""
    off = {f[1:] for f in host_features.split(",") if f.startswith("-")}
    return any(f.startswith("+") and f[1:] in off for f in features.split(","))


# --------------------------------------------------------------------------
# resolution, cached: a process asks for the same few targets again and again
# --------------------------------------------------------------------------


def _llvm():
    import llvmlite.binding as llvm

    _initialise_targets(llvm)
    return llvm


@functools.lru_cache(maxsize=1)
def _initialise_targets(llvm) -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


@functools.lru_cache(maxsize=1)
def _host() -> Target:
    llvm = _llvm()
    return Target(llvm.get_process_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())


_FEATURE = re.compile(r"[+-][A-Za-z0-9_.-]+")


@functools.lru_cache(maxsize=64)
def _from_options(cpu: str, features: str, triple: str) -> Target:
    host = _host()
    features = ",".join(f.strip() for f in features.split(",") if f.strip())
    bad = [f for f in features.split(",") if f and not _FEATURE.fullmatch(f)]
    if bad:
        raise ArgumentError(
            f"target feature '{bad[0]}' must be '+name' or '-name' (LLVM's spelling, e.g. -avx512f)"
        )
    triple = triple or host.triple
    _check_triple(triple)
    if cpu in (HOST, "native"):
        if triple.split("-", 1)[0] != host.arch:
            cpu, base = "generic", ""
        else:
            cpu, base = host.cpu, host.features
        features = ",".join(f for f in (base, features) if f)
    target = Target(triple, cpu, features)
    target._facts  # noqa: B018 - probe now: an unknown CPU or feature is reported here
    return target


def _check_triple(triple: str) -> None:
    llvm = _llvm()
    try:
        llvm.Target.from_triple(triple)
    except RuntimeError as err:
        raise ArgumentError(f"unknown target triple '{triple}': {str(err).strip()}") from None


@functools.lru_cache(maxsize=64)
def _probe(triple: str, cpu: str, features: str) -> tuple[int, bool]:
    """(vector bits, fused multiply-add) of a target.

    The host is probed in this process.  Any other target is probed in a
    child process: LLVM only warns about a CPU or feature it does not know,
    then aborts the process when it generates code for it, so the child's
    warnings become an :class:`ArgumentError` and its abort cannot take this
    process down."""
    host = _host() if (triple, cpu, features) != ("", "", "") else None
    if host is not None and (triple, cpu, features) == (host.triple, host.cpu, host.features):
        return _read_probe(_probe_assembly(triple, cpu, features))
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, triple, cpu, features, _PROBE_IR],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    for line in proc.stderr.splitlines():
        if "is not a recognized" in line:
            what = line.split("(ignoring")[0].strip().rstrip(".")
            raise ArgumentError(f"{what} (triple {triple}, CPU {cpu})")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise ArgumentError(f"LLVM cannot generate code for target CPU {cpu!r} with features {features!r} on {triple}: {last}")
    return _read_probe(proc.stdout)


#: The child's program: llvmlite alone (it needs no graph-opt on its path).
_CHILD = """
import sys
import llvmlite.binding as llvm
llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
triple, cpu, features, ir = sys.argv[1:5]
tm = llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, features=features, opt=2)
mod = llvm.parse_assembly(ir)
mod.triple = triple
sys.stdout.write(tm.emit_assembly(mod))
"""


def _probe_assembly(triple: str, cpu: str, features: str) -> str:
    llvm = _llvm()
    tm = llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, features=features, opt=2)
    mod = llvm.parse_assembly(_PROBE_IR)
    mod.triple = triple
    return tm.emit_assembly(mod)


def _read_probe(asm: str) -> tuple[int, bool]:
    if "zmm" in asm:
        bits = 512
    elif "ymm" in asm:
        bits = 256
    elif "xmm" in asm or re.search(r"\bv[0-9]+\.4s\b|\bq[0-9]+\b", asm):
        bits = 128
    else:
        bits = 0
    return bits, bool(re.search(r"vfmadd|\bfmla\b|\bvfma|\bfmadd", asm))


def _host_caches() -> tuple[int, int, int] | None:
    """(L1 data, L2, L3) bytes from Linux's sysfs, or None where it does not say."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    sizes: dict[int, int] = {}
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return None
    for entry in entries:
        if not entry.startswith("index"):
            continue
        try:
            with open(os.path.join(base, entry, "level")) as f:
                level = int(f.read())
            with open(os.path.join(base, entry, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(base, entry, "size")) as f:
                size = _size(f.read().strip())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size:
            sizes[level] = size
    if 1 not in sizes or 2 not in sizes:
        return None
    return sizes[1], sizes[2], sizes.get(3, sizes[2])


def _size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)
