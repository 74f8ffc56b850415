"""``plan-devices``: place every op on a device and insert copies between them.

This is NNVM's PlanDevice.  Ops may carry a device group
(``{device_group = "dev1"}``); the pass option maps groups to devices:

    graph-opt -p 'plan-devices{groups="dev1:cpu0,dev2:cpu1" default=cpu0}'

(the mapping is quoted because ``:`` is not a token of xDSL's pass-option
syntax; ``groups="dev1:cpu0","dev2:cpu1"`` works too).

1. An op with a group gets its group's device.  Function arguments (caller
   memory) live on the default device.
2. A forward walk in topological order gives an op without a group the device
   of its first placed input; a backward walk then gives what is still
   unplaced (constants, ops with no placed input) the device of its first
   placed consumer -- so gradient ops follow their forward ops.  Anything
   left goes to the default device.
3. The function is rebuilt (not mutated in place) with a ``graph.copy`` on
   every edge that crosses devices: one copy per value and target device.

Every op ends with a ``placed_on = "<name>"`` attribute; lowering gives each
device its own pool in the workspace.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from graphopt.diagnostics import location_of
from graphopt.dialects.fused import GroupOp
from graphopt.dialects.graph import GraphOp
from graphopt.dialects.graph import CopyOp
from graphopt.transforms.levels import GRAPH, require_level

DEVICE_GROUP_ATTR = "device_group"
DEVICE_ATTR = "placed_on"


class DevicePlanningError(DiagnosticException):
    """The device plan cannot be made (unknown group, bad option)."""


def device_group_of(op: Operation) -> str | None:
    attr = op.attributes.get(DEVICE_GROUP_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def device_of(op: Operation) -> str | None:
    """The device ``plan-devices`` placed ``op`` on, if it ran."""
    attr = op.attributes.get(DEVICE_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def set_device(op: Operation, device: str) -> None:
    op.attributes[DEVICE_ATTR] = StringAttr(device)


def _where(op: Operation) -> str:
    loc = location_of(op)
    return f"{op.name} at {loc}" if loc else op.name


def parse_groups(entries: tuple[str, ...]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for entry in (part for item in entries for part in item.split(",") if part):
        group, sep, device = entry.partition(":")
        if not sep or not group or not device:
            raise DevicePlanningError(
                f"plan-devices: bad group mapping '{entry}', expected GROUP:DEVICE"
            )
        mapping[group] = device
    return mapping


def assign_devices(fn: func.FuncOp, groups: dict[str, str], default: str) -> dict[Operation, str]:
    """Steps 1 and 2 of the module docstring: a device for every op of ``fn``."""
    block = fn.body.block
    ops = [op for op in block.ops if not isinstance(op, func.ReturnOp)]
    placed: dict[Operation, str] = {}
    for op in ops:
        if (group := device_group_of(op)) is not None:
            if group not in groups:
                known = ", ".join(sorted(groups)) or "none"
                raise DevicePlanningError(
                    f"plan-devices: {_where(op)} is in device group '{group}', "
                    f"which the 'groups' option does not map (mapped: {known})"
                )
            placed[op] = groups[group]

    def device_of_value(v: SSAValue) -> str | None:
        if isinstance(v.owner, Block):
            return default
        return placed.get(v.owner)  # type: ignore[arg-type]

    for op in ops:  # forward
        if op not in placed:
            for v in op.operands:
                if (d := device_of_value(v)) is not None:
                    placed[op] = d
                    break
    for op in reversed(ops):  # backward
        if op not in placed:
            for r in op.results:
                users = [u.operation for u in r.uses]
                found = next((placed[u] for u in users if u in placed), None)
                if found is not None:
                    placed[op] = found
                    break
    for op in ops:
        placed.setdefault(op, default)
    return placed


def rebuild_with_copies(fn: func.FuncOp, placed: dict[Operation, str], default: str) -> func.FuncOp:
    """A new function with the same ops, placed, and copies on crossing edges."""
    old_block = fn.body.block
    new_block = Block(arg_types=[a.type for a in old_block.args])
    value_map: dict[SSAValue, SSAValue] = {}
    device_of_new: dict[SSAValue, str] = {}
    for old, new in zip(old_block.args, new_block.args):
        value_map[old] = new
        device_of_new[new] = default
        new.name_hint = old.name_hint
    copies: dict[tuple[SSAValue, str], SSAValue] = {}

    def on_device(v: SSAValue, device: str) -> SSAValue:
        if device_of_new.get(v, default) == device:
            return v
        key = (v, device)
        if key not in copies:
            copy = CopyOp(v, device)
            set_device(copy, device)
            new_block.add_op(copy)
            copies[key] = copy.results[0]
            device_of_new[copy.results[0]] = device
        return copies[key]

    for op in old_block.ops:
        if isinstance(op, func.ReturnOp):
            new_block.add_op(func.ReturnOp(*(value_map[v] for v in op.operands)))
            continue
        device = placed[op]
        operands = [on_device(value_map[v], device) for v in op.operands]
        new_op = op.clone_without_regions() if not op.regions else op.clone()
        for i, v in enumerate(operands):
            new_op.operands[i] = v
        set_device(new_op, device)
        new_block.add_op(new_op)
        for old_r, new_r in zip(op.results, new_op.results):
            value_map[old_r] = new_r
            device_of_new[new_r] = device
    return func.FuncOp(
        fn.sym_name.data,
        fn.function_type,
        Region(new_block),
        visibility=fn.sym_visibility.data if fn.sym_visibility else None,
        arg_attrs=fn.arg_attrs,
        res_attrs=fn.res_attrs,
    )


def plan_function(fn: func.FuncOp, groups: dict[str, str], default: str) -> func.FuncOp:
    for op in fn.body.block.ops:
        if not isinstance(op, (GraphOp, GroupOp, func.ReturnOp)):
            raise DevicePlanningError(f"plan-devices: cannot place {_where(op)}")
    return rebuild_with_copies(fn, assign_devices(fn, groups, default), default)


@dataclass(frozen=True)
class PlanDevicesPass(ModulePass):
    """Place ops on devices by device group and insert cross-device copies."""

    name = "plan-devices"

    groups: tuple[str, ...] = ()
    default: str = "cpu0"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        mapping = parse_groups(self.groups)
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration]:
            new_fn = plan_function(fn, mapping, self.default)
            op.body.block.insert_op_before(new_fn, fn)
            op.body.block.erase_op(fn, safe_erase=False)
