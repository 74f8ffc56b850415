"""The ONNX backend node tests, driven by onnx's own ``BackendTest`` runner
at onnx's tolerances, over every supported case (see ``node_cases``).

The per-op pass/fail/skip table and every failure with its reason are
printed at the end of the session (``conftest.py``).
"""

from __future__ import annotations

import re
import sys
import os

import onnx.backend.test

sys.path.insert(0, os.path.dirname(__file__))

from backend import GraphOptBackend  # noqa: E402
from node_cases import KNOWN_FAILURES, selected_cases  # noqa: E402

backend_test = onnx.backend.test.BackendTest(GraphOptBackend, __name__)

for case, reason in selected_cases():
    pattern = "^" + re.escape(case.name) + "_cpu$"
    if reason is None:
        backend_test.include(pattern)
    if case.name in KNOWN_FAILURES:
        backend_test.xfail(pattern)

globals().update(backend_test.test_cases)
