"""plan-devices: placement, copy insertion, per-device memory pools, and
results identical to the single-device run."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

import graphopt
from graphopt.dialects.graph import CopyOp
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.compile import run_pipeline
from graphopt.runtime.reference import interpret
from graphopt.transforms.memory import read_plan
from graphopt.transforms.plan_devices import DEVICE_GROUP_ATTR, device_of
from xdsl.dialects.builtin import StringAttr

PLAN = 'plan-devices{groups="dev1:cpu0,dev2:cpu1" default=cpu0}'


def seed_example():
    """The seed's example: a*b on dev1, +c on dev2, then more work on dev2."""
    b = GraphBuilder("seed")
    a, bb, c = (b.input((16, 32)) for _ in range(3))
    p = b.mul(a, bb)
    p.owner.attributes[DEVICE_GROUP_ATTR] = StringAttr("dev1")
    s = b.add(p, c)
    s.owner.attributes[DEVICE_GROUP_ATTR] = StringAttr("dev2")
    t = b.tanh(s)
    u = b.mul(t, p)  # reads the dev1 product again, on dev2: one copy serves both
    return b.build(b.relu(u))


def ops_of(module):
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return list(fn.body.block.ops)


def test_copies_are_inserted_once_per_value_and_device() -> None:
    module = seed_example()
    run_pipeline(module, PLAN)
    ops = ops_of(module)
    copies = [op for op in ops if isinstance(op, CopyOp)]
    assert len(copies) == 2  # the product and c, each copied to cpu1 once
    assert {c.device.data for c in copies} == {"cpu1"}
    for op in ops:
        if isinstance(op, (func.ReturnOp, CopyOp)):
            continue  # a copy is the one op that reads another device
        for v in op.operands:
            owner = v.owner
            if isinstance(owner, func.FuncOp) or not hasattr(owner, "attributes"):
                continue
            if device_of(op) and device_of(owner):
                assert device_of(op) == device_of(owner), f"{op.name} reads across devices"


@pytest.mark.parametrize("strategy", ["naive", "nnvm", "greedy"])
def test_each_device_gets_its_own_pool(strategy: str) -> None:
    module = seed_example()
    run_pipeline(module, f"{PLAN},fuse-ops,plan-memory{{strategy={strategy} check=true}}")
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    offsets, workspace = read_plan(fn)
    by_device: dict[str, list[tuple[int, int]]] = {}
    for v, off in offsets.items():
        if off < 0:
            continue
        size = int(np.prod(v.type.get_shape())) * 4
        by_device.setdefault(device_of(v.owner), []).append((off, off + size))
    assert set(by_device) == {"cpu0", "cpu1"}
    (lo0, hi0), (lo1, hi1) = (
        (min(a for a, _ in r), max(b for _, b in r)) for r in (by_device["cpu0"], by_device["cpu1"])
    )
    assert hi0 <= lo1 or hi1 <= lo0  # the pools do not overlap
    assert max(hi0, hi1) <= workspace


def test_results_identical_to_single_device() -> None:
    module = seed_example()
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((16, 32)).astype(np.float32) for _ in range(3)]
    (want,) = interpret(module, *inputs)
    single = graphopt.compile(module, "fuse-ops,plan-memory")["seed"](*inputs)
    multi = graphopt.compile(module, f"{PLAN},fuse-ops,plan-memory")["seed"](*inputs)
    np.testing.assert_array_equal(multi, single)
    np.testing.assert_allclose(multi, want, rtol=1e-5, atol=1e-6)
