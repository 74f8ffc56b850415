"""The public Python API: graphopt.compile's signature and sources, the
exception hierarchy, ``__all__``, and calling compiled functions by name."""

from __future__ import annotations

import builtins
import inspect
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import DiagnosticException

import graphopt
from graphopt.runtime.compile import parse_file

REPO = Path(__file__).resolve().parents[2]
MLP = REPO / "examples" / "mlp.mlir"

TWO_IN_TWO_OUT = """
func.func @f(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = graph.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %p = graph.mul %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %s, %p : tensor<2x3xf32>, tensor<2x3xf32>
}
"""


@pytest.fixture(scope="module")
def two() -> graphopt.CompiledModule:
    return graphopt.compile(TWO_IN_TWO_OUT)


def arrays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)


# -- graphopt.compile ---------------------------------------------------------


def test_compile_has_a_real_typed_signature() -> None:
    sig = inspect.signature(graphopt.compile)
    kinds = {p.kind for p in sig.parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds and inspect.Parameter.VAR_POSITIONAL not in kinds
    assert list(sig.parameters) == [
        "source", "pipeline", "opt_level", "plugins", "max_inline_constant_bytes", "llvm_opt_level",
        "bounds_check", "input_shapes", "num_threads", "target",
    ]
    hints = typing.get_type_hints(graphopt.compile)
    assert all(h is not typing.Any for h in hints.values())
    assert "Any" not in str(sig)
    assert hints["return"] is graphopt.CompiledModule


def test_compile_says_which_source_it_took() -> None:
    by_path = graphopt.compile(MLP)
    by_str_path = graphopt.compile(str(MLP))
    by_text = graphopt.compile(MLP.read_text())
    by_module = graphopt.compile(parse_file(MLP))
    assert (by_path.source.kind, by_path.source.name) == ("path", str(MLP))
    assert by_str_path.source.kind == "path"
    assert by_text.source.kind == "text"
    assert by_module.source.kind == "module"
    assert "from path" in repr(by_path) and "from text" in repr(by_text)
    x = np.ones((4, 16), np.float32)
    want = by_path["mlp"](x)
    for cm in (by_str_path, by_text, by_module):
        np.testing.assert_array_equal(cm["mlp"](x), want)


def test_compile_does_not_modify_a_module() -> None:
    module = parse_file(MLP)
    before = str(module)
    graphopt.compile(module, opt_level=2)
    assert str(module) == before


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: graphopt.compile("examples/no_such_model.mlir"), graphopt.ArgumentError, "no such file"),
        (lambda: graphopt.compile(42), graphopt.ArgumentError, "not int"),  # type: ignore[arg-type]
        (lambda: graphopt.compile("func.func @f( {"), graphopt.ParseError, "<string>:1:"),
        (lambda: graphopt.compile(MLP, "no-such-pass"), graphopt.PipelineError, "no-such-pass"),
        (lambda: graphopt.compile(MLP, opt_level=7), graphopt.PipelineError, "optimization level"),
        (lambda: graphopt.compile(MLP, llvm_opt_level=7), graphopt.ArgumentError, "llvm_opt_level"),  # type: ignore[arg-type]
        (lambda: graphopt.compile(MLP, plugins=["no_such_plugin.py"]), graphopt.PluginError, "does not exist"),
        (
            lambda: graphopt.compile(
                "func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {\n"
                "  %y = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>\n"
                "  func.return %y : tensor<2x5xf32>\n}"
            ),
            graphopt.VerifyError,
            "<string>:2:",
        ),
    ],
)
def test_every_user_error_is_a_graphopt_error(call, error, message) -> None:
    with pytest.raises(error, match=message) as info:
        call()
    assert isinstance(info.value, graphopt.GraphOptError)
    assert isinstance(info.value, ValueError) and isinstance(info.value, DiagnosticException)


