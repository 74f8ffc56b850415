"""The ``loop`` dialect: buffer-level loops over builtin memrefs.

Memrefs are static-shape, identity-layout (dense row-major) builtin
``MemRefType``s.  Scalars are computed with upstream ``arith`` and ``math``.

Syntax
------
::

    %r = loop.for %i = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) {
      %x = loop.load %buf[%i] : memref<16xf32>
      %s = arith.addf %acc, %x : f32
      loop.yield %s : f32
    }
    loop.for %i = %lb to %ub step %c1 {          // no iter_args: yield implicit
      loop.store %v, %out[%i] : memref<16xf32>
    }
    %v = loop.view %ws[4096] : memref<16384xi8> -> memref<32x128xf32>

    func.func @main(...) attributes {loop.abi = #loop.abi<inputs = 1,
                                     outputs = 1, workspace = 16384>}

* ``loop.for``: ``lb``/``ub``/``step`` are ``index`` values, the step must be
  positive at run time; the body block's arguments are ``(%iv : index,
  iter_args...)``; results have the iter_args' types; ``loop.yield``
  terminates the body with values of those types.
* ``loop.load`` / ``loop.store``: one ``index`` per dimension.
* ``loop.view``: a typed memref at a constant byte ``offset`` of an ``i8``
  workspace memref; it must fit in the workspace.
* ``#loop.abi<inputs = N, outputs = M, workspace = B>`` marks a ``func.func``
  as a model driver whose arguments are ``inputs..., outputs..., workspace``
  (``memref<Bxi8>``).  Use :func:`get_driver_abi` / :func:`set_driver_abi`.

Python builders
---------------
``build_for(builder, lb, ub, step=1, iter_args=(), body=None) -> ForOp``
    ``builder`` is an ``xdsl.builder.Builder`` at the insertion point;
    ``lb``/``ub``/``step`` are ``int`` (an ``arith.constant`` of ``index`` type is
    inserted) or ``index`` SSA values; ``body(b, iv, args)`` receives a
    ``Builder`` at the end of the loop body, the induction variable and the
    tuple of iter-arg block arguments, and returns the values to yield (a
    sequence matching ``iter_args``, or ``None`` when there are none).  The
    ``loop.yield`` is added for you.  The loop is inserted and returned; its
    results are ``for_op.results``.

``index_constant(builder, value) -> SSAValue``: insert an ``index``
``arith.constant``.

``ForOp.build_loop(lb, ub, step, iter_args, body_fn) -> ForOp``: the same
without insertion (``lb``/``ub``/``step`` must be SSA values), for use with a
rewriter.

``LoadOp(memref, indices)``, ``StoreOp(value, memref, indices)``,
``ViewOp(workspace, byte_offset, result_type)``, ``YieldOp(*values)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    i64,
)
from xdsl.dialects.utils import parse_assignment, print_assignment
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    ensure_terminator,
)
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "ABI_ATTR_NAME",
    "DriverABIAttr",
    "ForOp",
    "LoadOp",
    "Loop",
    "StoreOp",
    "ViewOp",
    "YieldOp",
    "build_for",
    "get_driver_abi",
    "index_constant",
    "set_driver_abi",
]


def _check_memref(t: Attribute, what: str) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise VerifyException(f"{what} must be a memref, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if not isinstance(t.layout, NoneAttr):
        raise VerifyException(f"{what} must have the identity layout, got {t}")
    return t


# --------------------------------------------------------------------------
# loop.yield / loop.for
# --------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates a ``loop.for`` body, yielding the next iter_args."""

    name = "loop.yield"

    values = var_operand_def()

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(ForOp)))

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


