"""Failed writes: one error, no partial file, the old file unchanged.

Every output goes through ``graphopt.output_files``: ``-o`` of graph-opt
(IR, DOT, LLVM IR, object code), graph-run's ``--output`` (.npz),
graph-compile's library and header, graph-import's ``-o``.  A failure at
any step -- creating the temporary file (EACCES, EROFS), writing it
(ENOSPC), flushing, syncing or closing it -- raises ``OutputError``; the
tools print it as one diagnostic and exit 1.

The failures are simulated with mocks, which always run, and, where this
process may mount file systems (root), on a real 64 KiB tmpfs and a
read-only bind mount.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from graphopt import output_files
from graphopt.errors import OutputError
from graphopt.output_files import write_output, write_outputs
from graphopt.tools import graph_compile, graph_opt, graph_run

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "examples" / "mlp.mlir")
OLD = b"the old contents\n"
BIG = "x" * (1 << 20)  # more than the small tmpfs holds


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n not in keep)


def _enospc(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _FailingStream(io.FileIO):
    """A file whose write, flush or close fails as ``failing`` says, after
    doing the real work (as a full disk reports it late)."""

    failing = "write"

    def write(self, data):  # type: ignore[override]
        if self.failing == "write":
            super().write(data[: len(data) // 2])
            _enospc()
        return super().write(data)

    def flush(self) -> None:
        super().flush()
        if self.failing == "flush":
            _enospc()

    def close(self) -> None:
        closed = self.closed
        super().close()
        if self.failing == "close" and not closed:
            _enospc()


@pytest.fixture
def failing(monkeypatch):
    """``failing(step)``: the next temporary files fail at ``step``."""

    def arm(step: str) -> None:
        def fdopen(fd, mode="r", *args, **kwargs):
            stream = _FailingStream(fd, "wb", closefd=True)
            stream.failing = step
            return stream

        if step == "sync":
            monkeypatch.setattr(output_files.os, "fsync", _enospc)
        elif step in ("EACCES", "EROFS"):
            code = getattr(errno, step)

            def refuse(*_args, **_kwargs):
                raise OSError(code, os.strerror(code))

            monkeypatch.setattr(output_files.tempfile, "mkstemp", refuse)
        else:
            monkeypatch.setattr(output_files.os, "fdopen", fdopen)

    return arm


# -- the writer itself -------------------------------------------------------------


@pytest.mark.parametrize("step", ["write", "flush", "close", "sync", "EACCES", "EROFS"])
@pytest.mark.parametrize("data", ["text", b"bytes", "callable"])
def test_a_failed_write_keeps_the_old_file(tmp_path, failing, step, data) -> None:
    target = tmp_path / "out.mlir"
    target.write_bytes(OLD)
    failing(step)
    payload = (lambda f: f.write(b"from a callable" * 1000)) if data == "callable" else data * 1000
    with pytest.raises(OutputError, match=r"^cannot write '.*out\.mlir': ") as info:
        write_output(str(target), payload)
    reason = {"EACCES": "Permission denied", "EROFS": "Read-only file system"}
    assert str(info.value).endswith(reason.get(step, "No space left on device"))
    assert target.read_bytes() == OLD
    assert _leftovers(tmp_path, {"out.mlir"}) == []


@pytest.mark.parametrize("step", ["write", "close", "sync"])
def test_a_failed_write_creates_no_file(tmp_path, failing, step) -> None:
    failing(step)
    with pytest.raises(OutputError, match="No space left on device"):
        write_output(str(tmp_path / "new.mlir"), "text")
    assert _leftovers(tmp_path, set()) == []


def test_a_successful_write_keeps_the_mode_and_follows_links(tmp_path) -> None:
    target = tmp_path / "out.mlir"
    target.write_bytes(OLD)
    target.chmod(0o640)
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    write_output(str(link), "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _leftovers(tmp_path, {"out.mlir", "link.mlir"}) == []


def test_a_directory_is_refused(tmp_path) -> None:
    with pytest.raises(OutputError, match=r"cannot write '.*': it is a directory"):
        write_output(str(tmp_path), "text")


def test_several_files_are_written_all_or_none(tmp_path) -> None:
    lib, header = tmp_path / "lib.so", tmp_path / "lib.h"
    lib.write_bytes(OLD)
    with pytest.raises(OutputError, match="no such directory"):
        write_outputs([(str(lib), b"new library"), (str(tmp_path / "no" / "lib.h"), "header")])
    assert lib.read_bytes() == OLD
    with pytest.raises(OutputError, match="it is a directory"):
        write_outputs([(str(lib), b"new library"), (str(tmp_path), "header")])
    assert lib.read_bytes() == OLD and _leftovers(tmp_path, {"lib.so"}) == []
    write_outputs([(str(lib), b"new library"), (str(header), "header")])
    assert lib.read_bytes() == b"new library" and header.read_text() == "header"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_device_is_written_in_place_and_fails(tmp_path) -> None:
    if not stat.S_ISCHR(os.stat("/dev/full").st_mode):
        pytest.skip("/dev/full is not the full device here")
    with pytest.raises(OutputError, match="^cannot write '/dev/full': No space left on device$"):
        write_output("/dev/full", "text")
    lib = tmp_path / "lib.so"
    lib.write_bytes(OLD)
    with pytest.raises(OutputError, match="/dev/full"):  # the device first: the file is kept
        write_outputs([(str(lib), b"new"), ("/dev/full", "header")])
    assert lib.read_bytes() == OLD and _leftovers(tmp_path, {"lib.so"}) == []
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_is_written_in_place(tmp_path) -> None:
    """A target that is not a regular file is never renamed over."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(str(fifo), "through the pipe")
    reader.join()
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# -- the tools ---------------------------------------------------------------------


