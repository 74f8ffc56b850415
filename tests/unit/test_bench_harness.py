"""benchmarks/harness.py: every sample is one warm-up call, timed apart,
then the steady calls (a fake clock: no timing in unit tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("threadpoolctl")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import harness  # noqa: E402


class FakeTime:
    """A clock that only moves when the contender's call says so."""

    def __init__(self):
        self.now = 0.0
        self.slept = 0.0

    def perf_counter(self):
        return self.now

    thread_time = process_time = perf_counter

    def sleep(self, s):
        self.slept += s


@pytest.mark.parametrize("threads", [1, 2])
def test_warm_up_call_is_timed_apart(monkeypatch, threads: int) -> None:
    clock = FakeTime()
    monkeypatch.setattr(harness, "time", clock)
    calls = []

    def fn():
        # The first call of a sample is slow (cold), the others fast.
        clock.now += 5.0 if not calls or calls[-1] == "end" else 1.0
        calls.append("call")

    c = harness.Contender("graph-opt", threads, fn, calls=3)
    for _ in range(2):
        c.run()
        calls.append("end")
    assert calls.count("call") == 2 * (1 + 3)
    assert c.first_cpu == c.first_wall == [5.0, 5.0]
    assert c.cpu == c.wall == [1.0, 1.0]
    assert (c.basis_s, c.first_basis_s) == (1.0, 5.0)
    # Only a 2-thread sample waits for the previous pools to go idle.
    assert clock.slept == (2 * harness.POOL_IDLE_S if threads == 2 else 0.0)