@irdl_op_definition
class ForOp(IRDLOperation):
    """``loop.for %iv = %lb to %ub step %step iter_args(...) -> (...) {...}``."""

    name = "loop.for"

    lb = operand_def(IndexType)
    ub = operand_def(IndexType)
    step = operand_def(IndexType)
    iter_args = var_operand_def()

    res = var_result_def()

    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        iter_args: Sequence[SSAValue | Operation],
        body: Region | Sequence[Block] | Block,
    ):
        if isinstance(body, Block):
            body = [body]
        super().__init__(
            operands=[lb, ub, step, iter_args],
            result_types=[[SSAValue.get(a).type for a in iter_args]],
            regions=[body],
        )

    # -- convenience accessors ------------------------------------------------
    @property
    def induction_var(self) -> BlockArgument:
        return self.body.block.args[0]

    @property
    def region_iter_args(self) -> tuple[BlockArgument, ...]:
        return self.body.block.args[1:]

    @property
    def yield_op(self) -> YieldOp:
        last = self.body.block.last_op
        assert isinstance(last, YieldOp)
        return last

    @staticmethod
    def build_loop(
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        iter_args: Sequence[SSAValue | Operation],
        body_fn: Callable[
            [Builder, BlockArgument, tuple[BlockArgument, ...]],
            Sequence[SSAValue | Operation] | None,
        ]
        | None = None,
    ) -> ForOp:
        """Create (without inserting) a loop; ``body_fn(b, iv, args)`` fills
        the body through ``b`` and returns the values to yield."""
        types = [SSAValue.get(a).type for a in iter_args]
        block = Block(arg_types=[IndexType(), *types])
        yielded: Sequence[SSAValue | Operation] | None = None
        if body_fn is not None:
            b = Builder(InsertPoint.at_end(block))
            yielded = body_fn(b, block.args[0], tuple(block.args[1:]))
        block.add_op(YieldOp(*(yielded or ())))
        return ForOp(lb, ub, step, iter_args, block)

    # -- verification ---------------------------------------------------------
    def verify_(self) -> None:
        block = self.body.block
        if not block.args or not isinstance(block.args[0].type, IndexType):
            raise VerifyException(
                "loop.for body must have the index induction variable as its "
                "first block argument"
            )
        block_iters = block.args[1:]
        if len(block_iters) != len(self.iter_args):
            raise VerifyException(
                f"loop.for has {len(self.iter_args)} iter_args but its body has "
                f"{len(block_iters)} iter-arg block arguments"
            )
        for i, (arg, init) in enumerate(zip(block_iters, self.iter_args)):
            if arg.type != init.type:
                raise VerifyException(
                    f"loop.for iter_arg #{i} has type {init.type} but its block "
                    f"argument has type {arg.type}"
                )
        for i, (res, init) in enumerate(zip(self.res, self.iter_args)):
            if res.type != init.type:
                raise VerifyException(
                    f"loop.for result #{i} has type {res.type} but iter_arg #{i} "
                    f"has type {init.type}"
                )
        if len(self.res) != len(self.iter_args):
            raise VerifyException(
                f"loop.for has {len(self.res)} results but "
                f"{len(self.iter_args)} iter_args"
            )
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("loop.for body must end with loop.yield")
        if len(last.values) != len(self.iter_args):
            raise VerifyException(
                f"loop.yield yields {len(last.values)} values but the loop has "
                f"{len(self.iter_args)} iter_args"
            )
        for i, (v, init) in enumerate(zip(last.values, self.iter_args)):
            if v.type != init.type:
                raise VerifyException(
                    f"loop.yield value #{i} has type {v.type} but iter_arg #{i} "
                    f"has type {init.type}"
                )

    # -- custom syntax --------------------------------------------------------
    def print(self, printer: Printer) -> None:
        indvar, *iter_args = self.body.block.args
        printer.print_string(" ")
        printer.print_ssa_value(indvar)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        if iter_args:
            printer.print_string(" iter_args(")
            printer.print_list(
                zip(iter_args, self.iter_args),
                lambda pair: print_assignment(printer, *pair),
            )
            printer.print_string(") -> (")
            printer.print_list((a.type for a in iter_args), printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_empty_block=False,
            print_block_terminators=bool(self.iter_args),
        )
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        unresolved_iv = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        pos = parser.pos
        unresolved_iters: list[Parser.UnresolvedArgument] = []
        init_operands: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_args"):
            for arg, operand in parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
            ):
                unresolved_iters.append(arg)
                init_operands.append(operand)
            parser.parse_punctuation("->")
            types = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, parser.parse_type
            )
            if len(types) != len(init_operands):
                parser.raise_error(
                    f"loop.for has {len(init_operands)} iter_args but "
                    f"{len(types)} result types",
                    pos,
                    parser.pos,
                )
        inits = parser.resolve_operands(init_operands, types, pos)
        index = IndexType()
        iv = unresolved_iv.resolve(index)
        iters = [a.resolve(t) for a, t in zip(unresolved_iters, types)]
        body = parser.parse_region((iv, *iters))
        attrs = parser.parse_optional_attr_dict()
        op = cls(
            parser.resolve_operand(lb, index),
            parser.resolve_operand(ub, index),
            parser.resolve_operand(step, index),
            inits,
            body,
        )
        op.attributes |= attrs
        if not iters:
            for trait in op.get_traits_of_type(SingleBlockImplicitTerminator):
                ensure_terminator(op, trait)
        return op


