"""Sizes are checked before anything is allocated (graphopt/memory_limits.py).

A tensor type whose byte size overflows every array is a verifier error; a
value larger than the machine's memory is refused by graph-run, by a
compiled function's call (its outputs and workspace) and by the reference
interpreter, each with one error naming the value, its shape and its size in
bytes.  The machine's memory is made small here (monkeypatched), so the
tests use small arrays and never depend on the host.
"""

from __future__ import annotations

import numpy as np
import pytest

import graphopt
from graphopt import memory_limits
from graphopt.errors import SizeError, VerifyError
from graphopt.memory_limits import MAX_BYTES, nbytes, overflow_reason, too_large_reason
from graphopt.runtime.compile import parse_text
from graphopt.tools import graph_run, run_inputs

MEMORY = 1 << 20  # the pretend machine: 1 MiB

BIG_OUTPUT = """
func.func @f(%x: tensor<1xf32>) -> tensor<1024x1024xf32> {
  %y = graph.broadcast_to %x : (tensor<1xf32>) -> tensor<1024x1024xf32>
  func.return %y : tensor<1024x1024xf32>
}
"""

BIG_WORKSPACE = """
func.func @f(%x: tensor<1xf32>) -> tensor<f32> {
  %y = graph.broadcast_to %x : (tensor<1xf32>) -> tensor<1024x1024xf32>
  %s = graph.reduce_sum %y {axes = array<i64: 0, 1>} : (tensor<1024x1024xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
"""

BIG_INPUT = """
func.func @f(%x: tensor<1024x1024xf32>) -> tensor<f32> {
  %s = graph.reduce_sum %x {axes = array<i64: 0, 1>} : (tensor<1024x1024xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
"""

ONE = np.ones(1, np.float32)


@pytest.fixture
def small_machine(monkeypatch):
    monkeypatch.setattr(memory_limits, "machine_memory", lambda: MEMORY)


def test_the_limits() -> None:
    assert nbytes((100000,) * 4, 4) == 4 * 10**20  # exact: a Python int
    assert nbytes((3, 0, 5), 8) == 0
    assert overflow_reason(MAX_BYTES) is None
    assert overflow_reason(MAX_BYTES + 1) == f"more than any array can hold (at most {MAX_BYTES} bytes)"
    memory = memory_limits.machine_memory()
    assert memory is None or memory > 1 << 20
    if memory is not None:
        assert too_large_reason(memory) is None
        assert too_large_reason(memory + 1) == f"more than this machine's memory ({memory} bytes)"


@pytest.mark.parametrize(
    ("shape", "ok"),
    [("9223372036854775807xi1", True), ("4611686018427387904x2xi1", False), ("2305843009213693951xf32", True), ("2305843009213693952xf32", False)],
)
def test_the_verifier_checks_the_exact_byte_size(shape: str, ok: bool) -> None:
    """One byte either side of 2^63 - 1 (i1 is one byte an element)."""
    text = f"func.func private @g(tensor<{shape}>) -> tensor<4xf32>\n"
    if ok:
        parse_text(text)
        return
    with pytest.raises(VerifyError, match=r"<string>:1:1: error: func.func @g: argument #0 \(tensor<.*>\) needs 9223372036854775808 bytes, more than any array can hold"):
        parse_text(text)


def test_compile_refuses_an_overflowing_type() -> None:
    text = BIG_OUTPUT.replace("1024x1024", "100000x100000x100000x100000")
    with pytest.raises(VerifyError, match=r"graph.broadcast_to: result #0 \(%y, tensor<100000x100000x100000x100000xf32>\) needs 400000000000000000000 bytes"):
        graphopt.compile(text)


def test_an_output_larger_than_the_machine(small_machine) -> None:
    fn = graphopt.compile(BIG_OUTPUT)["f"]  # compiling allocates nothing: not refused
    words = r"^f: output 0 \(%y, shape \(1024, 1024\) float32\) needs 4194304 bytes, more than this machine's memory \(1048576 bytes\)$"
    with pytest.raises(SizeError, match=words):
        fn(ONE)
    with pytest.raises(SizeError, match=words):
        fn.run(None, {"x": ONE})


