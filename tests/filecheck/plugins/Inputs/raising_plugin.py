"""A plugin with bugs: the verifier of ``bug.op`` divides by zero on
``{fail}``, the pass ``bug-pass`` raises KeyError on the first relu, and
``bug.op``'s compute rule and gradient rule raise."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph import FLOAT_TYPES, SameTypeOp
from graphopt.rules import COMPUTE, GRADIENT


@irdl_op_definition
class BugOp(SameTypeOp):
    name = "bug.op"
    fail = opt_prop_def(UnitAttr)
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.ELEMWISE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    def verify_extra(self) -> None:
        if self.fail is not None:
            _ = 1 // 0

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0]]


class CrashOnRelu(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ReluOp, rewriter: PatternRewriter) -> None:
        table: dict[str, int] = {}
        table[op.name] += 1


def broken_compute(emitter, op, result_index, indices):
    return indices[len(indices)]  # IndexError


def broken_gradient(ctx, op, grads):
    raise RuntimeError("no gradient today")


def register(registry) -> None:
    registry.add_dialect(Dialect("bug", [BugOp], []))
    registry.add_pattern_pass("bug-pass", [CrashOnRelu()])
    registry.add_rule(COMPUTE, BugOp, broken_compute)
    registry.add_rule(GRADIENT, BugOp, broken_gradient)
