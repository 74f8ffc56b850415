"""Kernel emission walks a group with a worklist: a 1,000-op fused group
lowers (and computes the right values) at Python's default recursion limit."""

import sys

import numpy as np
import pytest

import graphopt
from graphopt.runtime.compile import parse_text
from graphopt.runtime.reference import interpret


def chain_group(n: int, reduce: bool) -> str:
    """n ops in ONE group: tanh, an add of the group input (a diamond) and a
    transpose in turn; with ``reduce`` the chain feeds a row sum, so it is
    inlined inside the reduction's loop."""
    t = "tensor<6x6xf32>"
    lines, prev = [], "%p"
    for i in range(n):
        kind = i % 3
        if kind == 0:
            lines.append(f"    %v{i} = graph.tanh {prev} : {t}")
        elif kind == 1:
            lines.append(f"    %v{i} = graph.add {prev}, %p : ({t}, {t}) -> {t}")
        else:
            lines.append(f"    %v{i} = graph.transpose {prev} {{perm = array<i64: 1, 0>}} : ({t}) -> {t}")
        prev = f"%v{i}"
    out_t = "tensor<6xf32>" if reduce else t
    if reduce:
        lines.append(f"    %s = graph.reduce_sum {prev} {{axes = array<i64: 1>}} : ({t}) -> {out_t}")
        prev = "%s"
    body = "\n".join(lines)
    pattern = "comm_reduce" if reduce else "injective"
    return f"""
func.func @deep(%x: {t}) -> {out_t} {{
  %r = fused.group "deep" pattern({pattern}) (%p = %x : {t}) -> ({out_t}) {{
{body}
    fused.yield {prev} : {out_t}
  }}
  func.return %r : {out_t}
}}
"""


@pytest.mark.parametrize("reduce", [False, True], ids=["chain", "chain-into-reduction"])
def test_thousand_op_group_at_default_recursion_limit(reduce):
    assert sys.getrecursionlimit() <= 1000
    module = parse_text(chain_group(1000, reduce))
    x = np.random.default_rng(0).standard_normal((6, 6)).astype(np.float32)
    fn = graphopt.compile(module, opt_level=0)["deep"]
    assert sys.getrecursionlimit() <= 1000  # nothing raised it
    (expected,) = interpret(module, x, entry="deep")
    np.testing.assert_allclose(fn(x), expected, rtol=1e-5, atol=1e-6)
