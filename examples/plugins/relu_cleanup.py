"""An example graph-opt plugin: the ``relu-cleanup`` pass.

It adds a pass made of two rewrite patterns:

* ``relu(relu(x)) -> relu(x)`` (relu is idempotent);
* ``x * 1 -> x`` when the constant is a splat of one and the product has the
  type of ``x`` (so no broadcasting is lost).

Load it with ``graph-opt --load-plugin examples/plugins/relu_cleanup.py -p relu-cleanup,dce
examples/plugins/relu_chain.mlir``.
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from graphopt.dialects import graph
from graphopt.plugins import PluginRegistry


class FoldReluRelu(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ReluOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if isinstance(inner, graph.ReluOp):
            rewriter.replace(op, [], [inner.result])


def _is_splat_one(value) -> bool:
    owner = value.owner
    return (
        isinstance(owner, graph.ConstantOp)
        and owner.splat is not None
        and owner.splat.value.data == 1
    )


class FoldMulOne(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.MulOp, rewriter: PatternRewriter) -> None:
        for keep, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if _is_splat_one(other) and keep.type == op.result.type:
                rewriter.replace(op, [], [keep])
                return


def register(registry: PluginRegistry) -> None:
    registry.add_pattern_pass(
        "relu-cleanup",
        [FoldReluRelu(), FoldMulOne()],
        doc="Remove relu(relu(x)) and x * 1.",
    )