def _diagnostic(capsys, tool: str) -> str:
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{tool}: error: cannot write "), err
    return lines[0]


@pytest.mark.parametrize(
    "flags", [[], ["-t", "dot"], ["-O2", "-t", "llvm"], ["-O2", "-t", "obj"]], ids=["mlir", "dot", "llvm", "obj"]
)
def test_graph_opt_output_under_a_failed_write(tmp_path, failing, capsys, flags) -> None:
    out = tmp_path / "out"
    out.write_bytes(OLD)
    failing("close")
    assert graph_opt.main([MLP, *flags, "-o", str(out)]) == 1
    assert _diagnostic(capsys, "graph-opt").endswith("No space left on device")
    assert out.read_bytes() == OLD and _leftovers(tmp_path, {"out"}) == []


def test_graph_run_npz_output_under_a_failed_write(tmp_path, failing, capsys) -> None:
    out = tmp_path / "out.npz"
    out.write_bytes(OLD)
    failing("write")
    assert graph_run.main([MLP, "--output", str(out)]) == 1
    assert _diagnostic(capsys, "graph-run").endswith("No space left on device")
    assert out.read_bytes() == OLD and _leftovers(tmp_path, {"out.npz"}) == []


def test_graph_run_npz_output_when_it_succeeds(tmp_path) -> None:
    out = tmp_path / "out.npz"
    assert graph_run.main([MLP, "--output", str(out)]) == 0
    assert np.load(out)["out0"].shape == (4, 10)


@pytest.mark.parametrize("step", ["write", "sync", "EROFS"])
def test_graph_compile_under_a_failed_write(tmp_path, failing, capsys, step) -> None:
    lib, header = tmp_path / "libm.so", tmp_path / "libm.h"
    lib.write_bytes(OLD)
    header.write_bytes(OLD)
    failing(step)
    assert graph_compile.main([MLP, "-o", str(lib)]) == 1
    _diagnostic(capsys, "graph-compile")
    assert lib.read_bytes() == OLD and header.read_bytes() == OLD
    assert _leftovers(tmp_path, {"libm.so", "libm.h"}) == []


def test_graph_import_output_under_a_failed_write(tmp_path, failing, capsys) -> None:
    onnx = pytest.importorskip("onnx")
    from graphopt.tools import graph_import

    model = Path(onnx.__file__).parent / "backend/test/data/light/light_squeezenet.onnx"
    if not model.exists():
        pytest.skip("the onnx package has no light models here")
    out = tmp_path / "m.mlir"
    out.write_bytes(OLD)
    failing("flush")
    assert graph_import.main([str(model), "-o", str(out)]) == 1
    _diagnostic(capsys, "graph-import")
    assert out.read_bytes() == OLD and _leftovers(tmp_path, {"m.mlir"}) == []


# -- real file systems (where this process may mount them) --------------------------


def _mount(args: list[str], where: Path) -> Iterator[Path]:
    where.mkdir()
    done = subprocess.run(["mount", *args, str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)


@pytest.fixture
def small_tmpfs(tmp_path) -> Iterator[Path]:
    """A 64 KiB tmpfs (root only); the test is skipped where mount is refused."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    yield from _mount(["-t", "tmpfs", "-o", "size=64k", "tmpfs"], tmp_path / "small")


@pytest.fixture
def read_only(tmp_path) -> Iterator[Path]:
    """A read-only bind mount of a folder holding ``old.mlir``."""
    if os.geteuid() != 0:
        pytest.skip("a bind mount needs root")
    source = tmp_path / "source"
    source.mkdir()
    (source / "old.mlir").write_bytes(OLD)
    yield from _mount(["--bind", "-o", "ro", str(source)], tmp_path / "ro")


def test_a_full_tmpfs(small_tmpfs, capsys) -> None:
    target = small_tmpfs / "out.mlir"
    target.write_bytes(OLD)
    with pytest.raises(OutputError, match="No space left on device"):
        write_output(str(target), BIG)
    assert target.read_bytes() == OLD and _leftovers(small_tmpfs, {"out.mlir"}) == []
    filler = small_tmpfs / "filler"  # now fill it, so even a small output fails
    with pytest.raises(OSError):
        filler.write_bytes(b"\0" * (64 << 10))
    assert graph_opt.main([MLP, "-o", str(target)]) == 1
    assert _diagnostic(capsys, "graph-opt").endswith("No space left on device")
    assert target.read_bytes() == OLD and _leftovers(small_tmpfs, {"out.mlir", "filler"}) == []


def test_a_read_only_file_system(read_only, capsys) -> None:
    target = read_only / "old.mlir"
    assert graph_opt.main([MLP, "-o", str(target)]) == 1
    assert _diagnostic(capsys, "graph-opt").endswith("Read-only file system")
    assert target.read_bytes() == OLD and _leftovers(read_only, {"old.mlir"}) == []
    assert graph_run.main([MLP, "--output", str(read_only / "new.npz")]) == 1
    assert _diagnostic(capsys, "graph-run").endswith("Read-only file system")
