"""How a memory plan is recorded in IR, and read back by the lowering.

* Each top-level producing op (a ``fused.group`` or a bare graph op) carries
  ``memory.offsets = array<i64: ...>``: per result, its byte offset in the
  workspace, or -1 when the result does not live there (a graph output
  written to the caller's buffer, or a result nobody reads).
* The function carries ``memory.workspace = N : i64``, the workspace size.

Builtin attributes keep the plan printable and parseable everywhere, with no
extra dialect to load.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64
from xdsl.ir import SSAValue

from graphopt.transforms.memory.liveness import step_ops

OFFSETS_KEY = "memory.offsets"
WORKSPACE_KEY = "memory.workspace"


def write_plan(fn, offsets: Mapping[SSAValue, int], workspace: int) -> None:
    """Record ``offsets`` (intermediates only) and the workspace size on ``fn``."""
    for op in step_ops(fn):
        values = [offsets.get(r, -1) for r in op.results]
        op.attributes[OFFSETS_KEY] = DenseArrayBase.from_list(i64, values)
    fn.attributes[WORKSPACE_KEY] = IntegerAttr(workspace, i64)


def clear_plan(fn) -> None:
    fn.attributes.pop(WORKSPACE_KEY, None)
    for op in step_ops(fn):
        op.attributes.pop(OFFSETS_KEY, None)


def read_plan(fn) -> tuple[dict[SSAValue, int], int] | None:
    """The plan recorded on ``fn``: (offset of every planned value, workspace
    bytes), or ``None`` when ``fn`` carries no complete plan."""
    ws = fn.attributes.get(WORKSPACE_KEY)
    if not isinstance(ws, IntegerAttr):
        return None
    offsets: dict[SSAValue, int] = {}
    for op in step_ops(fn):
        attr = op.attributes.get(OFFSETS_KEY)
        if not isinstance(attr, DenseArrayBase):
            return None
        values = attr.get_values()
        if len(values) != len(op.results):
            return None
        for r, off in zip(op.results, values):
            if off >= 0:
                offsets[r] = int(off)
    return offsets, ws.value.data


__all__ = ["OFFSETS_KEY", "WORKSPACE_KEY", "clear_plan", "read_plan", "write_plan"]
