"""The ``loop`` dialect: what the buffer level has that upstream lacks.

The loop level is built from upstream dialects: ``scf.for`` loops,
``memref.load``/``store``/``view``/``alloca``/``get_global`` over static,
identity-layout builtin memrefs, ``arith`` and ``math`` scalars, ``func``
kernels and drivers.  This dialect only adds the driver ABI, recorded in the
IR so that the runtime reads it from the lowered module, and
``loop.prefetch``, MLIR's ``memref.prefetch`` (which xDSL lacks): a read
hint for the line holding one element, lowered to ``llvm.prefetch``::

    func.func @main(%x: memref<4x8xf32>, %o: memref<4xf32>, %ws: memref<256xi8>)
        attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<4x8xf32>],
                                         outputs = ["" : tensor<4xf32>],
                                         workspace = 256>} {
      %c0 = arith.constant 0 : index
      %t = memref.view %ws[%c0][] : memref<256xi8> to memref<4x8xf32>
      ...
    }

What the compiler accepts at this level (``graph-opt`` verifies it, so
hand-written loop IR cannot crash or hang the process):

* memrefs are static and identity-layout; a driver's arguments are
  ``inputs..., outputs..., workspace`` as its ``#loop.abi`` says;
* an ``scf.for`` with a constant step must have a positive step (a zero or
  negative step would never end); a non-constant step must be positive at run
  time; the same holds for ``scf.parallel``, the schedule's parallel loop,
  which ``lower-loop-to-llvm`` runs on a thread pool when it is
  one-dimensional without reductions (its iterations must write separate
  elements);
* a ``memref.load``/``memref.store``/``loop.prefetch`` index that is a constant must lie inside
  the memref; a ``vector.load``/``store`` (its lanes contiguous from the
  indexed element, possibly on into the next row) must end inside it; an index computed at run time is trusted, unless the module is
  lowered with ``lower-loop-to-llvm{bounds-check=true}``, which guards every
  access that cannot be proven in bounds (see ``lowering.to_llvm.memref``).

:func:`check_loop_level_op` holds the verification rules the upstream ops
lack; ``graph-opt``'s verifier calls it for every op.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    I32,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def, opt_prop_def, prop_def, var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from graphopt.target import Target

__all__ = [
    "ABI_ATTR_NAME",
    "DriverABIAttr",
    "Loop",
    "PrefetchOp",
    "TARGET_ATTR_NAME",
    "TargetAttr",
    "check_loop_level_op",
    "constant_index",
    "get_driver_abi",
    "memref_num_bytes",
    "module_target",
    "set_driver_abi",
    "set_module_target",
]


# --------------------------------------------------------------------------
# #loop.abi
# --------------------------------------------------------------------------

ABI_ATTR_NAME = "loop.abi"
"""The attribute key marking a ``func.func`` (later an ``llvm.func``) as a driver."""


def _parse_args(parser: AttrParser) -> list[tuple[StringAttr, TensorType]]:
    def one() -> tuple[StringAttr, TensorType]:
        pos = parser.pos
        name = parser.parse_optional_str_literal()
        if name is None:
            # A non-ASCII name prints as escaped UTF-8 bytes, which xDSL's
            # lexer reads as a bytes literal.
            data = parser.parse_optional_bytes_literal()
            try:
                name = data.decode("utf-8") if data is not None else None
            except UnicodeDecodeError:
                name = None
            if name is None:
                parser.raise_error("expected a name (a string literal)", pos, parser.pos)
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
    moves them there).  Names are the names of the graph function's interface
    (``graphopt.dialects.graph.names``): an argument's or result's
    ``graph.name`` (an ONNX model's own names, ``"gpu_0/data_0"``), else its
    SSA name, else ""; the runtime takes inputs and gives outputs by them."""

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
# #loop.target
# --------------------------------------------------------------------------

TARGET_ATTR_NAME = "loop.target"
"""The module attribute naming the target the module is compiled for."""

