"""The names of a function's inputs and outputs, as its users know them.

An SSA name hint must be an MLIR identifier (``%gpu_0_data``), but a model's
interface keeps the names of its source: an ONNX input called
``gpu_0/data_0`` is fed as ``gpu_0/data_0``.  Such a name is carried by the
function itself, as the ``graph.name`` string of its argument and result
attribute dictionaries (``func.func`` ``arg_attrs`` / ``res_attrs``), so it
survives printing, parsing and every pass that keeps the function::

    func.func @main(%gpu_0_data: tensor<1x3x224x224xf32> {graph.name = "gpu_0/data_0"})
        -> (tensor<1x1000xf32> {graph.name = "gpu_0/softmax_1"})

The name of an input or output (:func:`input_names`, :func:`output_names`)
is its ``graph.name``, else the SSA name hint (of the argument, or of the
returned value), else none; the lowering records these names in the
driver's ``#loop.abi``, and the runtime calls an unnamed input ``arg<i>``
and an unnamed output ``out<i>``.

The verifier (:func:`check_interface_names`) wants every ``graph.name`` to be
a non-empty string, distinct from the other arguments' (and the other
results'), and at most one per argument and result.  This module is the one
place that reads or writes the key.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, BytesAttr, DictionaryAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "NAME_ATTR",
    "arg_source_names",
    "check_interface_names",
    "describe_argument",
    "input_names",
    "known_names",
    "name_list",
    "output_names",
    "result_source_names",
    "set_arg_source_names",
    "set_result_source_names",
    "text_of",
    "unique_name",
]

NAME_ATTR = "graph.name"
"""The key of an argument's or result's source name in its attribute dictionary."""


def text_of(attr: Attribute | None) -> str | None:
    """The text of a string attribute.  xDSL prints the bytes of a non-ASCII
    string as escapes (``"\\C3\\A9"``) and parses them back as a
    ``BytesAttr``; such bytes are read as the UTF-8 text they encode.  ``None``
    for anything else (or bytes that are not UTF-8)."""
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, BytesAttr):
        try:
            return attr.data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def _read(attrs: ArrayAttr[DictionaryAttr] | None, count: int) -> list[str | None]:
    names: list[str | None] = [None] * count
    if attrs is None:
        return names
    for i, d in enumerate(attrs.data[:count]):
        names[i] = text_of(d.data.get(NAME_ATTR)) or None
    return names


def _write(
    attrs: ArrayAttr[DictionaryAttr] | None, names: Sequence[str | None]
) -> ArrayAttr[DictionaryAttr] | None:
    """``attrs`` with one dictionary per name: its other entries kept, its
    ``graph.name`` set (or removed for ``None``); ``None`` when all are empty."""
    old = list(attrs.data) if attrs is not None else []
    dicts: list[DictionaryAttr] = []
    for i, name in enumerate(names):
        entries: dict[str, Attribute] = dict(old[i].data) if i < len(old) else {}
        entries.pop(NAME_ATTR, None)
        if name is not None:
            entries[NAME_ATTR] = StringAttr(name)
        dicts.append(DictionaryAttr(entries))
    if all(not d.data for d in dicts):
        return None
    return ArrayAttr(dicts)


def arg_source_names(fn: func.FuncOp) -> list[str | None]:
    """The ``graph.name`` of each argument (``None`` where it has none)."""
    return _read(fn.arg_attrs, len(fn.function_type.inputs.data))


def result_source_names(fn: func.FuncOp) -> list[str | None]:
    """The ``graph.name`` of each result (``None`` where it has none)."""
    return _read(fn.res_attrs, len(fn.function_type.outputs.data))


def set_arg_source_names(fn: func.FuncOp, names: Sequence[str | None]) -> None:
    """Give argument ``i`` the ``graph.name`` ``names[i]`` (none for ``None``),
    one entry per argument; other argument attributes are kept."""
    fn.arg_attrs = _write(fn.arg_attrs, names)


def set_result_source_names(fn: func.FuncOp, names: Sequence[str | None]) -> None:
    """Give result ``i`` the ``graph.name`` ``names[i]`` (none for ``None``),
    one entry per result; other result attributes are kept."""
    fn.res_attrs = _write(fn.res_attrs, names)


def input_names(fn: func.FuncOp) -> list[str | None]:
    """Each argument's name: its ``graph.name``, else its SSA name hint."""
    args = fn.body.block.args if fn.body.blocks else ()
    hints = [a.name_hint for a in args] + [None] * (len(fn.function_type.inputs.data) - len(args))
    return [source or hint for source, hint in zip(arg_source_names(fn), hints)]


