"""The op interface every ``graph`` op implements, and the helpers it is built on.

An op of the graph dialect knows these things about itself, on its class:

* how its result types follow from its operand types and properties: ONE
  classmethod, ``infer_type`` (MLIR's ``InferTypeOpInterface`` shape), which
  builders call with their arguments and the verifier
  (``inferred_result_types``) with the op's own operand types and property
  values;
* its algebraic and folding facts, as traits (``graphopt.dialects.traits``);
* its fuse pattern (``FUSE_PATTERN``);
* its numpy reference semantics (``reference``), which constant folding, the
  reference interpreter and the tests share.

The constructor takes property values as Python values and infers result
types, so an op's ``__init__`` only names its operands and properties.  The
families of ops that share a signature and settings are in ``families``.
"""

from __future__ import annotations

import inspect
from functools import cache

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, Float64Type, IntegerType, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, VarResultDef, traits_def
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.utils.exceptions import VerifyException

from graphopt import rules
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.properties import property_attributes, property_value
from graphopt.memory_limits import nbytes, overflow_reason, size_message


f32 = Float32Type()
f64 = Float64Type()
i32 = IntegerType(32)
i1 = IntegerType(1)
# i64 is imported from xdsl.

FLOAT_TYPES: tuple[Attribute, ...] = (f32, f64)
INT_TYPES: tuple[Attribute, ...] = (i32, i64)
BOOL_TYPES: tuple[Attribute, ...] = (i1,)
NUMERIC_TYPES = FLOAT_TYPES + INT_TYPES
ALL_TYPES = NUMERIC_TYPES + BOOL_TYPES

_NUMPY_OF: dict[Attribute, np.dtype] = {
    f32: np.dtype(np.float32),
    f64: np.dtype(np.float64),
    i32: np.dtype(np.int32),
    i64: np.dtype(np.int64),
    i1: np.dtype(np.bool_),
}


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The numpy dtype that holds values of ``element_type``."""
    try:
        return _NUMPY_OF[element_type]
    except KeyError:
        raise ValueError(f"unsupported element type {element_type}") from None


def element_type_of(dtype: np.dtype | type) -> Attribute:
    """The IR element type of a numpy dtype."""
    dtype = np.dtype(dtype)
    for elem, dt in _NUMPY_OF.items():
        if dt == dtype:
            return elem
    raise ValueError(f"unsupported numpy dtype {dtype}")


def shape_str(shape: Sequence[int]) -> str:
    """``(8, 16)`` -> ``8x16``; a 0-d shape is ``scalar``."""
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


def type_str(t: Attribute) -> str:
    if isinstance(t, TensorType):
        return f"{shape_str(t.get_shape())}x{t.element_type}" if t.get_shape() else f"{t.element_type}"
    return str(t)


def tensor(shape: Sequence[int], element_type: Attribute = f32) -> TensorType:
    return TensorType(element_type, list(shape))


def normalize_axis(op_name: str, axis: int, rank: int) -> int:
    """Map a possibly negative axis into ``[0, rank)`` or raise a verify error."""
    if not -rank <= axis < rank:
        raise VerifyException(f"{op_name}: axis {axis} is out of range for rank {rank}")
    return axis % rank


def normalize_axes(op_name: str, axes: Sequence[int], rank: int) -> tuple[int, ...]:
    norm = tuple(normalize_axis(op_name, a, rank) for a in axes)
    if len(set(norm)) != len(norm):
        raise VerifyException(f"{op_name}: repeated axis in {list(axes)}")
    return norm


def broadcast_shapes(op_name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    """Numpy broadcasting of several shapes, with an error naming the shapes."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for i in range(rank):
        dim = 1
        for s in shapes:
            k = i - (rank - len(s))
            if k < 0:
                continue
            d = s[k]
            if d == dim or d == 1:
                continue
            if dim != 1:
                raise VerifyException(
                    f"{op_name}: shapes are not broadcastable ("
                    + " vs ".join(shape_str(s) for s in shapes)
                    + ")"
                )
            dim = d
        out.append(dim)
    return tuple(out)