_TARGET_FIELDS = ("cpu", "features", "triple")


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """The target of a module, as ``--target-cpu``, ``--target-features`` and
    ``--target-triple`` give it (LLVM's spellings; an empty field is the
    host's, and ``cpu = "host"`` the host CPU with its own features)::

        module attributes {loop.target = #loop.target<cpu = "haswell">} { ... }
        #loop.target<cpu = "host", features = "-avx512f">
        #loop.target<cpu = "generic", triple = "aarch64-unknown-linux-gnu">

    A module without it is compiled for the host.  Every schedule decision
    (``layout-nchwc``'s block size, the micro-kernels' lanes and register
    tiles) and the LLVM target machine read it through :func:`module_target`,
    so what ``graph-opt -t llvm`` prints for a target is what compiles for it."""

    name = "loop.target"

    cpu: StringAttr
    features: StringAttr
    triple: StringAttr

    def __init__(self, cpu: str = "host", features: str = "", triple: str = ""):
        super().__init__(StringAttr(cpu or "host"), StringAttr(features), StringAttr(triple))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = dict.fromkeys(_TARGET_FIELDS, "")

        def one() -> None:
            pos = parser.pos
            key = parser.parse_identifier()
            if key not in values:
                parser.raise_error(f"#loop.target has no field '{key}' (it has {', '.join(_TARGET_FIELDS)})", pos, parser.pos)
            parser.parse_punctuation("=")
            values[key] = parser.parse_str_literal()

        with parser.in_angle_brackets():
            parser.parse_comma_separated_list(parser.Delimiter.NONE, one)
        return (StringAttr(values["cpu"] or "host"), StringAttr(values["features"]), StringAttr(values["triple"]))

    def print_parameters(self, printer: Printer) -> None:
        fields = [(k, getattr(self, k).data) for k in _TARGET_FIELDS]
        printer.print_string("<")
        printer.print_list(
            [(k, v) for k, v in fields if v or k == "cpu"],
            lambda kv: (printer.print_string(f"{kv[0]} = "), printer.print_string_literal(kv[1])),
        )
        printer.print_string(">")

    def resolve(self) -> Target:
        """The concrete :class:`Target` (an unknown CPU or feature is an
        ``ArgumentError``)."""
        return Target.from_options(self.cpu.data, self.features.data, self.triple.data)


def module_target(op: Operation) -> Target:
    """The target of the module holding ``op`` (``op`` itself may be the
    module): its ``#loop.target``, or :meth:`Target.default` (the host)."""
    top = op
    while top.parent_op() is not None:
        top = top.parent_op()  # type: ignore[assignment]
    attr = top.attributes.get(TARGET_ATTR_NAME)
    return attr.resolve() if isinstance(attr, TargetAttr) else Target.default()


def set_module_target(module: Operation, target: TargetAttr | None) -> None:
    """Record ``target`` on ``module`` (``None``: remove it, the host)."""
    if target is None:
        module.attributes.pop(TARGET_ATTR_NAME, None)
    else:
        module.attributes[TARGET_ATTR_NAME] = target


