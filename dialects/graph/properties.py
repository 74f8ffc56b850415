"""Reading and building op properties, one way each.

A DenseArray property (axes, perm, strides...) is read with ``int_values`` and
built with ``dense_i64_array``; an f64 property (eps, alpha, rate...) is built
with ``f64_attr`` and read with ``float_value``; an i64 one is read with
``int_value``.  ``property_value`` reads any of them, a ``UnitAttr`` flag as
``True``: it is how the verifier hands an op's properties to the op's type
inference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from xdsl.dialects.builtin import DenseArrayBase, Float64Type, FloatAttr, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Attribute


def dense_i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


@overload
def int_values(attr: DenseArrayBase) -> tuple[int, ...]: ...
@overload
def int_values(attr: None) -> None: ...
def int_values(attr: DenseArrayBase | None) -> tuple[int, ...] | None:
    return None if attr is None else tuple(int(v) for v in attr.get_values())


def f64_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), Float64Type())


def float_value(attr: FloatAttr) -> float:
    return float(attr.value.data)


def int_value(attr: IntegerAttr) -> int:
    return int(attr.value.data)


def property_value(attr: Attribute) -> object:
    """The Python value of a property: ints, floats, int tuples, True for a flag."""
    if isinstance(attr, DenseArrayBase):
        return int_values(attr)
    if isinstance(attr, IntegerAttr):
        return int_value(attr)
    if isinstance(attr, FloatAttr):
        return float_value(attr)
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, StringAttr):
        return attr.data
    raise TypeError(f"no Python value for property {attr}")
