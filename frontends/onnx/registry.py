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

#: Op types never folded at import through onnx's reference evaluator: they
#: fold themselves (a splat stays one scalar), or their outputs may be large.
NOT_FOLDED: set[str] = {"Constant", "ConstantOfShape", "Shape", "Size", "Expand", "Tile", "Dropout", "Identity", "Range"}


def is_foldable(op_type: str) -> bool:
    """Nodes whose inputs are all small static values are evaluated at import
    (shape arithmetic of exported models: Shape -> Gather -> Concat -> Reshape)."""
    return op_type not in NOT_FOLDED


def converter(*op_types: str, domain: str = "", foldable: bool = True) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for op_type in op_types:
            CONVERTERS[(domain, op_type)] = fn
            if not foldable:
                NOT_FOLDED.add(op_type)
        return fn

    return register


def supported_op_types() -> list[str]:
    return sorted(op for dom, op in CONVERTERS if dom == "")
