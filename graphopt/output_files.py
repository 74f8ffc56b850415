"""Writing outputs: every failure is one :class:`OutputError`, never a lost
or half-written file.

* :func:`write_output` writes one output: ``None`` or ``-`` is stdout; a
  regular file, or a new one, is written to a temporary file beside it,
  flushed, synced and closed, and only then renamed over the target, so an
  existing file is replaced by a complete new one or not at all;
* :func:`write_outputs` writes several files all or none (``graph-compile``'s
  library and header): every temporary file is complete before the first
  is renamed;
* :func:`checked_stdout` makes every write to ``sys.stdout`` in a tool's run
  (prints included, buffered by Python or not) raise :class:`OutputError`
  when it fails, so ``> /dev/full`` is one diagnostic and exit 1.

A target that exists but is not a regular file (``/dev/null``, ``/dev/full``,
a FIFO, a terminal) cannot be renamed over -- the rename would replace the
device node with a file -- so it is written in place, and its write, flush
and close are checked the same way.  A directory is refused.

Whatever fails (no space left, no permission, a read-only file system, a
missing folder, a failing flush or close), the temporary file is removed,
the old file is left as it was, and the error names the target and the
reason as the system gives it: ``cannot write 'out.mlir': No space left on
device``.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO

from graphopt.errors import OutputError

Data = str | bytes | Callable[[IO[bytes]], None]
"""Text, bytes, or a function that writes to a binary stream (``np.savez``)."""

__all__ = [
    "Data",
    "checked_stdout",
    "drop_unwritable_stdout",
    "write_output",
    "write_outputs",
    "write_stdout",
]


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def _emit(stream: IO[bytes], data: Data) -> None:
    if callable(data):
        data(stream)
    else:
        stream.write(data.encode() if isinstance(data, str) else data)


def _stdout_error(err: OSError) -> OutputError:
    return OutputError(f"cannot write to stdout: {_reason(err)}")


def write_stdout(data: Data) -> None:
    """Write ``data`` to stdout and flush it; a failed write is an error."""
    try:
        if callable(data) or isinstance(data, bytes):
            sys.stdout.flush()  # keep the order of earlier text output
            _emit(sys.stdout.buffer, data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
            sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as err:
        raise _stdout_error(err) from None


class _CheckedStream:
    """A stream whose failed write or flush is an :class:`OutputError`
    (a closed pipe stays a ``BrokenPipeError``); the rest is the stream's."""

    def __init__(self, stream: IO) -> None:
        self._stream = stream

    def _call(self, method: str, *args: object) -> object:
        try:
            return getattr(self._stream, method)(*args)
        except BrokenPipeError:
            raise
        except OSError as err:
            raise _stdout_error(err) from None

    def write(self, data: object) -> object:
        return self._call("write", data)

    def writelines(self, lines: object) -> object:
        return self._call("writelines", lines)

    def flush(self) -> object:
        return self._call("flush")

    @property
    def buffer(self) -> _CheckedStream:
        return _CheckedStream(self._stream.buffer)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


@contextmanager
def checked_stdout() -> Iterator[None]:
    """Within the block, a failed write to ``sys.stdout`` (a print, a flush,
    whether Python buffers stdout or not) raises :class:`OutputError`."""
    original = sys.stdout
    sys.stdout = _CheckedStream(original)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout = original


def drop_unwritable_stdout() -> None:
    """After a failed write, point stdout at the null device if it still
    cannot be flushed, so that the interpreter's own flush at exit does not
    fail (and print) again."""
    try:
        sys.stdout.flush()
    except OSError:
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass


def _sync(fd: int) -> None:
    """Ask the file system to store the data now, so that a write it would
    only refuse later (a full disk, a quota) is reported here."""
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise  # EINVAL etc.: this file system does not sync; nothing to report


def _target(path: str) -> tuple[str, os.stat_result | None]:
    """The file to write (symbolic links followed) and its status, if it exists."""
    target = os.path.realpath(path)
    try:
        return target, os.stat(target)
    except FileNotFoundError:
        return target, None
    except OSError as err:
        raise OutputError(f"cannot write '{path}': {_reason(err)}") from None


def _write_in_place(path: str, target: str, data: Data) -> None:
    """A device, FIFO or terminal: written directly, every step checked."""
    try:
        with open(target, "wb") as stream:
            _emit(stream, data)
            stream.flush()
    except OSError as err:
        raise OutputError(f"cannot write '{path}': {_reason(err)}") from None


def _mode_for(target: str, existing: os.stat_result | None) -> int:
    if existing is not None:
        return existing.st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_temporary(path: str, target: str, existing: os.stat_result | None, data: Data) -> str:
    """A complete, synced temporary file beside ``target``; its path."""
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write '{path}': no such directory '{folder}'")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", dir=folder)
    except OSError as err:
        raise OutputError(f"cannot write '{path}': {_reason(err)}") from None
    try:
        with os.fdopen(fd, "wb") as stream:
            _emit(stream, data)
            stream.flush()
            _sync(stream.fileno())
        os.chmod(tmp, _mode_for(target, existing))
    except BaseException as err:
        _remove(tmp)
        if isinstance(err, OSError):
            raise OutputError(f"cannot write '{path}': {_reason(err)}") from None
        raise
    return tmp


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def write_outputs(outputs: Sequence[tuple[str, Data]]) -> None:
    """Write every ``(path, data)``; a failure leaves every file as it was.

    The files' temporary copies are written first, then the targets that are
    devices (which cannot be undone), and only then are the copies renamed."""
    pending: list[tuple[str, str, str]] = []  # (path, temporary file, target)
    in_place: list[tuple[str, str, Data]] = []
    try:
        for path, data in outputs:
            target, existing = _target(path)
            if existing is not None and stat.S_ISDIR(existing.st_mode):
                raise OutputError(f"cannot write '{path}': it is a directory")
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                in_place.append((path, target, data))
                continue
            pending.append((path, _write_temporary(path, target, existing, data), target))
        for path, target, data in in_place:
            _write_in_place(path, target, data)
        for path, tmp, target in pending:
            try:
                os.replace(tmp, target)
            except OSError as err:
                raise OutputError(f"cannot write '{path}': {_reason(err)}") from None
    finally:
        for _, tmp, _ in pending:
            if os.path.lexists(tmp):
                _remove(tmp)


def write_output(path: str | None, data: Data) -> None:
    """Write ``data`` to ``path`` (``None`` or ``-``: stdout), atomically for
    a regular file (see the module docstring)."""
    if path is None or path == "-":
        write_stdout(data)
    else:
        write_outputs([(path, data)])
