"""Reading and building op properties, one way each.

A DenseArray property (axes, perm, strides...) is read with ``int_values`` and
built with ``dense_i64_array``; an f64 property (eps, alpha, rate...) is built
with ``f64_attr`` and read with ``float_value``; an i64 one is read with
``int_value``.  ``property_value`` reads any of them, a ``UnitAttr`` flag as
``True``: it is how the verifier hands an op's properties to the op's type
inference.  ``property_attribute`` goes the other way, as the property's
declared attribute type says: it is how an op's constructor takes Python
values.  ``PropertyValue`` is the op-class accessor that reads one property's
Python value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

from xdsl.dialects.builtin import DenseArrayBase, Float64Type, FloatAttr, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Attribute
from xdsl.irdl import OptPropertyDef, PropertyDef


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


def _flag(value: object) -> UnitAttr | None:
    return UnitAttr() if value else None


#: How a Python value becomes an attribute of each declared property type.
_FROM_PYTHON: dict[type[Attribute], Callable[[Any], Attribute | None]] = {
    DenseArrayBase: dense_i64_array,
    IntegerAttr: lambda v: IntegerAttr(int(v), i64),
    FloatAttr: f64_attr,
    UnitAttr: _flag,
    StringAttr: StringAttr,
}


def property_attribute(name: str, definition: PropertyDef | OptPropertyDef, value: object) -> Attribute | None:
    """The attribute of property ``name`` holding ``value``: an attribute is
    kept, ``None`` (and ``False`` for a flag) leaves the property out, and a
    Python value is converted as the property's declared type says (int
    sequence -> ``array<i64>``, int -> i64, float -> f64, bool -> flag, str)."""
    if value is None or isinstance(value, Attribute):
        return value
    builders = [_FROM_PYTHON[b] for b in definition.constr.get_bases() or () if b in _FROM_PYTHON]
    if len(builders) != 1:
        raise TypeError(f"property '{name}' takes an attribute, not the Python value {value!r}")
    return builders[0](value)


def property_attributes(
    definitions: Mapping[str, PropertyDef | OptPropertyDef], values: Mapping[str, object]
) -> dict[str, Attribute]:
    """:func:`property_attribute` of each value, in the given order, the absent
    ones left out; a name the op does not declare is a ``TypeError``."""
    out: dict[str, Attribute] = {}
    for name, value in values.items():
        if name not in definitions:
            raise TypeError(f"no property '{name}' (the op has {', '.join(definitions) or 'none'})")
        attr = property_attribute(name, definitions[name], value)
        if attr is not None:
            out[name] = attr
    return out


class PropertyValue(property):
    """An op-class accessor for the Python value of one of the class's own
    properties (:func:`property_value`), or ``default`` when it is absent
    (``False`` for a flag):

        rate = prop_def(FloatAttr[Float64Type])
        training = opt_prop_def(UnitAttr)
        rate_value = PropertyValue(rate)
        is_training = PropertyValue(training, default=False)
    """

    def __init__(self, field: object, default: object = None):
        self._field = field
        self._default = default
        self._accessor = ""
        super().__init__(self._read, doc=f"The Python value of the property (default {default!r}).")

    def __set_name__(self, owner: type, name: str) -> None:
        found = [k for k, v in vars(owner).items() if v is self._field]
        if len(found) != 1:
            raise TypeError(f"{owner.__name__}.{name}: its property is not defined in the same class")
        self._accessor = found[0]

    def _read(self, op: object) -> Any:
        attr = getattr(op, self._accessor)
        return self._default if attr is None else property_value(attr)
