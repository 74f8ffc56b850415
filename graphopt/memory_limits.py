"""How many bytes a value may take: what any array can hold, and what this
machine can.

* :data:`MAX_BYTES` (2**63 - 1) is numpy's largest array and the largest
  offset the compiled code's int64 index arithmetic reaches.  A tensor type
  whose byte size exceeds it overflows, on every machine: the verifier
  rejects it at the op or function that names it.
* :func:`machine_memory` is this machine's physical memory
  (``SC_PHYS_PAGES * SC_PAGE_SIZE``).  A value larger than it cannot be held
  here: the runtime refuses to allocate such an output or workspace, and
  graph-run such an input, before allocating anything.  Compiling allocates
  nothing, so it is not refused (the code may run on a larger machine).

Every refusal reads the same, wherever it is raised::

    @f: argument 0 (%x, tensor<100000x100000x100000xf32>) needs 4000000000000000 bytes,
    more than this machine's memory (25275580416 bytes)
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from functools import cache

from graphopt.errors import SizeError

#: The largest byte size of any array (numpy's ``np.iinfo(np.intp).max``).
MAX_BYTES = (1 << 63) - 1

__all__ = [
    "MAX_BYTES",
    "allocation_error",
    "check_fits",
    "machine_memory",
    "nbytes",
    "overflow_reason",
    "size_message",
    "too_large_reason",
]


@cache
def machine_memory() -> int | None:
    """This machine's physical memory in bytes, or ``None`` where unknown."""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page_size <= 0:
        return None
    return pages * page_size


def nbytes(shape: Sequence[int], itemsize: int) -> int:
    """The exact byte size of a dense array (a Python int: it never overflows)."""
    return math.prod(int(d) for d in shape) * itemsize


def overflow_reason(size: int) -> str | None:
    """Why ``size`` bytes overflow every array, or ``None`` if they do not."""
    if size > MAX_BYTES:
        return f"more than any array can hold (at most {MAX_BYTES} bytes)"
    return None


def too_large_reason(size: int) -> str | None:
    """Why ``size`` bytes cannot be allocated here, or ``None``."""
    reason = overflow_reason(size)
    if reason is not None:
        return reason
    memory = machine_memory()
    if memory is not None and size > memory:
        return f"more than this machine's memory ({memory} bytes)"
    return None


def size_message(what: str, size: int, reason: str) -> str:
    """``<what> needs <size> bytes, <reason>``: the one wording of a refusal."""
    return f"{what} needs {size} bytes, {reason}"


def allocation_error(what: str, size: int, err: BaseException) -> SizeError:
    """The error for an allocation that failed although it passed
    :func:`check_fits` (the memory is taken by others, or limited)."""
    reason = too_large_reason(size) or f"more than this process could allocate ({type(err).__name__})"
    return SizeError(size_message(what, size, reason))


def check_fits(what: str, size: int) -> None:
    """Raise :class:`SizeError` if ``size`` bytes cannot be allocated here;
    ``what`` names the value and its shape (``f: output 0 (%y, (4, 8) float32)``)."""
    reason = too_large_reason(size)
    if reason is not None:
        raise SizeError(size_message(what, size, reason))
