"""The table of ONNX op converters, keyed by (domain, op type).

A converter receives the import context and one ``NodeProto`` and returns
the node's outputs: graph values (``SSAValue``) or import-time constants
(:class:`Static`), one per node output (``None`` for an output not produced).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphopt.frontends.onnx.importer import NodeContext

Converter = Callable[["NodeContext"], list[Any]]

#: (domain, op type) -> converter; the default domain is "".
CONVERTERS: dict[tuple[str, str], Converter] = {}

#: Op types whose outputs are folded at import when every input is static
#: (shape arithmetic of exported models: Shape -> Gather -> Concat -> Reshape).
FOLDABLE: set[str] = set()


def converter(*op_types: str, domain: str = "", foldable: bool = False) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for op_type in op_types:
            CONVERTERS[(domain, op_type)] = fn
            if foldable:
                FOLDABLE.add(op_type)
        return fn

    return register


def supported_op_types() -> list[str]:
    return sorted(op for dom, op in CONVERTERS if dom == "")
