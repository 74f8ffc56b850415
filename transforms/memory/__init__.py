"""Memory planning (``plan-memory``): liveness, in-place reuse and offset packing into one workspace.

    graph-opt -p 'fuse-ops,plan-memory{strategy=greedy hill-climb=200 report=true}'

Options:

* ``strategy=naive|nnvm|greedy`` (default ``greedy``): see ``strategies``;
* ``hill-climb=N``: up to N hill-climb steps after greedy (0: off);
* ``inplace=true|false`` (default true): let a kernel write over an input it
  reads for the last time (``inplace``);
* ``report=true``: print the plan's numbers to stderr (``report``);
* ``check=true``: run the plan checker (``validity``) after planning.

After ``plan-devices``, every device gets its own pool, planned separately
(in-place reuse never crosses a device: cross-device edges are copies).

The plan is recorded as attributes (``plan_attr``) that
``lower-graph-to-loop`` turns into workspace views.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from graphopt.diagnostics import attach_location
from graphopt.dialects.graph import CopyOp
from graphopt.memory_limits import overflow_reason, size_message
from graphopt.transforms.levels import GRAPH, op_location, require_level
from graphopt.transforms.memory.liveness import Kind, Program, align, program_of, step_ops
from graphopt.transforms.memory.plan_attr import OFFSETS_KEY, WORKSPACE_KEY, read_plan, write_plan
from graphopt.transforms.memory.report import Report, Timer, make_report
from graphopt.transforms.memory.strategies import STRATEGIES, Plan, plan
from graphopt.transforms.memory.validity import plan_errors
from graphopt.transforms.plan_devices import device_of


def devices_of(program: Program) -> dict[Hashable, str | None]:
    """The device (``plan-devices``' placement) of each intermediate's producer."""
    return {
        key: device_of(key.owner) if isinstance(key, SSAValue) and isinstance(key.owner, Operation) else None
        for key in program.internal()
    }


def only_device(program: Program, device: str | None, devices: dict[Hashable, str | None]) -> Program:
    """``program`` with the intermediates of other devices treated as external."""
    tensors = [
        replace(t, kind=Kind.EXTERNAL)
        if t.kind is Kind.INTERNAL and devices.get(t.key) != device
        else t
        for t in program.tensors.values()
    ]
    return Program(tensors, program.steps)


def plan_program(program: Program, strategy: str, inplace: bool, hill_climb: int) -> Plan:
    """Plan ``program``; with several devices, each gets its own pool, planned
    separately and laid out one after the other in the workspace."""
    devices = devices_of(program)
    pools = sorted(set(devices.values()), key=lambda d: d or "")
    if len(pools) <= 1:
        return plan(program, strategy, inplace, hill_climb)
    offsets: dict[Hashable, int] = {}
    pairs: list[tuple[Hashable, Hashable]] = []
    base = 0
    for device in pools:
        part = plan(only_device(program, device, devices), strategy, inplace, hill_climb)
        offsets.update({k: base + o for k, o in part.offsets.items() if o >= 0})
        pairs += part.inplace
        base += align(part.workspace)
    return Plan(offsets, base, strategy, pairs)


def check_device_edges(fn: func.FuncOp) -> None:
    """Refuse a kernel that reads another device's memory directly: sharing
    (or writing in place over) a buffer across devices needs a copy."""
    for op in step_ops(fn):
        here = device_of(op)
        if here is None or isinstance(op, CopyOp):
            continue
        for v in op.operands:
            owner = v.owner
            there = device_of(owner) if isinstance(owner, Operation) else None
            if there is not None and there != here:
                raise attach_location(
                    DiagnosticException(
                        f"plan-memory: {op.name} on {here} reads a value on "
                        f"{there} without a copy; run plan-devices to insert copies"
                    ),
                    op,
                    [(owner, f"the value is produced here, on {there}")],
                )


def plan_function(
    fn: func.FuncOp, strategy: str = "greedy", inplace: bool = True, hill_climb: int = 0
) -> tuple[Program, Plan, float]:
    """Plan one graph function and record the plan on it."""
    check_device_edges(fn)
    with Timer() as t:
        program = program_of(fn)
        check_addressable(fn, program)
        result = plan_program(program, strategy, inplace, hill_climb)
    reason = overflow_reason(result.workspace)
    if reason is not None:  # each value fits, but those alive at once do not
        raise attach_location(
            DiagnosticException(
                size_message(f"plan-memory: the workspace of @{fn.sym_name.data}", result.workspace, reason)
            ),
            fn,
        )
    write_plan(fn, result.offsets, result.workspace)
    return program, result, t.seconds


def check_addressable(fn: func.FuncOp, program: Program) -> None:
    """Every intermediate's byte size (rounded to the alignment) fits in the
    int64 offsets the plan records; else one diagnostic at the producer."""
    for tensor in program.tensors.values():
        reason = overflow_reason(tensor.size) if tensor.kind is Kind.INTERNAL else None
        if reason is not None:
            value = tensor.key
            owner = value.owner if isinstance(value, SSAValue) else None
            name = f"%{value.name_hint} " if isinstance(value, SSAValue) and value.name_hint else ""
            where = op_location(owner) if isinstance(owner, Operation) else "an op"
            raise DiagnosticException(
                size_message(f"plan-memory: @{fn.sym_name.data}: {name}({where}, {value.type})", tensor.size, reason)
            )


def usable_plan(
    fn: func.FuncOp, values: Sequence[SSAValue]
) -> tuple[dict[SSAValue, int], int] | None:
    """The recorded plan of ``fn`` restricted to ``values``, when it places all
    of them and is still valid for ``fn`` as it is now; else ``None``."""
    recorded = read_plan(fn)
    if recorded is None:
        return None
    offsets, workspace = recorded
    if any(v not in offsets for v in values):
        return None
    program = program_of(fn)
    if set(program.internal()) != set(values):
        return None
    if plan_errors(program, offsets, workspace, limit=1):
        return None
    return {v: offsets[v] for v in values}, workspace


def _graph_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op
        for op in module.walk()
        if isinstance(op, func.FuncOp) and not op.is_declaration and step_ops(op)
    ]


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Give every intermediate a workspace offset (see the module docstring)."""

    name = "plan-memory"

    strategy: str = "greedy"
    hill_climb: int = 0
    inplace: bool = True
    report: bool = False
    check: bool = False

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(
                f"plan-memory: unknown strategy '{self.strategy}'; expected one of "
                + ", ".join(STRATEGIES)
            )
        if self.hill_climb < 0:
            raise ValueError(f"plan-memory: hill-climb must be >= 0, got {self.hill_climb}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        reports: list[Report] = []
        for fn in _graph_functions(op):
            program, result, seconds = plan_function(
                fn, self.strategy, self.inplace, self.hill_climb
            )
            name = fn.sym_name.data
            if self.check:
                errors = plan_errors(program, result.offsets, result.workspace)
                if errors:
                    raise DiagnosticException(
                        f"plan-memory: invalid plan for @{name}: " + "; ".join(errors)
                    )
            if self.report:
                reports.append(make_report(name, program, result, self.inplace, seconds))
        for r in reports:
            print(r.format(), file=sys.stderr)


__all__ = [
    "OFFSETS_KEY",
    "WORKSPACE_KEY",
    "PlanMemoryPass",
    "plan_function",
    "read_plan",
    "usable_plan",
]
