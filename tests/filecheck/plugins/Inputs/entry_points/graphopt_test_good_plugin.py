"""An installed plugin that works: the pass ``ep-relu-cleanup``."""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from graphopt.dialects import graph


class FoldReluRelu(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ReluOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.input.owner, graph.ReluOp):
            rewriter.replace(op, [], [op.input])


def register(registry) -> None:
    registry.add_pattern_pass("ep-relu-cleanup", [FoldReluRelu()])