def test_lowering_errors_are_graphopt_errors() -> None:
    from graphopt.lowering.kernel_emitter import LoweringError as Internal
    from graphopt.runtime.executable import ArgumentError
    from graphopt.runtime.reference import InputError
    from graphopt.transforms.pipelines import PipelineError

    assert issubclass(Internal, graphopt.LoweringError)
    assert issubclass(InputError, graphopt.ArgumentError)
    assert ArgumentError is graphopt.ArgumentError and PipelineError is graphopt.PipelineError
    for cls in (graphopt.ParseError, graphopt.VerifyError, graphopt.PipelineError,
                graphopt.LoweringError, graphopt.ArgumentError, graphopt.PluginError):
        assert issubclass(cls, graphopt.GraphOptError)
    assert issubclass(graphopt.GraphOptError, ValueError)


def test_star_import_does_not_shadow_builtin_compile() -> None:
    assert "compile" not in graphopt.__all__
    namespace: dict[str, object] = {}
    exec("from graphopt import *", namespace)
    assert "compile" not in namespace
    assert "GraphOptError" in namespace and "CompiledModule" in namespace
    assert builtins.compile("1", "<s>", "eval") is not None
    for name in graphopt.__all__:
        assert hasattr(graphopt, name), name


def test_import_graphopt_is_light() -> None:
    code = "import sys, graphopt; print('graphopt.runtime.jit' in sys.modules, 'llvmlite' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# -- calling by name ----------------------------------------------------------


def test_call_by_position_by_name_and_mixed(two: graphopt.CompiledModule) -> None:
    x, y = arrays()
    f = two["f"]
    want = (x + y, x * y)
    for got in (f(x, y), f(x=x, y=y), f(y=y, x=x), f(x, y=y), two.f(x=x, y=y)):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def test_onnxruntime_style_run(two: graphopt.CompiledModule) -> None:
    x, y = arrays()
    f = two["f"]
    # Outputs are named after the returned values (%s, %p), as ONNX outputs are.
    assert f.input_names == ["x", "y"] and f.output_names == ["s", "p"]
    s, p = two.run(None, {"x": x, "y": y})
    np.testing.assert_allclose(s, x + y, rtol=1e-6)
    (p_only,) = f.run(["p"], {"y": y, "x": x})
    np.testing.assert_allclose(p_only, x * y, rtol=1e-6)
    assert [s.shape for s in f.inputs] == [(2, 3), (3,)]
    assert [str(s.dtype) for s in f.outputs] == ["float32", "float32"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda f, x, y: f(x, y, x=x), "'x' is given by position and by name"),
        (lambda f, x, y: f(x=x), r"missing input\(s\): y"),
        (lambda f, x, y: f(x=x, z=y), "no input named 'z' \\(it has x, y\\)"),
        (lambda f, x, y: f(x=x, yy=y), "did you mean 'y'"),
        (lambda f, x, y: f.run(["out7"], {"x": x, "y": y}), "no output named 'out7'"),
        (lambda f, x, y: f.run(None, [x, y]), "takes the inputs as a dict"),
        (lambda f, x, y: f(x, y, x), r"expected 2 input\(s\), got 3"),
        (lambda f, x, y: f(x=y, y=x), r"argument 0 \(%x\): expected shape \(2, 3\) float32, got \(3,\)"),
    ],
)
def test_bad_calls_are_argument_errors(two: graphopt.CompiledModule, call, message) -> None:
    x, y = arrays()
    with pytest.raises(graphopt.ArgumentError, match=message):
        call(two["f"], x, y)


def test_module_run_needs_an_entry_when_there_are_several() -> None:
    text = TWO_IN_TWO_OUT + TWO_IN_TWO_OUT.replace("@f", "@g")
    cm = graphopt.compile(text)
    x, y = arrays()
    with pytest.raises(graphopt.ArgumentError, match=r"2 functions \(f, g\)"):
        cm.run(None, {"x": x, "y": y})
    (s, _) = cm.run(None, {"x": x, "y": y}, entry="g")
    np.testing.assert_allclose(s, x + y, rtol=1e-6)
