"""``graph.constant``: a dense or splat tensor constant.

    %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %z = graph.constant splat 0.0 : tensor<1024x1024xf32>

A splat stores its value once, whatever the shape; non-finite float splats
print as their IEEE bit pattern (``splat 0x7F800000``), as MLIR prints them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from math import prod
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, IntegerType, TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    FLOAT_TYPES, GraphOp, element_type_of, numpy_dtype, tensor, tensor_of,
)


@irdl_op_definition
class ConstantOp(GraphOp):
    """A constant tensor, dense or splat (one value repeated, stored once)."""

    name = "graph.constant"
    value = opt_prop_def(DenseIntOrFPElementsAttr)
    splat = opt_prop_def(FloatAttr | IntegerAttr)
    result = result_def(TensorType)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OPAQUE
    traits = traits_def(Pure(), ConstantLike())

    def __init__(
        self,
        result_type: TensorType,
        value: DenseIntOrFPElementsAttr | None = None,
        splat: FloatAttr | IntegerAttr | None = None,
    ):
        props: dict[str, Attribute] = {}
        if value is not None:
            props["value"] = value
        if splat is not None:
            props["splat"] = splat
        super().__init__(result_types=[result_type], properties=props)

    @staticmethod
    def from_array(array: np.ndarray, keep_dense: bool = False) -> ConstantOp:
        """A constant holding ``array``; uniform arrays become splats."""
        array = np.asarray(array)
        elem = element_type_of(array.dtype)
        ty = tensor(array.shape, elem)
        flat = array.reshape(-1)
        if not keep_dense and flat.size > 1 and bool(np.all(flat == flat[0])):
            return ConstantOp.splat_of(ty, flat[0].item())
        if flat.size == 1 and not keep_dense:
            return ConstantOp.splat_of(ty, flat[0].item())
        if elem == IntegerType(1):
            data = (array.astype(np.int8) * -1).tobytes()
        else:
            data = np.ascontiguousarray(array).tobytes()
        return ConstantOp(ty, value=DenseIntOrFPElementsAttr(ty, BytesAttr(data)))

    @staticmethod
    def splat_of(result_type: TensorType, scalar: float | int | bool) -> ConstantOp:
        elem = result_type.element_type
        if elem in FLOAT_TYPES:
            attr: FloatAttr | IntegerAttr = FloatAttr(float(scalar), elem)  # type: ignore[arg-type]
        else:
            assert isinstance(elem, IntegerType)
            attr = IntegerAttr(int(scalar), elem)
        return ConstantOp(result_type, splat=attr)

    @property
    def is_splat(self) -> bool:
        return self.splat is not None

    def inferred_result_types(self) -> Sequence[Attribute]:
        if self.value is not None:
            return [self.value.type]
        return [self.result.type]

    def verify_extra(self) -> None:
        if (self.value is None) == (self.splat is None):
            raise VerifyException(
                "graph.constant: exactly one of 'value' (dense) and 'splat' must be given"
            )
        elem = tensor_of(self.result).element_type
        if self.splat is not None and self.splat.type != elem:
            raise VerifyException(
                f"graph.constant: splat value type {self.splat.type} does not match "
                f"element type {elem}"
            )
        if self.value is not None and len(self.value) != prod(self.value.get_shape()):
            raise VerifyException(
                f"graph.constant: dense value holds {len(self.value)} elements, "
                f"its type {self.value.type} needs {prod(self.value.get_shape())}"
            )

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        ty = tensor_of(self.result)
        dtype = numpy_dtype(ty.element_type)
        shape = ty.get_shape()
        if self.splat is not None:
            return [np.full(shape, self.splat.value.data, dtype=dtype)]
        assert self.value is not None
        if dtype == np.bool_:
            raw = np.frombuffer(self.value.data.data, dtype=np.int8) != 0
        else:
            raw = np.frombuffer(self.value.data.data, dtype=dtype)
        return [raw.reshape(shape).copy()]

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        if parser.parse_optional_keyword("splat") is not None:
            pos = parser.pos
            number, is_hex = _parse_scalar(parser)
            attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation(":")
            ty = parser.parse_type()
            op = cls(ty, splat=_splat_attr(parser, ty, number, is_hex, pos))
        elif _DENSE_SCALAR.match(parser.lexer.input.content, parser.pos):
            # ``dense<1.0> : tensor<...>`` is a splat: keep it one value, since
            # xDSL's dense parser would expand it to one Python value per
            # element (hopeless for tensor<100000000000x100000000000xf32>).
            pos = parser.pos
            parser.parse_keyword("dense")
            parser.parse_punctuation("<")
            number, is_hex = _parse_scalar(parser)
            parser.parse_punctuation(">")
            parser.parse_punctuation(":")
            ty = parser.parse_type()
            attrs = parser.parse_optional_attr_dict()
            op = cls(ty, splat=_splat_attr(parser, ty, number, is_hex, pos))
        else:
            pos = parser.pos
            value = parser.parse_attribute()
            if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(
                value.type, TensorType
            ):
                parser.raise_error(
                    "graph.constant: expected 'splat <number> : <type>' or a dense "
                    "tensor attribute such as 'dense<[1.0, 2.0]> : tensor<2xf32>'",
                    pos,
                    parser.pos,
                )
            attrs = parser.parse_optional_attr_dict()
            op = cls(value.type, value=value)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.splat is not None:
            printer.print_string("splat ")
            value = self.splat.value.data
            if isinstance(self.splat, IntegerAttr) and self.splat.type == IntegerType(1):
                printer.print_string("true" if value else "false")
            elif isinstance(self.splat, FloatAttr):
                printer.print_float(float(value), self.splat.type)
            else:
                printer.print_string(str(int(value)))
            printer.print_op_attributes(self.attributes)
            printer.print_string(" : ")
            printer.print_attribute(self.result.type)
        else:
            assert self.value is not None
            printer.print_attribute(self.value)
            printer.print_op_attributes(self.attributes)


_DENSE_SCALAR = re.compile(r"dense\s*<\s*(-\s*)?([0-9][0-9a-fA-FxX.eE+-]*|true|false)\s*>")


def _parse_scalar(parser: Parser) -> tuple[float | int, bool]:
    """A (possibly negative) number or boolean; whether it was written in hex."""
    negative = parser.parse_optional_punctuation("-") is not None
    # Non-finite floats print as their bit pattern (0x7F800000), as in MLIR.
    is_hex = parser._current_token.text.lower().startswith("0x")
    if (word := parser.parse_optional_boolean()) is not None:
        number: float | int = int(word)
    else:
        number = parser.parse_number()
    return (-number if negative else number), is_hex


def _splat_attr(
    parser: Parser, ty: Attribute, number: float | int, is_hex: bool, pos: int
) -> FloatAttr | IntegerAttr:
    if not isinstance(ty, TensorType):
        parser.raise_error(f"graph.constant: expected a tensor type, got {ty}", pos)
    elem = ty.element_type
    if elem in FLOAT_TYPES:
        if is_hex:
            number = _float_from_bits(int(number), elem, parser, pos)
        return FloatAttr(float(number), elem)  # type: ignore[arg-type]
    if isinstance(elem, IntegerType):
        if isinstance(number, float) and not number.is_integer():
            parser.raise_error(f"graph.constant: splat {number} is not an integer for {elem}", pos)
        width = elem.width.data
        lo, hi = (0, 2) if width == 1 else (-(1 << (width - 1)), 1 << (width - 1))
        if not lo <= int(number) < hi:
            parser.raise_error(
                f"graph.constant: splat {int(number)} is out of range for {elem}", pos, parser.pos
            )
        return IntegerAttr(int(number), elem)
    parser.raise_error(f"graph.constant: unsupported element type {elem}", pos)


def _float_from_bits(bits: int, elem: Attribute, parser: Parser, pos: int) -> float:
    """The float whose IEEE bit pattern is ``bits`` (how inf and NaN print)."""
    width = 4 if elem == FLOAT_TYPES[0] else 8
    if not 0 <= bits < (1 << (8 * width)):
        parser.raise_error(f"graph.constant: bit pattern {bits:#x} does not fit {elem}", pos)
    dtype = np.float32 if width == 4 else np.float64
    return float(np.frombuffer(bits.to_bytes(width, "little"), dtype=dtype)[0])