class GraphCanonicalization(HasCanonicalizationPatternsTrait):
    """Lets xDSL's ``canonicalize`` run the patterns registered for an op class
    and its base classes in :data:`graphopt.rules.CANONICALIZATION`: the
    generic ones its traits call for (registered on ``Operation``, see
    ``graphopt.transforms.canonicalize_patterns``) and the per-op ones."""

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        return rules.CANONICALIZATION.lookup_all(op)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()


@cache
def _property_parameters(cls: type[GraphOp], n_operands: int) -> tuple[tuple[str, bool], ...]:
    """``(name, has a default)`` of each property parameter of ``cls.infer_type``."""
    params = list(inspect.signature(cls.infer_type).parameters.values())[n_operands:]
    names = cls.get_irdl_definition().properties
    for p in params:
        if p.name not in names:
            raise TypeError(f"{cls.name}.infer_type: parameter '{p.name}' is not a property")
    return tuple((p.name, p.default is not p.empty) for p in params)


OperandArg = SSAValue | Operation | Sequence[SSAValue | Operation]


def _operand_type(value: OperandArg) -> Attribute | list[Attribute]:
    if isinstance(value, (SSAValue, Operation)):
        return SSAValue.get(value).type
    return [SSAValue.get(v).type for v in value]


class GraphOp(IRDLOperation):
    """Base class of every ``graph`` op: the interface described above."""

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OPAQUE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = ALL_TYPES

    traits = traits_def(GraphCanonicalization())
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        *,
        operands: Sequence[OperandArg] = (),
        result_types: Sequence[Attribute | Sequence[Attribute]] | None = None,
        properties: Mapping[str, object] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        successors: Sequence[Block | Sequence[Block]] | None = None,
        regions: Sequence[Region | Sequence[Block] | Sequence[Region]] | None = None,
    ):
        """xDSL's constructor, with two conveniences so that an op's own
        ``__init__`` only names its operands and properties: a property may be
        given as its Python value (``properties.property_attribute``), and
        result types left out are inferred the way the verifier infers them."""
        cls = type(self)
        props = property_attributes(cls.get_irdl_definition().properties, properties or {})
        if result_types is None:
            inferred = cls.infer_from([_operand_type(v) for v in operands], props)
            results = cls.get_irdl_definition().results
            several = len(results) == 1 and isinstance(results[0][1], VarResultDef)
            result_types = [inferred] if several else inferred
        super().__init__(
            operands=operands, result_types=result_types, properties=props, attributes=attributes,
            successors=successors, regions=regions,
        )

    @classmethod
    def infer_type(cls, *operand_types: Attribute | Sequence[Attribute], **properties: object) -> Attribute | Sequence[Attribute]:
        """The op's one type inference (MLIR's ``InferTypeOpInterface``): its
        result type (or types) from its operand types, one per operand
        definition in order (a list for a variadic one), and its property
        values as Python values (``properties.property_value``), each passed
        as the parameter of the property's name.  A property that is absent
        takes the parameter's default, or ``None``.  The constructor and the
        verifier (:meth:`inferred_result_types`) both call it, through
        :meth:`infer_from`."""
        raise NotImplementedError(f"{cls.name} does not infer its result types")

    @classmethod
    def infer_from(
        cls, operand_types: Sequence[Attribute | Sequence[Attribute]], properties: Mapping[str, Attribute]
    ) -> list[Attribute]:
        """:meth:`infer_type` on operand types and property attributes: the one
        path the constructor and the verifier share."""
        values: dict[str, object] = {}
        for name, has_default in _property_parameters(cls, len(operand_types)):
            attr = properties.get(name)
            if attr is not None:
                values[name] = property_value(attr)
            elif not has_default:
                values[name] = None
        out = cls.infer_type(*operand_types, **values)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def inferred_result_types(self) -> Sequence[Attribute]:
        """The result types this op's operands and properties imply.

        Ops whose result type itself carries information (the target shape of
        a reshape, the element type of a cast) override this."""
        operand_types = [_operand_type(getattr(self, field)) for field, _ in self.get_irdl_definition().operands]
        return type(self).infer_from(operand_types, self.properties)

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """Evaluate the op on numpy arrays (one array per result)."""
        raise NotImplementedError(f"{self.name} has no reference semantics")

    @property
    def fuse_pattern(self) -> FusePattern:
        return self.FUSE_PATTERN

    def verify_(self) -> None:
        self.check_integer_arrays()
        for kind, values in (("operand", self.operands), ("result", self.results)):
            for idx, value in enumerate(values):
                check_static_tensor(self.name, f"{kind} #{idx}", value.type, value.name_hint)
        for idx, value in enumerate(self.operands):
            self.check_element_type(f"operand #{idx}", value.type)
        self.verify_extra()
        expected = list(self.inferred_result_types())
        actual = [r.type for r in self.results]
        if expected != actual:
            raise VerifyException(
                f"{self.name}: result type "
                + ", ".join(str(t) for t in actual)
                + " does not match the inferred type "
                + ", ".join(str(t) for t in expected)
            )

    def verify_extra(self) -> None:
        """Op-specific checks that result-type inference does not cover."""

    def check_integer_arrays(self) -> None:
        """Every array property of a graph op (axes, perm, strides, shape...)
        holds integers.  Checked before anything reads the values, so that
        ``strides = array<f32: 2.0>`` is reported as itself, not as a float
        output size some shape computation made of it."""
        for name, attr in (*self.properties.items(), *self.attributes.items()):
            if isinstance(attr, DenseArrayBase) and not isinstance(attr.elt_type, IntegerType):
                raise VerifyException(
                    f"{self.name}: attribute '{name}' must be an array of integers "
                    f"(array<i64: ...>), got array<{attr.elt_type}: ...>"
                )

    def check_element_type(self, what: str, t: Attribute) -> None:
        assert isinstance(t, TensorType)
        if t.element_type not in self.ALLOWED_ELEMENT_TYPES:
            allowed = ", ".join(str(e) for e in self.ALLOWED_ELEMENT_TYPES)
            raise VerifyException(
                f"{self.name}: {what} has element type {t.element_type}, expected one of {allowed}"
            )


