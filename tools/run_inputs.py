"""graph-run's inputs: loaded from an ``.npz``/``.npy``, or drawn at random,
and the size check that comes before either.

* :func:`check_sizes` refuses, before anything is allocated, an argument
  (that ``--random-inputs`` would draw) or a result of the entry larger
  than this machine's memory (``graphopt.memory_limits``), at the function;
* :func:`random_inputs` draws each argument directly in its dtype;
* :func:`load_inputs` reads them by argument name (or ``arg0``, ``arg1``...),
  with one diagnostic for a missing, corrupt or non-numeric array.
"""

from __future__ import annotations

import zipfile
import zlib

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from graphopt.diagnostics import UserError, attach_location
from graphopt.dialects.graph import numpy_dtype
from graphopt.errors import SizeError
from graphopt.memory_limits import allocation_error, nbytes, size_message, too_large_reason

__all__ = ["check_sizes", "load_inputs", "random_inputs"]


def _values(fn: func.FuncOp, kind: str) -> list[tuple[str, TensorType]]:
    """``("@f: argument 0 (%x, tensor<...>)", type)`` for each argument
    (``kind="argument"``) or result of ``fn``."""
    names = [a.name_hint for a in fn.body.block.args]
    types = fn.function_type.inputs.data if kind == "argument" else fn.function_type.outputs.data
    values = []
    for i, t in enumerate(types):
        assert isinstance(t, TensorType)
        name = names[i] if kind == "argument" else None
        values.append((f"@{fn.sym_name.data}: {kind} {i} ({f'%{name}, ' if name else ''}{t})", t))
    return values


def _nbytes(t: TensorType) -> int:
    return nbytes(t.get_shape(), numpy_dtype(t.element_type).itemsize)


def check_sizes(fn: func.FuncOp, arguments: bool = True) -> None:
    """Refuse, before anything is allocated, an argument (that
    ``--random-inputs`` would draw) or a result larger than this machine's
    memory: one :class:`SizeError` at the function."""
    values = (_values(fn, "argument") if arguments else []) + _values(fn, "result")
    for what, t in values:
        size = _nbytes(t)
        reason = too_large_reason(size)
        if reason is not None:
            raise attach_location(SizeError(size_message(what, size, reason)), fn)


def random_inputs(fn: func.FuncOp, seed: int) -> list[np.ndarray]:
    """Standard-normal floats, small integers and fair booleans, per argument,
    drawn directly in the argument's dtype (no float64 temporaries)."""
    rng = np.random.default_rng(seed)
    arrays: list[np.ndarray] = []
    for what, t in _values(fn, "argument"):
        shape = tuple(t.get_shape())
        dtype = numpy_dtype(t.element_type)
        try:
            if dtype in (np.float32, np.float64):
                arrays.append(rng.standard_normal(shape, dtype=dtype))
            elif dtype.kind == "f":
                arrays.append(rng.standard_normal(shape, dtype=np.float32).astype(dtype))
            elif dtype.kind == "b":
                arrays.append(rng.integers(0, 2, size=shape, dtype=np.bool_))
            else:
                arrays.append(rng.integers(-8, 8, size=shape, dtype=dtype))
        except (MemoryError, ValueError) as err:
            raise attach_location(allocation_error(what, _nbytes(t), err), fn) from None
    return arrays


def _read_array(data: np.lib.npyio.NpzFile, key: str, path: str) -> np.ndarray:
    try:
        array = data[key]
    except ValueError as err:
        if "allow_pickle" in str(err):
            raise UserError(
                f"'{path}': array '{key}' holds Python objects; save numeric arrays "
                "(np.savez with arrays of numbers or booleans)"
            ) from None
        raise UserError(f"cannot read array '{key}' from '{path}': {err}") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, KeyError) as err:
        raise UserError(f"cannot read array '{key}' from '{path}': it is corrupt ({err})") from None
    if array.dtype.kind not in "biuf":
        raise UserError(f"'{path}': array '{key}' has dtype {array.dtype}, not a number type")
    return array


def load_inputs(path: str, fn: func.FuncOp) -> list[np.ndarray]:
    """Inputs from an ``.npz`` (keyed by argument name, or ``arg0``, ``arg1``...),
    or from an ``.npy`` when the function takes one argument."""
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise UserError(f"cannot open '{path}': no such file") from None
    except IsADirectoryError:
        raise UserError(f"cannot open '{path}': it is a directory") from None
    except ValueError as err:
        if "allow_pickle" in str(err):
            raise UserError(f"'{path}' holds Python objects; save numeric arrays") from None
        raise UserError(f"cannot read inputs from '{path}': {err}") from None
    except Exception as err:  # noqa: BLE001 - not an npz or npy
        raise UserError(f"cannot read inputs from '{path}': {err}") from None
    args = fn.body.block.args
    if isinstance(data, np.ndarray):
        if len(args) != 1:
            raise UserError(
                f"'{path}' holds one array, but @{fn.sym_name.data} takes {len(args)} "
                "inputs; save them in one .npz"
            )
        if data.dtype.kind not in "biuf":
            raise UserError(f"'{path}' has dtype {data.dtype}, not a number type")
        return [data]
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise UserError(f"cannot read inputs from '{path}': not an .npz or .npy file")
    with data:
        arrays: list[np.ndarray] = []
        for i, arg in enumerate(args):
            keys = [k for k in (arg.name_hint, f"arg{i}") if k]
            found = next((k for k in keys if k in data.files), None)
            if found is None:
                raise UserError(
                    f"'{path}' has no array for argument {i} (tried {', '.join(keys)}; "
                    f"it holds {', '.join(data.files) or 'nothing'})"
                )
            arrays.append(_read_array(data, found, path))
    return arrays
