"""The ``fused`` dialect: groups of graph ops that become one kernel.

    %r = fused.group "matmul_add_relu" pattern(out_ewise_fusable)
           (%a = %x : tensor<8x16xf32>, %b = %w : tensor<16x4xf32>) -> (tensor<8x4xf32>) {
      %m = graph.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
      %y = graph.relu %m : tensor<8x4xf32>
      fused.yield %y : tensor<8x4xf32>
    }

A group is IsolatedFromAbove: its body sees only its block arguments, bound
to the group's operands.  Its results are the yielded values.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern, FusePatternAttr
from graphopt.dialects.graph import GraphOp


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a ``fused.group`` body; its operands are the group's results."""

    name = "fused.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(GroupOp)))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


@irdl_op_definition
class GroupOp(IRDLOperation):
    """A fused group: a named, patterned region of graph ops."""

    name = "fused.group"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    group_name = prop_def(StringAttr, prop_name="name")
    pattern = prop_def(FusePatternAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())

    def __init__(
        self,
        name: str,
        pattern: FusePattern,
        inputs: Sequence[SSAValue],
        output_types: Sequence[Attribute],
        body: Region,
    ):
        super().__init__(
            operands=[inputs],
            result_types=[output_types],
            properties={"name": StringAttr(name), "pattern": FusePatternAttr(pattern)},
            regions=[body],
        )

    @property
    def fuse_pattern(self) -> FusePattern:
        return self.pattern.pattern

    @property
    def yield_op(self) -> YieldOp:
        last = self.body.block.last_op
        assert isinstance(last, YieldOp)
        return last

    def verify_(self) -> None:
        where = f'fused.group "{self.group_name.data}"'
        args = self.body.block.args
        if len(args) != len(self.inputs):
            raise VerifyException(
                f"{where}: body has {len(args)} arguments for {len(self.inputs)} inputs"
            )
        for i, (arg, inp) in enumerate(zip(args, self.inputs)):
            if arg.type != inp.type:
                raise VerifyException(
                    f"{where}: body argument #{i} has type {arg.type}, input has {inp.type}"
                )
        last = self.body.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(f"{where}: body must end with fused.yield")
        yielded = [v.type for v in last.values]
        results = [r.type for r in self.outputs]
        if yielded != results:
            raise VerifyException(
                f"{where}: yielded types ({', '.join(map(str, yielded))}) do not match "
                f"result types ({', '.join(map(str, results))})"
            )
        for op in self.body.block.ops:
            if op is not last and not isinstance(op, GraphOp):
                raise VerifyException(
                    f"{where}: body may contain only graph ops, found {op.name}"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.group_name.data)
        printer.print_string(f" pattern({self.fuse_pattern.keyword}) (")
        pairs = list(zip(self.body.block.args, self.inputs))

        def print_binding(pair: tuple[SSAValue, SSAValue]) -> None:
            printer.print_ssa_value(pair[0])
            printer.print_string(" = ")
            printer.print_ssa_value(pair[1])
            printer.print_string(" : ")
            printer.print_attribute(pair[0].type)

        printer.print_list(pairs, print_binding)
        printer.print_string(") -> (")
        printer.print_list([r.type for r in self.outputs], printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> GroupOp:
        name = parser.parse_str_literal("expected the group's name as a string")
        parser.parse_keyword("pattern")
        parser.parse_punctuation("(")
        pos = parser.pos
        word = parser.parse_identifier()
        try:
            pattern = FusePattern.from_keyword(word)
        except ValueError as err:
            parser.raise_error(str(err), pos, parser.pos)
        parser.parse_punctuation(")")

        def parse_binding() -> tuple[Parser.Argument, UnresolvedOperand]:
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation("=")
            operand = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            ty = parser.parse_type()
            return arg.resolve(ty), operand

        bindings = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parse_binding)
        parser.parse_punctuation("->")
        out_types = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
        inputs = [
            parser.resolve_operand(operand, arg.type) for arg, operand in bindings
        ]
        body = parser.parse_region([arg for arg, _ in bindings])
        attrs = parser.parse_optional_attr_dict()
        op = cls(name, pattern, inputs, out_types, body)
        op.attributes.update(attrs)
        return op


def make_group(
    name: str, pattern: FusePattern, inputs: Sequence[SSAValue], output_types: Sequence[Attribute]
) -> tuple[GroupOp, Block]:
    """An empty group whose body block has one argument per input."""
    block = Block(arg_types=[v.type for v in inputs])
    return GroupOp(name, pattern, inputs, output_types, Region(block)), block


Fused = Dialect("fused", [GroupOp, YieldOp], [FusePatternAttr])
