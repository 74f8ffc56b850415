"""Graph ops that make values rather than move them: fill, zeros_like,
ones_like, dropout and copy.

    %f = graph.fill {shape = array<i64: 2, 3>, value = 1.5 : f64} : tensor<2x3xf32>
    %z = graph.zeros_like %x : tensor<2x3xi32>
    %o = graph.ones_like %x : tensor<2x3xi1>
    %d = graph.dropout %x {rate = 0.25 : f64, seed = 7 : i64, training} : tensor<8x16xf32>
    %c = graph.copy %x {device = "gpu:0"} : tensor<8x16xf32>

``fill``, ``zeros_like`` and ``ones_like`` lower to a scalar constant: fused
into a consumer they never touch memory, and ``zeros_like`` does not even read
its operand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence, Set as AbstractSet
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase, Float64Type, FloatAttr, IntegerAttr, IntegerType, StringAttr, TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    ALL_TYPES, FLOAT_TYPES, element_type_of, f32, numpy_dtype, tensor, tensor_of,
)
from graphopt.dialects.graph.families import PureOp, SameTypeOp, UnaryElementwiseOp
from graphopt.dialects.graph.properties import PropertyValue, float_value
from graphopt.dialects.traits import IgnoresOperandValues, NeverFolded


def check_scalar_value(op_name: str, value: float, element_type: Attribute) -> None:
    """An f64 property used as an element must be exactly representable:
    integral for integers (and in range), 0 or 1 for i1.  This keeps the
    reference and the compiled code from rounding differently."""
    if element_type in FLOAT_TYPES:
        return
    assert isinstance(element_type, IntegerType)
    width = element_type.width.data
    if width == 1:
        if value not in (0.0, 1.0):
            raise VerifyException(f"{op_name}: value {value} is not 0 or 1, as i1 needs")
        return
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if not math.isfinite(value) or not value.is_integer() or not lo <= value <= hi:
        raise VerifyException(f"{op_name}: value {value} cannot be represented in {element_type}")


def scalar_of(value: float, element_type: Attribute) -> float | int:
    """The element ``value`` denotes in ``element_type`` (checked beforehand)."""
    return float(value) if element_type in FLOAT_TYPES else int(value)


def _element_type(dtype: Attribute | np.dtype | type) -> Attribute:
    return dtype if isinstance(dtype, Attribute) else element_type_of(dtype)


@irdl_op_definition
class FillOp(PureOp):
    """A tensor of ``shape`` holding ``value`` everywhere (cast to the element type
    of the result).  Folding turns it into a splat constant."""

    name = "graph.fill"
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    value = prop_def(FloatAttr[Float64Type])

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.ELEMWISE
    assembly_format = "attr-dict `:` type($result)"

    def __init__(
        self,
        shape: Sequence[int],
        value: float = 0.0,
        element_type: Attribute | np.dtype | type = f32,
    ):
        super().__init__(
            result_types=[tensor(shape, _element_type(element_type))],
            properties={"shape": shape, "value": value},
        )

    shape_values = PropertyValue(shape)

    @property
    def scalar(self) -> float | int:
        return scalar_of(float_value(self.value), tensor_of(self.result).element_type)

    def verify_extra(self) -> None:
        if any(d < 0 for d in self.shape_values):
            raise VerifyException(
                f"graph.fill: negative dimension in shape {list(self.shape_values)}"
            )
        check_scalar_value(self.name, float_value(self.value), tensor_of(self.result).element_type)

    def inferred_result_types(self) -> Sequence[Attribute]:
        return [tensor(self.shape_values, tensor_of(self.result).element_type)]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        dtype = numpy_dtype(tensor_of(self.result).element_type)
        return [np.full(self.shape_values, self.scalar, dtype=dtype)]


class FillLikeOp(UnaryElementwiseOp):
    """``zeros_like`` and ``ones_like``: a constant of the operand's type, of
    any element type; the operand's values are never read."""

    traits = traits_def(IgnoresOperandValues())
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = ALL_TYPES


@irdl_op_definition
class ZerosLikeOp(FillLikeOp):
    """Zeros of the operand's type."""

    name = "graph.zeros_like"
    NUMPY_FN = staticmethod(np.zeros_like)


@irdl_op_definition
class OnesLikeOp(FillLikeOp):
    """Ones (``true`` for i1) of the operand's type."""

    name = "graph.ones_like"
    NUMPY_FN = staticmethod(np.ones_like)


