"""Differential testing (issue 15): random graphs over the whole op set,
every element type, zero-size and rank-0 shapes and ±inf/NaN inputs, each
compared at -O0 .. -O3 with the reference -- the reference interpreter after
every pass of the level's pipeline, then the compiled code.

Graphs run in a child process (``differential_gen.py``), seed after seed; if
the child dies (a crash in generated code), the seed it was on is reported
and the run goes on in a new child.

Under CI a fixed range runs: one seed per entry of the op table, so every op
leads at least one graph (well within a minute).  More:

    GRAPHOPT_DIFFERENTIAL_SEEDS=2000 pytest tests/unit/test_differential.py
    GRAPHOPT_DIFFERENTIAL_SEEDS=unlimited GRAPHOPT_DIFFERENTIAL_START=5000 pytest ...

(``unlimited`` runs until interrupted or until the first failure, which it
reports with its seed; replay one seed with ``python differential_gen.py SEED 1``.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from differential_gen import OPS

HERE = Path(__file__).parent


def _seed_range() -> tuple[int, int | None]:
    start = int(os.environ.get("GRAPHOPT_DIFFERENTIAL_START", "0"))
    count = os.environ.get("GRAPHOPT_DIFFERENTIAL_SEEDS", str(len(OPS)))
    return start, None if count == "unlimited" else int(count)


def run_seeds(start: int, count: int | None) -> tuple[list[str], int]:
    """Check seeds ``start..start+count`` (all of them if ``count`` is None)
    in child processes; the failures (with their seeds) and the number checked."""
    failures: list[str] = []
    checked = 0
    seed = start
    end = None if count is None else start + count
    while end is None or seed < end:
        todo = -1 if end is None else end - seed
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "differential_gen.py"), str(seed), str(todo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=HERE,
        )
        current = None
        assert proc.stdout is not None
        for line in proc.stdout:
            word, _, rest = line.rstrip("\n").partition(" ")
            if word == "START":
                current = int(rest)
                continue
            checked += 1
            seed, current = int(rest.split(" ", 1)[0]) + 1, None
            if word == "FAIL":
                failures.append(f"seed {rest}")
                if end is None:
                    proc.kill()
                    return failures, checked
        code = proc.wait()
        if current is not None:  # the child died on this seed
            failures.append(f"seed {current}: the process died (exit status {code})")
            checked += 1
            seed = current + 1
            if end is None:
                return failures, checked
        elif code != 0:
            failures.append(f"the differential child exited with status {code} after seed {seed - 1}")
            break
    return failures, checked


#: A fixed range runs as this many tests (in as many child processes), so
#: that parallel test workers share it instead of one of them waiting on it.
PARTS = 2


def _parts() -> list[tuple[int, int | None]]:
    start, count = _seed_range()
    if not count:  # unlimited, or nothing
        return [(start, count)]
    step = max(1, -(-count // PARTS))
    return [(s, min(step, start + count - s)) for s in range(start, start + count, step)]


@pytest.mark.parametrize(("start", "count"), _parts(), ids=lambda v: str(v))
def test_differential(start: int, count: int | None) -> None:
    failures, checked = run_seeds(start, count)
    assert not failures, f"{len(failures)} of {checked} random graphs disagree:\n" + "\n".join(failures)
    assert count is None or checked == count


def test_a_crash_is_reported_with_its_seed(tmp_path, monkeypatch) -> None:
    """The harness itself: a child that dies mid-seed is reported, not fatal."""
    script = tmp_path / "differential_gen.py"
    script.write_text(
        "import os, sys\n"
        "start, n = int(sys.argv[1]), int(sys.argv[2])\n"
        "for s in range(start, start + n):\n"
        "    print('START', s, flush=True)\n"
        "    if s == 3: os.abort()\n"
        "    print('OK', s, flush=True)\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "HERE", tmp_path)
    failures, checked = run_seeds(0, 6)
    assert checked == 6
    assert len(failures) == 1 and failures[0].startswith("seed 3: the process died")


if __name__ == "__main__":
    pytest.main([__file__])
