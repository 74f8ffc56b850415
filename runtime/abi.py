"""The driver ABI as the runtime sees it: read from the lowered module only.

``lower-graph-to-loop`` marks every driver with ``#loop.abi`` (see
:mod:`graphopt.dialects.loop`) and ``lower-loop-to-llvm`` keeps it on the
``llvm.func``, adding the large constants it turned into trailing pointer
arguments.  :func:`read_drivers` turns those attributes into
:class:`DriverInfo`; nothing else about a driver is known to the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.utils.exceptions import DiagnosticException

from graphopt.dialects import loop
from graphopt.lowering.to_llvm.common import dense_to_numpy, numpy_dtype

__all__ = ["DriverInfo", "HiddenConstant", "dense_to_numpy", "numpy_dtype", "read_drivers"]


@dataclass
class HiddenConstant:
    """A large constant passed to a driver as a trailing pointer argument."""

    type: MemRefType
    array: np.ndarray


@dataclass
class DriverInfo:
    """Signature of one driver, as recorded by ``#loop.abi``."""

    name: str
    input_types: list[MemRefType]
    output_types: list[MemRefType]
    workspace_bytes: int
    input_names: list[str | None] = field(default_factory=list)
    output_names: list[str | None] = field(default_factory=list)
    hidden_constants: list[HiddenConstant] = field(default_factory=list)

    @property
    def num_params(self) -> int:
        return len(self.input_types) + len(self.output_types) + 1 + len(self.hidden_constants)

    @staticmethod
    def from_abi(name: str, abi: loop.DriverABIAttr) -> DriverInfo:
        def memref(t: TensorType) -> MemRefType:
            return MemRefType(t.element_type, t.get_shape())

        constants = []
        for c in abi.constants:
            t = c.get_type()
            assert isinstance(t, TensorType)
            constants.append(HiddenConstant(memref(t), dense_to_numpy(c)))
        return DriverInfo(
            name=name,
            input_types=[memref(t) for t in abi.input_types],
            output_types=[memref(t) for t in abi.output_types],
            workspace_bytes=abi.workspace_bytes.data,
            input_names=[n.data or None for n in abi.input_names],
            output_names=[n.data or None for n in abi.output_names],
            hidden_constants=constants,
        )


def read_drivers(module: ModuleOp) -> dict[str, DriverInfo]:
    """Every driver of an llvm-level module, from its ``#loop.abi``."""
    drivers: dict[str, DriverInfo] = {}
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and (abi := loop.get_driver_abi(op)) is not None:
            name = op.sym_name.data
            info = DriverInfo.from_abi(name, abi)
            if len(op.function_type.inputs) != info.num_params:
                raise DiagnosticException(
                    f"driver @{name}: #loop.abi describes {info.num_params} arguments, "
                    f"the function has {len(op.function_type.inputs)}"
                )
            drivers[name] = info
    return drivers