_M32 = 0xFFFFFFFF
HASH_GOLDEN = 0x9E3779B9
HASH_MUL1 = 0x85EBCA6B
HASH_MUL2 = 0xC2B2AE35
#: the mask compares the top 24 bits of the hash with ``rate * 2**24``
HASH_KEEP_BITS = 24


def dropout_hash(seed: int, linear: np.ndarray) -> np.ndarray:
    """The 32-bit hash of (seed, linear element index): the murmur3 finaliser of
    ``index * golden ^ seed``, all in uint32.  The compute rule of
    ``graph.dropout`` emits exactly these operations on i32."""
    with np.errstate(over="ignore"):
        h = linear.astype(np.uint32) * np.uint32(HASH_GOLDEN)
        h ^= np.uint32(seed & _M32)
        h ^= h >> np.uint32(16)
        h *= np.uint32(HASH_MUL1)
        h ^= h >> np.uint32(13)
        h *= np.uint32(HASH_MUL2)
        h ^= h >> np.uint32(16)
    return h


def dropout_threshold(rate: float) -> int:
    """Elements whose top 24 hash bits are below this are dropped."""
    return int(rate * (1 << HASH_KEEP_BITS))


def dropout_keep_mask(seed: int, rate: float, shape: Sequence[int]) -> np.ndarray:
    n = math.prod(shape)
    linear = np.arange(n, dtype=np.uint64).astype(np.uint32)
    bits = dropout_hash(seed, linear) >> np.uint32(32 - HASH_KEEP_BITS)
    return (bits >= np.uint32(dropout_threshold(rate))).reshape(tuple(shape))


class RandomEffect(MemoryEffect):
    """Marks a training-mode dropout as producing a fresh value each time it
    runs (an allocation effect on its own result): CSE never merges two
    dropouts, DCE still deletes an unused one, and fold-constants (which folds
    only ``Pure`` ops) leaves it alone.  In inference mode the op is the
    identity and reports no effect at all."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        if isinstance(op, DropoutOp) and op.training is None:
            return set()
        return {EffectInstance(MemoryEffectKind.ALLOC, op.results[0])}


@irdl_op_definition
class DropoutOp(SameTypeOp):
    """Inference mode (no ``training`` flag): the identity.  Training mode: keep
    each element with probability ``1 - rate`` and scale the kept ones by
    ``1 / (1 - rate)``.

    The mask is a pure function of ``seed`` and the element's row-major index
    (:func:`dropout_hash`), so the compiled code and the reference agree bit
    for bit, and recomputing the op inside a fused group gives the same mask.
    That is why its pattern can be ElemWise: fusion may inline it anywhere.
    """

    name = "graph.dropout"
    rate = prop_def(FloatAttr[Float64Type])
    seed = prop_def(IntegerAttr)
    training = opt_prop_def(UnitAttr)

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.ELEMWISE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES
    traits = traits_def(RandomEffect(), NeverFolded(when=lambda op: op.is_training))

    def __init__(self, input: SSAValue, rate: float = 0.5, seed: int = 0, training: bool = False):
        super().__init__(operands=[input], properties={"rate": rate, "seed": seed, "training": training})

    rate_value = PropertyValue(rate)

    seed_value = PropertyValue(seed)

    is_training = PropertyValue(training, default=False)

    def verify_extra(self) -> None:
        if not 0.0 <= self.rate_value < 1.0:
            raise VerifyException(f"graph.dropout: rate {self.rate_value} is not in [0, 1)")

    @property
    def scale(self) -> float:
        return 1.0 / (1.0 - self.rate_value)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        if not self.is_training:
            return [x.copy()]
        keep = dropout_keep_mask(self.seed_value, self.rate_value, x.shape)
        scaled = x * np.asarray(self.scale, dtype=x.dtype)
        return [np.where(keep, scaled, np.zeros((), x.dtype)).astype(x.dtype, copy=False)]


@irdl_op_definition
class CopyOp(SameTypeOp, PureOp):
    """A copy of its operand onto ``device`` (inserted by device planning).

    It exists to produce a distinct buffer, so fold-constants never folds it
    (folding would merge it with its source); it is never fused (Opaque).
    """

    name = "graph.copy"
    device = prop_def(StringAttr)
    traits = traits_def(NeverFolded())

    def __init__(self, input: SSAValue, device: str = "cpu"):
        super().__init__(operands=[input], properties={"device": device})

    def verify_extra(self) -> None:
        if not self.device.data:
            raise VerifyException("graph.copy: device must not be empty")

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return [inputs[0].copy()]
