"""Reading and building op properties, one way each.

A DenseArray property (axes, perm, strides...) is read with ``int_values`` and
built with ``dense_i64_array``; an f64 property (eps, alpha, rate...) is built
with ``f64_attr`` and read with ``float_value``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, Float64Type, FloatAttr, i64


def dense_i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def int_values(attr: DenseArrayBase | None) -> tuple[int, ...] | None:
    return None if attr is None else tuple(attr.get_values())  # type: ignore[arg-type]


def f64_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), Float64Type())