def output_names(fn: func.FuncOp) -> list[str | None]:
    """Each result's name: its ``graph.name``, else the SSA name hint of the
    value the function returns there."""
    ret = fn.body.block.last_op if fn.body.blocks else None
    returned = list(ret.operands) if isinstance(ret, func.ReturnOp) else []
    hints = [v.name_hint for v in returned]
    hints += [None] * (len(fn.function_type.outputs.data) - len(hints))
    return [source or hint for source, hint in zip(result_source_names(fn), hints)]


#: A name that can be written as an SSA value (``%name``).
_SSA_NAME = re.compile(r"[A-Za-z_$.\-][A-Za-z0-9_$.\-]*")


def describe_argument(index: int, name: str | None) -> str:
    """``argument 0 (%x)`` for an SSA-like name, ``argument 0 ('gpu_0/data_0')``
    for any other, ``argument 0`` without a name (for diagnostics)."""
    if not name:
        return f"argument {index}"
    if _SSA_NAME.fullmatch(name):
        return f"argument {index} (%{name})"
    return f"argument {index} ({name!r})"


def name_list(names: Sequence[str]) -> str:
    """Names separated by commas; one that could be misread in that list
    (empty, or holding a comma, a space or a quote) is quoted."""
    return ", ".join(n if n and not re.search(r"[,\s'\"]", n) else repr(n) for n in names)


def known_names(key: str, known: Sequence[str]) -> str:
    """`` (it has a, b); did you mean 'a'?`` after "no input named '<key>'"."""
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f" (it has {name_list(known) or 'none'}){hint}"


def unique_name(base: str, taken: Iterable[str]) -> str:
    """``base``, or ``base_1``, ``base_2``... : the first not in ``taken``."""
    used = set(taken)
    if base not in used:
        return base
    n = 1
    while f"{base}_{n}" in used:
        n += 1
    return f"{base}_{n}"


def check_interface_names(fn: func.FuncOp) -> None:
    """Raise ``VerifyException`` unless every ``graph.name`` of ``fn`` is a
    non-empty string and no two arguments (or two results) share one."""
    where = f"func.func @{fn.sym_name.data}"
    signature = fn.function_type
    for kind, attrs, count in (
        ("argument", fn.arg_attrs, len(signature.inputs.data)),
        ("result", fn.res_attrs, len(signature.outputs.data)),
    ):
        if attrs is None:
            continue
        if len(attrs.data) != count:
            raise VerifyException(
                f"{where}: {len(attrs.data)} {kind} attribute dictionaries for {count} {kind}s"
            )
        seen: dict[str, int] = {}
        for index, d in enumerate(attrs.data):
            if NAME_ATTR not in d.data:
                continue
            value = d.data[NAME_ATTR]
            text = text_of(value)
            if not text:
                raise VerifyException(
                    f"{where}: {kind} #{index}: {NAME_ATTR} must be a non-empty string, got {value}"
                )
            if text in seen:
                raise VerifyException(
                    f"{where}: {kind}s #{seen[text]} and #{index} have the same "
                    f"{NAME_ATTR} {text!r}; the names of a function's {kind}s must differ"
                )
            seen[text] = index
