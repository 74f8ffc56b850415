"""What graph-opt and graph-run do differently when writing to a terminal."""

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run_on_tty(args, tty_stream):
    """Run a tool with stdout or stderr on a pseudo-terminal; return (tty text, other)."""
    master, slave = pty.openpty()
    kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    kwargs[tty_stream] = slave
    proc = subprocess.Popen(args, cwd=ROOT, **kwargs)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    other_stream = proc.stderr if tty_stream == "stdout" else proc.stdout
    other = other_stream.read().decode()
    proc.wait()
    os.close(master)
    return b"".join(chunks).decode(), other, proc.returncode


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_large_constants_are_elided_on_a_terminal_only():
    example = str(ROOT / "examples" / "mlp.mlir")
    shown, _, rc = _run_on_tty([str(BIN / "graph-opt"), example], "stdout")
    assert rc == 0
    assert "dense_resource<__elided__> : tensor<16x32xf32>" in shown
    assert max(len(line) for line in shown.splitlines()) < 200
    piped = subprocess.run([str(BIN / "graph-opt"), example], capture_output=True, text=True)
    assert "__elided__" not in piped.stdout and '%w1 = graph.constant dense<"0x' in piped.stdout
    # The flag overrides the default either way.
    shown, _, _ = _run_on_tty(
        [str(BIN / "graph-opt"), example, "--mlir-elide-elementsattrs-if-larger=-1"], "stdout"
    )
    assert "__elided__" not in shown


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_graph_run_progress_goes_to_a_terminal_after_a_second():
    from graphopt.tools.cli import Progress

    quiet = Progress("graph-run", "auto", after=1.0)
    quiet.enabled = True  # as on a terminal
    quiet.step("parse", 0.01)
    assert quiet.held and not quiet.live  # a fast compile stays silent
    loud = Progress("graph-run", "auto", after=0.0)
    loud.enabled = True
    loud.step("parse", 0.01)
    assert loud.live and not loud.held
    # On a real terminal the steps appear on stderr.
    example = str(ROOT / "examples" / "mlp.mlir")
    text, out, rc = _run_on_tty(
        [str(BIN / "graph-run"), example, "--progress=always"], "stderr"
    )
    assert rc == 0 and "output 0" in out
    assert "graph-run: LLVM compile" in text
