"""Families of ``graph`` ops: what the ops of one signature or one kind share,
stated once, so that a concrete op names only what is its own.

Signatures (operands, results, textual form):

* :class:`SameTypeOp`: one tensor in, a result of the same type,
  ``%y = graph.<op> %x {...} : tensor<...>``;
* :class:`UnaryTensorOp`: one tensor ``input`` in, one ``result`` out,
  ``%y = graph.<op> %x {...} : (tensor<...>) -> tensor<...>``;
* :class:`BinaryTensorOp`: ``lhs`` and ``rhs`` in, one ``result`` out.

Kinds (settings and semantics), built on those:

* :class:`UnaryElementwiseOp`: a numpy function applied elementwise; the
  simplest op to define, in the dialect or in a plugin (name and function);
* :class:`BinaryBroadcastOp`: a numpy binary function with broadcasting;
* :class:`ReduceOp`: a numpy reduction over ``axes``;
* :class:`AxisNormalizationOp`: a same-shape normalization along ``axis``.

:class:`AxisOp` is the ``axis`` property of the ops that work along one
axis of their first operand, and its one reading (:meth:`AxisOp.axis_in`).

:class:`PureOp` only adds xDSL's ``Pure``; the families that are pure derive
from it, so an op that belongs to two of them carries the trait once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import VarConstraint, base, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    FLOAT_TYPES, NUMERIC_TYPES, GraphOp, broadcast_shapes, check_static_tensor, normalize_axes,
    normalize_axis, numpy_dtype, shape_str, tensor, tensor_of, tensor_of_type,
)
from graphopt.dialects.graph.properties import PropertyValue


class PureOp(GraphOp):
    """A graph op without side effects (xDSL's ``Pure``)."""

    traits = traits_def(Pure())


class SameTypeOp(GraphOp):
    """``%y = graph.<op> %x {...} : tensor<8x16xf32>``: one tensor operand
    ``input`` and a result of the same type."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)

    assembly_format = "$input attr-dict `:` type($input)"

    @classmethod
    def infer_type(cls, input: Attribute) -> Attribute:
        return input


class UnaryElementwiseOp(SameTypeOp, PureOp):
    """``%y = graph.exp %x : tensor<8x16xf32>``: ``NUMPY_FN`` elementwise.

    A subclass names itself and its function; a plugin op the same way:

        @irdl_op_definition
        class SquareOp(UnaryElementwiseOp):
            name = "toy.square"
            NUMPY_FN = staticmethod(np.square)

    An op with properties takes them in its own ``__init__``, through
    ``GraphOp.__init__`` (``GeluOp``).
    """

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.ELEMWISE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES
    NUMPY_FN: ClassVar[Callable[[np.ndarray], np.ndarray]]

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input])

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        with np.errstate(all="ignore"):
            out = type(self).NUMPY_FN(x)
        return [np.asarray(out, dtype=x.dtype)]


class UnaryTensorOp(PureOp):
    """``%y = graph.<op> %x {...} : (tensor<...>) -> tensor<...>``: one tensor
    operand ``input``, one tensor ``result``."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$input attr-dict `:` functional-type(operands, results)"


class BinaryTensorOp(PureOp):
    """``%z = graph.<op> %a, %b : (tensor<...>, tensor<...>) -> tensor<...>``:
    tensor operands ``lhs`` and ``rhs``, one tensor ``result``."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs])

    @classmethod
    def checked_operands(
        cls, lhs: Attribute, rhs: Attribute, ranked: int = 0
    ) -> tuple[TensorType, TensorType]:
        """Both operand types, checked to be static tensors of rank ``ranked``
        or more and of one element type."""
        check_static_tensor(cls.name, "lhs", lhs)
        check_static_tensor(cls.name, "rhs", rhs)
        assert isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
        a, b = lhs.get_shape(), rhs.get_shape()
        if len(a) < ranked or len(b) < ranked:
            raise VerifyException(
                f"{cls.name}: operands must have rank >= {ranked} ({shape_str(a)} vs {shape_str(b)})"
            )
        if lhs.element_type != rhs.element_type:
            raise VerifyException(
                f"{cls.name}: element types differ ({lhs.element_type} vs {rhs.element_type})"
            )
        return lhs, rhs


class BinaryBroadcastOp(BinaryTensorOp):
    """``%z = graph.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>``.

    Full numpy broadcasting; both operands share one element type.
    """

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.BROADCAST
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES
    NUMPY_FN: ClassVar[Callable[[np.ndarray, np.ndarray], np.ndarray]]

    @classmethod
    def infer_type(cls, lhs: Attribute, rhs: Attribute) -> TensorType:
        a, b = cls.checked_operands(lhs, rhs)
        shape = broadcast_shapes(cls.name, a.get_shape(), b.get_shape())
        return tensor(shape, cls.result_element_type(a.element_type))

    @classmethod
    def result_element_type(cls, operand_element_type: Attribute) -> Attribute:
        return operand_element_type

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        a, b = inputs
        dtype = numpy_dtype(tensor_of(self.result).element_type)
        with np.errstate(all="ignore"):
            out = type(self).NUMPY_FN(a, b)
        return [np.asarray(out, dtype=dtype)]


class AxisOp(GraphOp):
    """An op along one ``axis`` of its first operand; a negative axis counts
    from the end.  :meth:`axis_in` is the op's reading of an axis, shared by
    its type inference and :attr:`normalized_axis`."""

    axis = prop_def(IntegerAttr)
    axis_value = PropertyValue(axis)

    @classmethod
    def axis_in(cls, operand: Attribute, axis: int) -> int:
        """``axis`` of a tensor of type ``operand``, in ``[0, rank)``."""
        return normalize_axis(cls.name, axis, len(tensor_of_type(operand).get_shape()))

    @property
    def normalized_axis(self) -> int:
        return self.axis_in(self.operands[0].type, self.axis_value)


class ReduceOp(UnaryTensorOp):
    """``%s = graph.reduce_sum %x {axes = array<i64: 1>, keepdims} : (...) -> ...``.

    ``axes`` may be negative; absent ``keepdims`` drops the reduced axes.
    An op that has no value for an empty reduced axis (max, min) gives the
    message that reports one, ``EMPTY_AXIS_ERROR`` (``{shape}`` is the input
    shape).
    """

    axes = prop_def(DenseArrayBase)
    keepdims = opt_prop_def(UnitAttr)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.COMM_REDUCE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = NUMERIC_TYPES
    NUMPY_FN: ClassVar[Callable[..., np.ndarray]]
    EMPTY_AXIS_ERROR: ClassVar[str | None] = None

    def __init__(
        self, input: SSAValue, axes: Sequence[int] | None = None, keepdims: bool = False
    ):
        rank = len(tensor_of(input).get_shape())
        axes = tuple(range(rank)) if axes is None else tuple(axes)
        super().__init__(operands=[input], properties={"axes": axes, "keepdims": keepdims})

    @classmethod
    def infer_type(
        cls, input: Attribute, axes: Sequence[int], keepdims: bool
    ) -> TensorType:
        check_static_tensor(cls.name, "input", input)
        assert isinstance(input, TensorType)
        shape = input.get_shape()
        norm = normalize_axes(cls.name, axes, len(shape))
        if keepdims:
            out = [1 if i in norm else d for i, d in enumerate(shape)]
        else:
            out = [d for i, d in enumerate(shape) if i not in norm]
        return tensor(out, input.element_type)

    axis_values = PropertyValue(axes)

    @property
    def normalized_axes(self) -> tuple[int, ...]:
        rank = len(tensor_of(self.input).get_shape())
        return normalize_axes(self.name, self.axis_values, rank)

    keeps_dims = PropertyValue(keepdims, default=False)

    def verify_extra(self) -> None:
        shape = tensor_of(self.input).get_shape()
        if self.EMPTY_AXIS_ERROR is not None and any(shape[a] == 0 for a in self.normalized_axes):
            message = self.EMPTY_AXIS_ERROR.format(shape=shape_str(shape))
            raise VerifyException(f"{self.name}: {message}")

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        out = type(self).NUMPY_FN(x, axis=self.normalized_axes, keepdims=self.keeps_dims)
        return [np.asarray(out, dtype=x.dtype)]


class AxisNormalizationOp(UnaryTensorOp, AxisOp):
    """``%p = graph.softmax %x {axis = -1 : i64} : (...) -> ...``: a same-shape
    float op that normalizes along one axis (softmax, log_softmax).

    Both subtract the maximum along the axis first (stable for large
    logits); a subclass says what it makes of the shifted values."""

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    def __init__(self, input: SSAValue, axis: int = -1):
        super().__init__(operands=[input], properties={"axis": axis})

    @classmethod
    def infer_type(cls, input: Attribute) -> Attribute:
        return input

    def verify_extra(self) -> None:
        shape = tensor_of(self.input).get_shape()
        if shape[self.normalized_axis] == 0:
            raise VerifyException(
                f"{self.name}: cannot normalize over an empty axis "
                f"(axis {self.axis_value} of {shape_str(shape)})"
            )

    def normalize(self, shifted: np.ndarray, axis: int) -> np.ndarray:
        """The result from ``x - max(x)`` along ``axis``."""
        raise NotImplementedError(f"{self.name} does not normalize")

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        axis = self.normalized_axis
        with np.errstate(all="ignore"):
            out = self.normalize(x - np.max(x, axis=axis, keepdims=True), axis)
        return [out.astype(x.dtype, copy=False)]
