"""Shared parts of ``kernels.py`` and ``resnet50.py``: contenders at 1 and 2
threads, interleaved timing (CPU and wall time per call), the peaks measured
in the same run (OpenBLAS sgemm, STREAM triad), and the table printing.

How a sample is timed (:meth:`Contender.run`), the same for every system and
thread count: before a 2-thread sample the process pauses ``POOL_IDLE_S``
(so the spinning OpenBLAS workers of the previous contender have gone to
sleep and do not count in this one's CPU time); then one call of the
contender runs and is timed apart as the *first call*, and then ``calls``
more calls are timed together as the sample.  The first call pays for the
pause and for the contender before it: every worker of the system's pool is
asleep in the kernel and the idle vCPU halted (waking both costs tens of
microseconds in the first parallel region; an empty region of graph-opt's
costs 67 us after the pause against 15 us right after another), and the
caches hold the previous contender's data.  The timed calls that follow are
the steady state that onnxruntime's own perf tool measures after its
warm-up runs; the first-call figures are kept too (``first_cpu_s``,
``first_wall_s``), so a report can give both.

Importing this module first unsets ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` (they only matter to OpenBLAS, that is to the numpy
baseline), so OpenBLAS picks its own kernels for this CPU; import it before
numpy.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(_var, None)

import ctypes  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

import graphopt  # noqa: E402
from graphopt.frontends.builder import GraphBuilder  # noqa: E402

THREADS = (1, 2)
#: Pause before a 2-thread sample, so that OpenBLAS's spinning workers of an
#: earlier sample have gone to sleep and do not count in its CPU time (the
#: call after it is a warm-up, timed apart: see the module docstring).
POOL_IDLE_S = 0.15
GRAPH_OPT_NOTE = "graph-opt's 2-thread rows run its parallel loops on 2 threads (libgomp, num_threads=2)"


def graph_opt_call(compiled, fn, threads: int, args):
    """One call of ``fn`` from ``compiled`` at ``threads`` threads: the count is
    set before every call, so one compiled module serves every row."""

    def call():
        compiled.num_threads = threads
        return fn(*args)

    return call


def blas_description() -> str:
    """Which BLAS numpy uses, and with which core kernels."""
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            return (
                f"{info.get('internal_api')} {info.get('version')}, "
                f"core {info.get('architecture')}, {info.get('num_threads')} threads max"
            )
    return "no BLAS found by threadpoolctl"


@dataclass
class Contender:
    """One system at one thread count: ``fn()`` runs one call."""

    system: str
    threads: int
    fn: Callable[[], object]
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    first_cpu: list[float] = field(default_factory=list)
    first_wall: list[float] = field(default_factory=list)
    calls: int = 1

    def run(self) -> None:
        if self.system == "numpy":
            with threadpool_limits(limits=self.threads):
                self._timed()
        else:
            self._timed()

    def _timed(self) -> None:
        # One thread: the calling thread's CPU time (every contender runs a
        # 1-thread call on the caller).  Two: the whole process's, after the
        # thread pools of the previous contender have gone idle.
        clock = time.thread_time if self.threads == 1 else time.process_time
        if self.threads > 1:
            time.sleep(POOL_IDLE_S)
        # The warm-up call, timed apart (the first call after the pause and
        # after another contender), then the steady calls of the sample.
        c0, w0 = clock(), time.perf_counter()
        self.fn()
        c1, w1 = clock(), time.perf_counter()
        for _ in range(self.calls):
            self.fn()
        c2, w2 = clock(), time.perf_counter()
        self.first_cpu.append(c1 - c0)
        self.first_wall.append(w1 - w0)
        self.cpu.append((c2 - c1) / self.calls)
        self.wall.append((w2 - w1) / self.calls)

    @property
    def cpu_s(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_s(self) -> float:
        return statistics.median(self.wall)

    @property
    def basis_s(self) -> float:
        """The time rates and ratios use: CPU time at one thread, wall at two."""
        return self.cpu_s if self.threads == 1 else self.wall_s

    @property
    def first_cpu_s(self) -> float:
        return statistics.median(self.first_cpu)

    @property
    def first_wall_s(self) -> float:
        return statistics.median(self.first_wall)

    @property
    def first_basis_s(self) -> float:
        """:attr:`basis_s` of the first call after the pause (the warm-up)."""
        return self.first_cpu_s if self.threads == 1 else self.first_wall_s


def calibrate(c: Contender, min_sample_s: float) -> None:
    """Calls per sample so one sample takes about ``min_sample_s`` of wall time."""
    c.calls = 1
    if c.system == "numpy":
        with threadpool_limits(limits=c.threads):
            c.fn()
            start = time.perf_counter()
            c.fn()
    else:
        c.fn()
        start = time.perf_counter()
        c.fn()
    once = max(time.perf_counter() - start, 1e-7)
    c.calls = max(1, int(min_sample_s / once))


def measure(contenders: Sequence[Contender], repeats: int, min_sample_s: float = 0.02) -> None:
    """Interleaved: each repeat runs every contender once, in turn (one
    warm-up call, then calls for about ``min_sample_s``, at least one)."""
    for c in contenders:
        calibrate(c, min_sample_s)
    for _ in range(repeats):
        for c in contenders:
            c.run()


def realtime(on: bool) -> None:
    """Every thread of this process (the pools' workers included; threads
    created later inherit it) at ``SCHED_FIFO`` priority 1, or back to
    ``SCHED_OTHER``: other processes then cannot take a CPU from a running
    call, a stand-in for a quiet machine (needs root)."""
    policy, param = (os.SCHED_FIFO, os.sched_param(1)) if on else (os.SCHED_OTHER, os.sched_param(0))
    for tid in map(int, os.listdir("/proc/self/task")):
        try:
            os.sched_setscheduler(tid, policy, param)
        except OSError as e:  # no permission, or the thread ended
            if on and e.errno == 1:
                raise SystemExit("--realtime needs the permission to set SCHED_FIFO (root)") from None


def ort_session(model: bytes, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # No spin-waiting workers: they would burn CPU time between calls and
    # during other contenders' samples.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def ort_call(session, inputs: Sequence[np.ndarray]) -> Callable[[], object]:
    names = [i.name for i in session.get_inputs()]
    feed = dict(zip(names, inputs))
    return lambda: session.run(None, feed)


# --------------------------------------------------------------------------
# peaks, measured in the same run
# --------------------------------------------------------------------------


@dataclass
class Peaks:
    sgemm_gflops: dict[int, float]  # threads -> GFLOP/s of OpenBLAS sgemm 1024^3
    triad_gbs: float  # STREAM triad a = b + s*c, one thread, GB/s

    def describe(self) -> str:
        g = ", ".join(f"{t} thread{'s' if t > 1 else ''} {v:.1f} GFLOP/s" for t, v in self.sgemm_gflops.items())
        return f"OpenBLAS sgemm 1024^3: {g}; STREAM triad (2^24 f32, one thread, compiled): {self.triad_gbs:.1f} GB/s"


def measure_peaks(repeats: int) -> Peaks:
    rng = np.random.default_rng(0)
    n = 1024
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    gemm = [Contender("numpy", t, lambda: a @ b) for t in THREADS]
    # STREAM triad, compiled: out = b + s * c in one loop (reads 2, writes 1).
    size = 1 << 24
    g = GraphBuilder("triad")
    tb, tc = g.input((size,), np.float32), g.input((size,), np.float32)
    triad = graphopt.compile(g.build(g.add(tb, g.mul(tc, g.constant(np.float32(3.0))))), opt_level=2)["triad"]
    vb, vc = rng.random(size, dtype=np.float32), rng.random(size, dtype=np.float32)
    out = np.empty(size, np.float32)
    np.testing.assert_allclose(triad(vb, vc), vb + 3 * vc, rtol=1e-6)
    # Called through its ABI on a preallocated output, so no page faults of
    # a fresh output array are timed: fn(in0, in1, out0, workspace).
    raw = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4)(triad.address)
    ptrs = (vb.ctypes.data, vc.ctypes.data, out.ctypes.data, triad.workspace_address())
    triad_c = Contender("graph-opt", 1, lambda: raw(*ptrs))
    measure([*gemm, triad_c], repeats)
    return Peaks(
        {c.threads: 2 * n**3 / c.basis_s / 1e9 for c in gemm},
        3 * size * 4 / triad_c.basis_s / 1e9,
    )


# --------------------------------------------------------------------------
# printing
# --------------------------------------------------------------------------


def print_run_header(repeats: int) -> Peaks:
    """What every table of this run rests on: the BLAS, the thread note and
    the peaks measured now; returns the peaks."""
    print(f"numpy BLAS: {blas_description()}")
    print(GRAPH_OPT_NOTE)
    peaks = measure_peaks(repeats)
    print(f"peaks in this run: {peaks.describe()}")
    print("rates and ratios: CPU time at 1 thread, wall time at 2 threads; medians of "
          f"{repeats} interleaved repeats; every sample: one warm-up call (timed apart), "
          "then the steady calls timed\n")  # fmt: skip
    return peaks


def fmt_time(seconds: float) -> str:
    if seconds >= 0.1:
        return f"{seconds * 1e3:.0f} ms"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def met(ok: bool) -> str:
    return "met" if ok else "not met"