def test_a_workspace_larger_than_the_machine(small_machine) -> None:
    fn = graphopt.compile(BIG_WORKSPACE, opt_level=0)["f"]
    assert fn.workspace_bytes >= 4 << 20
    with pytest.raises(SizeError, match=rf"^f: the workspace needs {fn.workspace_bytes} bytes, more than this machine's memory \(1048576 bytes\)$"):
        fn(ONE)


def test_a_failed_allocation_is_a_size_error(monkeypatch) -> None:
    """Memory the check allowed but the process cannot get (taken by others)."""
    from graphopt.runtime import executable

    fn = graphopt.compile(BIG_OUTPUT)["f"]

    def no_memory(*_args, **_kwargs):
        raise MemoryError("Unable to allocate 4.00 MiB")

    monkeypatch.setattr(executable.np, "empty", no_memory)
    with pytest.raises(SizeError, match=r"^f: output 0 \(%y, shape \(1024, 1024\) float32\) needs 4194304 bytes, more than this process could allocate \(MemoryError\)$"):
        fn(ONE)


def test_graph_run_and_the_runtime_use_the_same_words(small_machine, tmp_path, capsys) -> None:
    path = tmp_path / "ws.mlir"
    path.write_text(BIG_WORKSPACE)
    assert graph_run.main([str(path), "-O0"]) == 1
    err = capsys.readouterr().err.strip()
    with pytest.raises(SizeError) as info:
        graphopt.compile(BIG_WORKSPACE, opt_level=0)["f"](ONE)
    assert err == f"{path}:2:1: error: {info.value}"


def test_graph_run_refuses_before_drawing_inputs(small_machine, tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "in.mlir"
    path.write_text(BIG_INPUT)
    drawn = []
    monkeypatch.setattr(graph_run, "random_inputs", lambda *a: drawn.append(a))
    assert graph_run.main([str(path), "--random-inputs"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"{path}:2:1: error: @f: argument 0 (%x, tensor<1024x1024xf32>) needs 4194304 bytes, "
        "more than this machine's memory (1048576 bytes)"
    )
    assert drawn == [] and "Traceback" not in err
    path.write_text(BIG_OUTPUT)
    assert graph_run.main([str(path)]) == 1
    assert "@f: result 0 (tensor<1024x1024xf32>) needs 4194304 bytes" in capsys.readouterr().err


def test_random_inputs_that_cannot_be_allocated(monkeypatch) -> None:
    fn = next(iter(parse_text(BIG_INPUT).ops))

    class Exhausted:
        def standard_normal(self, *_args, **_kwargs):
            raise MemoryError("Unable to allocate 4.00 MiB")

    monkeypatch.setattr(run_inputs.np.random, "default_rng", lambda seed: Exhausted())
    with pytest.raises(SizeError, match=r"<string>:2:1: error: @f: argument 0 \(%x, tensor<1024x1024xf32>\) needs 4194304 bytes, more than this process could allocate"):
        run_inputs.random_inputs(fn, 0)


def test_the_reference_interpreter_refuses_a_large_result(small_machine) -> None:
    module = parse_text(BIG_WORKSPACE)
    with pytest.raises(SizeError, match=r"^<string>:3:3: error: graph.broadcast_to: result #0 \(%y, tensor<1024x1024xf32>\) needs 4194304 bytes, more than this machine's memory"):
        graphopt.interpret(module, ONE)


def test_without_the_small_machine_everything_runs() -> None:
    for text, level in ((BIG_OUTPUT, 2), (BIG_WORKSPACE, 0)):
        module = parse_text(text)
        got = graphopt.compile(module, opt_level=level)["f"](ONE)
        np.testing.assert_allclose(got, graphopt.interpret(module, ONE)[0])