# --------------------------------------------------------------------------
# loop.load / loop.store / loop.view
# --------------------------------------------------------------------------


def _verify_indices(memref: SSAValue, indices: Sequence[SSAValue], opname: str):
    t = _check_memref(memref.type, f"{opname} operand")
    if len(indices) != t.get_num_dims():
        raise VerifyException(
            f"{opname} expects {t.get_num_dims()} indices for {t}, got "
            f"{len(indices)}"
        )
    for i, idx in enumerate(indices):
        if not isinstance(idx.type, IndexType):
            raise VerifyException(
                f"{opname} index #{i} must be of type index, got {idx.type}"
            )
    return t


def _parse_indexed_memref(parser: Parser):
    """Parse ``%buf[%i, %j] attr-dict : memref<...>`` and resolve it."""
    buf = parser.parse_unresolved_operand()
    idx = parser.parse_comma_separated_list(
        Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, MemRefType):
        parser.raise_error(f"expected a memref type, got {t}", pos, parser.pos)
    memref = parser.resolve_operand(buf, t)
    indices = parser.resolve_operands(idx, [IndexType()] * len(idx), pos)
    return memref, indices, attrs, t


def _print_indexed_memref(printer: Printer, op: Operation, memref, indices):
    printer.print_ssa_value(memref)
    printer.print_string("[")
    printer.print_list(indices, printer.print_ssa_value)
    printer.print_string("]")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(memref.type)


