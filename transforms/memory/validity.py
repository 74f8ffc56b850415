"""The plan checker: no two intermediates live at the same time overlap.

The one allowed exception is in-place reuse: an output may sit exactly on an
input of the step that produces it when that step allows the pair (see
``inplace``) and that step is the input's last reader.  Offsets must also be
aligned and fit the workspace.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from graphopt.transforms.memory.liveness import ALIGNMENT, Kind, Program
from graphopt.transforms.memory.strategies import conflicts


def _allowed_alias(program: Program, a: Hashable, b: Hashable) -> bool:
    """``b`` may share ``a``'s storage (or the reverse)."""
    for src, dst in ((a, b), (b, a)):
        step_index = program.producer[dst]
        step = program.steps[step_index]
        if (src, dst) not in step.inplace and (src, dst) not in step.nnvm_inplace:
            continue
        if program.last_read.get(src) != step_index:
            continue
        if program.tensors[src].nbytes == program.tensors[dst].nbytes:
            return True
    return False


def plan_errors(
    program: Program, offsets: Mapping[Hashable, int], workspace: int, limit: int = 10
) -> list[str]:
    """Human-readable problems with a plan (empty when it is valid)."""
    errors: list[str] = []
    keys = program.internal()
    for k in keys:
        if k not in offsets or offsets[k] < 0:
            errors.append(f"intermediate {_name(k)} has no workspace offset")
        elif offsets[k] % ALIGNMENT:
            errors.append(f"{_name(k)} at offset {offsets[k]} is not {ALIGNMENT}-byte aligned")
        elif offsets[k] + program.tensors[k].nbytes > workspace:
            errors.append(
                f"{_name(k)} at offset {offsets[k]} ({program.tensors[k].nbytes} bytes) "
                f"does not fit the {workspace}-byte workspace"
            )
    for k, off in offsets.items():
        t = program.tensors.get(k)
        if t is not None and t.kind is not Kind.INTERNAL and off >= 0:
            errors.append(f"{_name(k)} is caller memory or dead but has offset {off}")
    if errors:
        return errors[:limit]
    intervals = [program.interval(k) for k in keys]
    for i, others in enumerate(conflicts(intervals)):
        a = keys[i]
        lo_a, hi_a = offsets[a], offsets[a] + program.tensors[a].nbytes
        for j in others:
            if j <= i:
                continue
            b = keys[j]
            lo_b, hi_b = offsets[b], offsets[b] + program.tensors[b].nbytes
            if lo_a < hi_b and lo_b < hi_a:
                if lo_a == lo_b and _allowed_alias(program, a, b):
                    continue
                errors.append(
                    f"{_name(a)} [{lo_a}, {hi_a}) and {_name(b)} [{lo_b}, {hi_b}) overlap while "
                    f"both are live (steps {intervals[i].start}-{intervals[i].end} and "
                    f"{intervals[j].start}-{intervals[j].end})"
                )
                if len(errors) >= limit:
                    return errors
    return errors


def _name(key: Hashable) -> str:
    hint = getattr(key, "name_hint", None)
    if hint:
        return f"%{hint}"
    owner = getattr(key, "owner", None)
    if owner is not None and hasattr(owner, "name"):
        index = getattr(key, "index", 0)
        return f"result #{index} of {owner.name}"
    return str(key)


__all__ = ["plan_errors"]