# --------------------------------------------------------------------------
# loop.prefetch
# --------------------------------------------------------------------------


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """A prefetch of the cache line holding ``memref[indices]``, for a read or,
    with ``write``, for a store (the line is fetched for ownership)::

        loop.prefetch %w[%i, %c0], locality 2 : memref<64x32xf32>
        loop.prefetch %out[%j], write, locality 3 : memref<4096xf32>

    ``locality`` is LLVM's: 0 (no reuse) to 3 (keep in every level).  The
    indices must lie inside the memref, as a load's (the address is an
    inbounds ``getelementptr``, and ``bounds-check=true`` checks them); the
    hint itself never faults.  The NCHWc conv kernel
    fetches the next accumulation block's weights while it runs this one's;
    large elementwise kernels fetch their streams ahead (stream_prefetch)."""

    name = "loop.prefetch"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    write = opt_prop_def(UnitAttr)
    locality = prop_def(IntegerAttr[I32])

    assembly_format = "$memref `[` $indices `]` `,` (`write` `,` $write^)? `locality` $locality attr-dict `:` type($memref)"

    def __init__(self, ref: SSAValue, indices: Sequence[SSAValue], locality: int = 3, write: bool = False):
        props: dict[str, Attribute] = {"locality": IntegerAttr(locality, IntegerType(32))}
        if write:
            props["write"] = UnitAttr()
        super().__init__(operands=[ref, indices], properties=props)

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(f"loop.prefetch needs {t.get_num_dims()} indices for {t}, got {len(self.indices)}")
        if not 0 <= self.locality.value.data <= 3:
            raise VerifyException(f"loop.prefetch locality must be 0 to 3, got {self.locality.value.data}")


# --------------------------------------------------------------------------
# verification rules for upstream ops
# --------------------------------------------------------------------------


def constant_index(value: SSAValue) -> int | None:
    """The value of an ``index`` constant, or ``None`` if it is not one."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def check_loop_level_op(op: Operation) -> None:
    """The rules of the module docstring that upstream verifiers lack."""
    if isinstance(op, scf.ForOp | scf.ParallelOp):
        for s in [op.step] if isinstance(op, scf.ForOp) else op.step:
            if (step := constant_index(s)) is not None and step <= 0:
                raise VerifyException(f"{op.name} step must be positive, got the constant {step}")
    elif isinstance(op, memref.LoadOp | memref.StoreOp | PrefetchOp | vector.LoadOp | vector.StoreOp):
        t = op.memref.type if isinstance(op, memref.LoadOp | memref.StoreOp | PrefetchOp) else op.base.type
        vt = op.result.type if isinstance(op, vector.LoadOp) else getattr(op, "vector", None)
        vt = vt.type if isinstance(vt, SSAValue) else vt
        lanes = vt.get_shape()[-1] if isinstance(vt, VectorType) else 1
        if isinstance(t, MemRefType):
            shape = t.get_shape()
            size = math.prod(shape)
            if isinstance(vt, VectorType) and lanes > size >= 0:
                raise VerifyException(f"{op.name}: a vector of {lanes} does not fit in {t}")
            consts = [constant_index(idx) for idx in op.indices]
            for dim, (extent, c) in enumerate(zip(shape, consts)):
                if c is not None and extent >= 0 and not 0 <= c < extent:
                    raise VerifyException(
                        f"{op.name}: index {c} is out of bounds for dimension {dim} "
                        f"(size {extent}) of {t}"
                    )
            if lanes > 1 and None not in consts and min(shape, default=0) >= 0:
                linear = sum(c * math.prod(shape[d + 1:]) for d, c in enumerate(consts))
                if linear + lanes > size:
                    raise VerifyException(
                        f"{op.name}: a vector of {lanes} at element {linear} runs past the end of {t}"
                    )
    elif isinstance(op, memref.ViewOp):
        shift, src, res = constant_index(op.byte_shift), op.source.type, op.result.type
        if shift is not None and isinstance(src, MemRefType) and isinstance(res, MemRefType):
            size = memref_num_bytes(res)
            if shift < 0 or shift + size > src.get_shape()[0]:
                raise VerifyException(
                    f"memref.view of {res} ({size} bytes) at byte {shift} does not fit in {src}"
                )


def memref_num_bytes(t: MemRefType) -> int:
    """Size in bytes of a static memref (i1 is stored as one byte)."""
    return math.prod(t.get_shape()) * element_num_bytes(t.element_type)


def element_num_bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, IndexType):
        return 8
    width = getattr(t, "bitwidth", None)
    if isinstance(width, int):
        return width // 8
    raise VerifyException(f"unsupported memref element type {t}")


Loop = Dialect("loop", [PrefetchOp], [DriverABIAttr, TargetAttr])
