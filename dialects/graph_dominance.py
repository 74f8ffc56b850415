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
    visible: set[SSAValue] = set()
    # Work items: ("op", op, checked), ("def", op, _), ("exit", values, _).
    stack: list[tuple[str, object, bool]] = [("op", root, False)]
    while stack:
        kind, item, checked = stack.pop()
        if kind == "def":
            assert isinstance(item, Operation)
            visible.update(item.results)
            continue
        if kind == "exit":
            assert isinstance(item, list)
            visible.difference_update(item)
            continue
        op = item
        assert isinstance(op, Operation)
        if checked:
            for index, operand in enumerate(op.operands):
                if operand not in visible and isinstance(operand, (OpResult, BlockArgument)):
                    raise DominanceError(op, _describe(op, index, operand))
        stack.append(("def", op, False))
        for region in reversed(op.regions):
            blocks = list(region.blocks)
            # One-block regions are checked in order; the module's graph region
            # and multi-block CFG regions see all of their own values.
            ordered = len(blocks) == 1 and not isinstance(op, ModuleOp)
            scoped: list[SSAValue] = []
            for block in blocks:
                scoped.extend(block.args)
                if not ordered:
                    for child in block.ops:
                        scoped.extend(child.results)
            stack.append(("exit", _all_values(blocks) if ordered else scoped, False))
            for block in reversed(blocks):
                for child in reversed(list(block.ops)):
                    stack.append(("op", child, ordered))
            visible.update(scoped)


def _all_values(blocks: list[Block]) -> list[SSAValue]:
    values: list[SSAValue] = []
    for block in blocks:
        values.extend(block.args)
        for op in block.ops:
            values.extend(op.results)
    return values
