"""Run-time boundary reliability (issue 15, items 3 and 10)."""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.reference import interpret


def _bool_module():
    b = GraphBuilder("f")
    c, x, y = b.input((2, 4), np.bool_), b.input((2, 4), np.float32), b.input((2, 4), np.float32)
    return b.build(b.where(c, x, y), b.cast(c, np.float32), b.cast(c, np.int64), b.cast(c, np.bool_))


@pytest.mark.parametrize("level", [0, 2])
def test_bool_inputs_with_bytes_other_than_0_and_1(level) -> None:
    """numpy reads any nonzero byte as True; the compiled code must too."""
    raw = bytes([0, 1, 2, 3, 4, 254, 255, 128])
    c = np.frombuffer(raw, dtype=np.bool_).reshape(2, 4)
    views = [c, np.frombuffer(raw, np.uint8).view(np.bool_).reshape(2, 4), c[:, ::-1]]
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    module = _bool_module()
    fn = graphopt.compile(module, opt_level=level)["f"]
    for cond in views:
        want = interpret(module, cond, x, -x)
        got = fn(cond, x, -x)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    assert np.frombuffer(raw, np.uint8)[2] == 2  # the caller's buffer is left alone