def check_static_tensor(op_name: str, what: str, t: Attribute, name: str | None = None) -> None:
    """A static tensor of a supported element type that fits in an array;
    ``name`` is the value's SSA name, for the size error."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{op_name}: {what} must be a tensor, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{op_name}: {what} must have a static shape, got {t}")
    check_tensor_size(f"{op_name}: {what}", t, name)
    if t.element_type not in ALL_TYPES:
        raise VerifyException(
            f"{op_name}: {what} has unsupported element type {t.element_type}"
        )


I64_MAX = (1 << 63) - 1


def check_dims_fit_i64(what: str, t: Attribute) -> None:
    """Each dimension is an int64 (the index type of the compiled code)."""
    if isinstance(t, TensorType):
        for d in t.get_shape():
            if d > I64_MAX:
                raise VerifyException(
                    f"{what}: dimension {d} of {t} does not fit in int64 (at most {I64_MAX})"
                )


def check_tensor_size(what: str, t: Attribute, name: str | None = None) -> None:
    """Each dimension is an int64 and the byte size fits in an array
    (``graphopt.memory_limits``): a type beyond them overflows on every
    machine, so it is refused where it is written."""
    check_dims_fit_i64(what, t)
    if not isinstance(t, TensorType) or t.element_type not in _NUMPY_OF:
        return
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return
    size = nbytes(shape, _NUMPY_OF[t.element_type].itemsize)
    reason = overflow_reason(size)
    if reason is not None:
        value = f"%{name}, {t}" if name else str(t)
        raise VerifyException(size_message(f"{what} ({value})", size, reason))


def tensor_of(value: SSAValue) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType)
    return t


def tensor_of_type(t: Attribute) -> TensorType:
    assert isinstance(t, TensorType)
    return t
