"""graph-run's inputs: loaded from an ``.npz``/``.npy``, or drawn at random,
and the size check that comes before either.

* :func:`check_sizes` refuses, before anything is allocated, an argument
  (that ``--random-inputs`` would draw) or a result of the entry larger
  than this machine's memory (``graphopt.memory_limits``), at the function;
* :func:`random_inputs` draws each argument directly in its dtype;
* :func:`load_inputs` reads them by argument name (an ONNX input's name as
  its file writes it, else the SSA name; or ``arg0``, ``arg1``...), with one
  diagnostic for a missing, corrupt or non-numeric array;
* :func:`named_inputs` reads ``--input NAME=FILE`` (an ``.npy`` or a
  TensorProto ``.pb``).
"""

from __future__ import annotations

import difflib
import os
import zipfile
import zlib
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from graphopt.diagnostics import UserError, attach_location
from graphopt.dialects import graph
from graphopt.dialects.graph import numpy_dtype
from graphopt.errors import SizeError
from graphopt.memory_limits import allocation_error, nbytes, size_message, too_large_reason

__all__ = ["check_sizes", "find_input", "input_keys", "load_array", "load_inputs", "named_inputs", "random_inputs"]


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


def input_keys(fn: func.FuncOp) -> list[list[str]]:
    """The names each argument may be given by, in order: its name (its source
    name -- an ONNX input's name as the file writes it -- else its SSA name),
    then ``arg<i>`` unless another argument is called that."""
    names = graph.input_names(fn)
    taken = {n for n in names if n}
    return [
        [k for k in (n, f"arg{i}") if k and (k == n or k not in taken)]
        for i, n in enumerate(names)
    ]


def find_input(fn: func.FuncOp, key: str) -> int | None:
    """The index of the argument ``key`` names (see :func:`input_keys`)."""
    keys = input_keys(fn)
    for rank in (0, 1):  # names first, then arg<i>
        for i, ks in enumerate(keys):
            if len(ks) > rank and ks[rank] == key:
                return i
    return None


def load_inputs(path: str, fn: func.FuncOp) -> list[np.ndarray]:
    """Inputs from an ``.npz`` (keyed by argument name -- an ONNX model's input
    names as its file writes them -- or ``arg0``, ``arg1``...), or from an
    ``.npy`` when the function takes one argument."""
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
        for i, keys in enumerate(input_keys(fn)):
            found = next((k for k in keys if k in data.files), None)
            if found is None:
                close = difflib.get_close_matches(keys[0], data.files, n=1)
                hint = f"; did you mean '{close[0]}'?" if close and close[0] not in keys else ""
                raise UserError(
                    f"'{path}' has no array for argument {i} (tried {graph.name_list(keys)}; "
                    f"it holds {graph.name_list(data.files) or 'nothing'}){hint}"
                )
            arrays.append(_read_array(data, found, path))
    return arrays


def load_array(path: str, what: str) -> np.ndarray:
    """One array from an ``.npy`` file, or from a TensorProto ``.pb`` (ONNX's
    ``input_N.pb``)."""
    if path.lower().endswith(".pb"):
        from graphopt.frontends.onnx.testdata import read_tensor

        if not os.path.isfile(path):
            raise UserError(f"{what}: cannot open '{path}': no such file")
        return read_tensor(path)
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise UserError(f"{what}: cannot open '{path}': no such file") from None
    except IsADirectoryError:
        raise UserError(f"{what}: cannot open '{path}': it is a directory") from None
    except Exception as err:  # noqa: BLE001 - not an npy
        raise UserError(f"{what}: cannot read '{path}': {err}") from None
    if not isinstance(data, np.ndarray):
        data.close()
        raise UserError(f"{what}: '{path}' is not an .npy file (one array) or a TensorProto .pb")
    if data.dtype.kind not in "biuf":
        raise UserError(f"{what}: '{path}' has dtype {data.dtype}, not a number type")
    return data


def named_inputs(specs: Sequence[str], fn: func.FuncOp) -> dict[int, np.ndarray]:
    """``--input NAME=FILE`` arrays by argument index.  ``NAME`` is an input's
    name (an ONNX name may hold ``/``, ``:`` or ``=``: the split is at the
    first ``=`` whose left side names an input) or ``arg<i>``."""
    given: dict[int, np.ndarray] = {}
    where = f"@{fn.sym_name.data}"
    for spec in specs:
        cuts = [i for i, ch in enumerate(spec) if ch == "="]
        found = next(
            ((c, index) for c in cuts if (index := find_input(fn, spec[:c])) is not None), None
        )
        if not cuts or (found is not None and found[0] == len(spec) - 1):
            hint = "; an .npz or a test_data_set directory of all inputs is --inputs" if not cuts else ""
            raise UserError(
                f"invalid --input '{spec}': expected NAME=FILE (an .npy file or a TensorProto .pb){hint}"
            )
        if found is None:
            name = spec[: cuts[0]]
            known = [keys[0] for keys in input_keys(fn)]
            raise UserError(f"--input '{spec}': {where} has no input named '{name}'{graph.known_names(name, known)}")
        cut, index = found
        name, path = spec[:cut], spec[cut + 1 :]
        if index in given:
            raise UserError(f"--input '{spec}': input '{name}' of {where} is given twice")
        given[index] = load_array(path, f"--input '{name}'")
    return given
