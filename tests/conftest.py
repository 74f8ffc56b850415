"""Session-wide rule of the pytest suite: no test leaves files in the checkout.

The suite runs in parallel workers (pytest-xdist), so a file a test writes in
the checkout can be seen, or deleted, by a test running at the same time.
Outputs belong in the test's ``tmp_path``.  The checkout's files are listed
when the session starts and again when it ends; a new one fails the session.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Folders the tools themselves write (caches, lit's Output/, virtualenvs).
IGNORED_DIRS = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "Output", "build", ".venv"}
IGNORED_FILES = {".lit_test_times.txt"}

_before: set[str] | None = None
_left: list[str] = []


def checkout_files() -> set[str]:
    found: set[str] = set()
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS and not d.endswith(".egg-info")]
        rel = os.path.relpath(root, REPO)
        found.update(os.path.normpath(os.path.join(rel, f)) for f in files if f not in IGNORED_FILES)
    return found


def _is_controller(config: pytest.Config) -> bool:
    """The process that runs the session (not one of xdist's workers)."""
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    global _before
    if _is_controller(session.config):
        _before = checkout_files()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _left
    if _before is None or not _is_controller(session.config):
        return
    _left = sorted(checkout_files() - _before)
    if _left and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    if _left:
        terminalreporter.write_line(
            "error: tests left files in the checkout (write them under tmp_path): " + ", ".join(_left),
            red=True, bold=True,
        )
