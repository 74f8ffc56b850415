"""SSA dominance of graph-level regions, verified as MLIR verifies it.

xDSL does not check that a value is defined before it is used.  A graph
function or ``fused.group`` body that reads a value defined further down, or
its own result (a cycle), would otherwise verify, compile into a kernel that
reads an unwritten workspace slot, and make the lowering's loop-order search
run forever.  Every region here holds one block, where dominance is textual
order: a use is valid when its value is a block argument of an enclosing
block, or the result of an op that comes earlier in an enclosing block.

The walk is iterative (deep nesting does not recurse) and linear in the size
of the module.  Multi-block regions (unstructured control flow at the LLVM
level) and the graph region of ``builtin.module`` are not checked.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue


class ModuleVerifyError(Exception):
    """A module-level verifier failure located at ``op``."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


class DominanceError(ModuleVerifyError):
    """A use that its definition does not dominate; ``op`` is the user."""


def _value_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a value"


def _describe(op: Operation, index: int, value: SSAValue) -> str:
    name = _value_name(value)
    if isinstance(value, OpResult) and value.op is op:
        return (
            f"{op.name}: operand #{index} ({name}) is a result of the op itself: "
            "a cycle, which a graph cannot have"
        )
    owner = value.op if isinstance(value, OpResult) else None
    if owner is not None and owner.parent_block() is op.parent_block():
        return (
            f"{op.name}: operand #{index} ({name}) is used before it is defined "
            f"(by {owner.name} further down); a value must be defined before its uses"
        )
    return f"{op.name}: operand #{index} ({name}) does not dominate this use"


def verify_dominance(root: Operation) -> None:
    """Raise :class:`DominanceError` at the first use its definition does not dominate."""
    visible: set[SSAValue] = set(root.operands)
    # One frame per region being walked: its op iterator (None until started),
    # whether its uses are checked, the values it scopes, and the op whose
    # results become visible once its last region is done.
    stack: list[list] = []

    def push_regions(op: Operation) -> None:
        regions = list(op.regions)
        for index in range(len(regions) - 1, -1, -1):
            owner = op if index == len(regions) - 1 else None
            stack.append([regions[index], None, False, [], owner])

    if not root.regions:
        return
    push_regions(root)
    while stack:
        frame = stack[-1]
        region, ops, checked, scoped, owner = frame
        if ops is None:  # start the region
            blocks = list(region.blocks)
            checked = len(blocks) == 1 and not isinstance(region.parent, ModuleOp)
            for block in blocks:
                scoped.extend(block.args)
                if not checked:
                    for child in block.ops:
                        scoped.extend(child.results)
            visible.update(scoped)
            ops = frame[1] = _ops_of(blocks)
            frame[2] = checked
        descended = False
        for op in ops:
            if checked:
                for index, operand in enumerate(op.operands):
                    if operand not in visible and isinstance(operand, (OpResult, BlockArgument)):
                        raise DominanceError(op, _describe(op, index, operand))
            if op.regions:
                push_regions(op)
                descended = True
                break
            if checked:
                visible.update(op.results)
                scoped.extend(op.results)
        if descended:
            continue
        stack.pop()
        visible.difference_update(scoped)
        if owner is not None:
            visible.update(owner.results)
            parent = stack[-1] if stack else None
            if parent is not None and parent[2]:
                parent[3].extend(owner.results)


def _ops_of(blocks: list[Block]):
    for block in blocks:
        yield from block.ops