@irdl_op_definition
class LoadOp(IRDLOperation):
    """``%x = loop.load %buf[%i, %j] : memref<4x8xf32>``"""

    name = "loop.load"

    memref = operand_def(base(MemRefType))
    indices = var_operand_def(IndexType)
    res = result_def()

    traits = traits_def(MemoryReadEffect())

    def __init__(self, memref: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        mt = SSAValue.get(memref).type
        assert isinstance(mt, MemRefType)
        super().__init__(operands=[memref, indices], result_types=[mt.element_type])

    def verify_(self) -> None:
        t = _verify_indices(self.memref, self.indices, "loop.load")
        if self.res.type != t.element_type:
            raise VerifyException(
                f"loop.load result type {self.res.type} does not match the "
                f"element type {t.element_type} of {t}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed_memref(printer, self, self.memref, self.indices)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        memref, indices, attrs, _ = _parse_indexed_memref(parser)
        op = cls(memref, indices)
        op.attributes |= attrs
        return op


@irdl_op_definition
class StoreOp(IRDLOperation):
    """``loop.store %v, %buf[%i, %j] : memref<4x8xf32>``"""

    name = "loop.store"

    value = operand_def()
    memref = operand_def(base(MemRefType))
    indices = var_operand_def(IndexType)

    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        value: SSAValue | Operation,
        memref: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[value, memref, indices])

    def verify_(self) -> None:
        t = _verify_indices(self.memref, self.indices, "loop.store")
        if self.value.type != t.element_type:
            raise VerifyException(
                f"loop.store value type {self.value.type} does not match the "
                f"element type {t.element_type} of {t}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_indexed_memref(printer, self, self.memref, self.indices)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref, indices, attrs, t = _parse_indexed_memref(parser)
        op = cls(parser.resolve_operand(value, t.element_type), memref, indices)
        op.attributes |= attrs
        return op


def memref_num_bytes(t: MemRefType) -> int:
    """Size in bytes of a static memref (i1 is stored as one byte)."""
    n = 1
    for d in t.get_shape():
        n *= d
    return n * element_num_bytes(t.element_type)


def element_num_bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, IndexType):
        return 8
    width = getattr(t, "bitwidth", None)
    if isinstance(width, int):
        return width // 8
    raise VerifyException(f"unsupported memref element type {t}")


@irdl_op_definition
class ViewOp(IRDLOperation):
    """``%v = loop.view %ws[4096] : memref<16384xi8> -> memref<32x128xf32>``"""

    name = "loop.view"

    workspace = operand_def(base(MemRefType))
    offset = prop_def(IntegerAttr[I64])
    res = result_def(base(MemRefType))

    traits = traits_def(Pure())

    def __init__(
        self, workspace: SSAValue | Operation, offset: int | IntegerAttr, result_type: MemRefType
    ):
        if isinstance(offset, int):
            offset = IntegerAttr(offset, i64)
        super().__init__(
            operands=[workspace], result_types=[result_type], properties={"offset": offset}
        )

    @property
    def byte_offset(self) -> int:
        return self.offset.value.data

    def verify_(self) -> None:
        ws = _check_memref(self.workspace.type, "loop.view workspace")
        if ws.get_num_dims() != 1 or ws.element_type != IntegerType(8):
            raise VerifyException(
                f"loop.view workspace must be a 1-D i8 memref, got {ws}"
            )
        rt = _check_memref(self.res.type, "loop.view result")
        off = self.byte_offset
        if off < 0:
            raise VerifyException(f"loop.view offset must be non-negative, got {off}")
        size = memref_num_bytes(rt)
        ws_size = ws.get_shape()[0]
        if off + size > ws_size:
            raise VerifyException(
                f"loop.view of {rt} ({size} bytes) at offset {off} does not fit in "
                f"the {ws_size}-byte workspace"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.workspace)
        printer.print_string(f"[{self.byte_offset}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.workspace.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.res.type)

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        ws = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        off = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ws_type = parser.parse_type()
        parser.parse_punctuation("->")
        pos = parser.pos
        res_type = parser.parse_type()
        if not isinstance(res_type, MemRefType):
            parser.raise_error(f"expected a memref type, got {res_type}", pos, parser.pos)
        op = cls(parser.resolve_operand(ws, ws_type), off, res_type)
        op.attributes |= attrs
        return op


# --------------------------------------------------------------------------
# #loop.abi
# --------------------------------------------------------------------------

ABI_ATTR_NAME = "loop.abi"
"""The attribute key marking a ``func.func`` (later an ``llvm.func``) as a driver."""


def _parse_args(parser: AttrParser) -> list[tuple[StringAttr, TensorType]]:
    def one() -> tuple[StringAttr, TensorType]:
        name = parser.parse_str_literal()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, TensorType):
            parser.raise_error(f"expected a tensor type, got {t}", pos, parser.pos)
        return StringAttr(name), t

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)


@irdl_attr_definition
class DriverABIAttr(ParametrizedAttribute):
    """Everything the runtime needs to call a driver, kept in the IR::

        #loop.abi<inputs = ["x" : tensor<4x8xf32>], outputs = ["" : tensor<4xf32>],
                  workspace = 4096, constants = [dense<...> : tensor<64x64xf32>]>

    The driver's arguments are ``inputs..., outputs...``, the
    ``memref<workspace x i8>`` workspace, then one pointer per entry of
    ``constants`` (large constants the runtime passes; ``lower-loop-to-llvm``
    moves them there).  Names are the source names ("" when there is none)."""

    name = "loop.abi"

    input_names: ArrayAttr[StringAttr]
    input_types: ArrayAttr[TensorType]
    output_names: ArrayAttr[StringAttr]
    output_types: ArrayAttr[TensorType]
    workspace_bytes: IntAttr
    constants: ArrayAttr[DenseIntOrFPElementsAttr]

    def __init__(
        self,
        inputs: Sequence[tuple[str, TensorType]],
        outputs: Sequence[tuple[str, TensorType]],
        workspace_bytes: int,
        constants: Sequence[DenseIntOrFPElementsAttr] = (),
    ):
        super().__init__(
            ArrayAttr([StringAttr(n) for n, _ in inputs]),
            ArrayAttr([t for _, t in inputs]),
            ArrayAttr([StringAttr(n) for n, _ in outputs]),
            ArrayAttr([t for _, t in outputs]),
            IntAttr(workspace_bytes),
            ArrayAttr(constants),
        )

    @property
    def num_inputs(self) -> int:
        return len(self.input_types)

    @property
    def num_outputs(self) -> int:
        return len(self.output_types)

    def with_constants(self, constants: Sequence[DenseIntOrFPElementsAttr]) -> DriverABIAttr:
        return DriverABIAttr(
            list(zip((n.data for n in self.input_names), self.input_types)),
            list(zip((n.data for n in self.output_names), self.output_types)),
            self.workspace_bytes.data,
            constants,
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            parser.parse_keyword("inputs")
            parser.parse_punctuation("=")
            ins = _parse_args(parser)
            parser.parse_punctuation(",")
            parser.parse_keyword("outputs")
            parser.parse_punctuation("=")
            outs = _parse_args(parser)
            parser.parse_punctuation(",")
            parser.parse_keyword("workspace")
            parser.parse_punctuation("=")
            ws = parser.parse_integer(allow_boolean=False, allow_negative=False)
            constants: list[Attribute] = []
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("constants")
                parser.parse_punctuation("=")
                constants = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_attribute
                )
        return (
            ArrayAttr([n for n, _ in ins]), ArrayAttr([t for _, t in ins]),
            ArrayAttr([n for n, _ in outs]), ArrayAttr([t for _, t in outs]),
            IntAttr(ws), ArrayAttr(constants),
        )  # fmt: skip

    def print_parameters(self, printer: Printer) -> None:
        def args(names: ArrayAttr[StringAttr], types: ArrayAttr[TensorType]) -> None:
            printer.print_string("[")
            for i, (n, t) in enumerate(zip(names, types)):
                printer.print_string(", " if i else "")
                printer.print_string_literal(n.data)
                printer.print_string(" : ")
                printer.print_attribute(t)
            printer.print_string("]")

        printer.print_string("<inputs = ")
        args(self.input_names, self.input_types)
        printer.print_string(", outputs = ")
        args(self.output_names, self.output_types)
        printer.print_string(f", workspace = {self.workspace_bytes.data}")
        if self.constants.data:
            printer.print_string(", constants = [")
            printer.print_list(self.constants, printer.print_attribute)
            printer.print_string("]")
        printer.print_string(">")

    def verify(self) -> None:
        if len(self.input_names) != len(self.input_types) or len(self.output_names) != len(
            self.output_types
        ):
            raise VerifyException("#loop.abi needs one name per argument type")
        if self.workspace_bytes.data < 0:
            raise VerifyException("#loop.abi workspace must be non-negative")


def get_driver_abi(func_op: Operation) -> DriverABIAttr | None:
    """The driver ABI of a ``func.func`` or ``llvm.func``, or ``None``."""
    attr = func_op.attributes.get(ABI_ATTR_NAME)
    return attr if isinstance(attr, DriverABIAttr) else None


def set_driver_abi(func_op: Operation, abi: DriverABIAttr) -> None:
    """Mark ``func_op`` as a driver with the given ABI."""
    func_op.attributes[ABI_ATTR_NAME] = abi


# --------------------------------------------------------------------------
# Builder helpers
# --------------------------------------------------------------------------


def index_constant(builder: Builder, value: int) -> SSAValue:
    """Insert ``arith.constant value : index`` and return its result."""
    return builder.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


def build_for(
    builder: Builder,
    lb: int | SSAValue,
    ub: int | SSAValue,
    step: int | SSAValue = 1,
    iter_args: Sequence[SSAValue | Operation] = (),
    body: Callable[
        [Builder, BlockArgument, tuple[BlockArgument, ...]],
        Sequence[SSAValue | Operation] | None,
    ]
    | None = None,
) -> ForOp:
    """Insert a ``loop.for`` at ``builder``'s insertion point (see module doc)."""

    def as_value(v: int | SSAValue) -> SSAValue:
        return index_constant(builder, v) if isinstance(v, int) else v

    lbv, ubv, stepv = as_value(lb), as_value(ub), as_value(step)
    return builder.insert(ForOp.build_loop(lbv, ubv, stepv, iter_args, body))


Loop = Dialect(
    "loop",
    [ForOp, YieldOp, LoadOp, StoreOp, ViewOp],
    [DriverABIAttr],
)
