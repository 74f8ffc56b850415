"""The plugin API: loading the example plugin into a fresh registry, running
its pass, and the PluginError raised for every kind of broken plugin."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.ir import Dialect
from xdsl.passes import ModulePass

from graphopt.dialects import graph
from graphopt.plugins import REGISTRY, PluginError, PluginRegistry, load_plugin, pattern_pass
from graphopt.runtime.reference import interpret

REPO = Path(__file__).resolve().parents[2]
RELU_CLEANUP = REPO / "examples" / "plugins" / "relu_cleanup.py"

MODULE = """
func.func @relu_relu(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = graph.relu %x : tensor<8x16xf32>
  %b = graph.relu %a : tensor<8x16xf32>
  %c = graph.relu %b : tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}
func.func @mul_one(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %one = graph.constant splat 1.0 : tensor<16xf32>
  %c = graph.mul %one, %x : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}
func.func @mul_one_broadcasting(%x: tensor<16xf32>) -> tensor<8x16xf32> {
  %one = graph.constant splat 1.0 : tensor<8x16xf32>
  %c = graph.mul %x, %one : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %c : tensor<8x16xf32>
}
func.func @mul_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = graph.constant splat 2.0 : tensor<4xf32>
  %c = graph.mul %x, %two : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
"""


def function(module, name: str) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)


def op_names(fn: func.FuncOp) -> list[str]:
    return [op.name for op in fn.body.block.ops]


@pytest.fixture
def registry() -> PluginRegistry:
    fresh = PluginRegistry()
    load_plugin(str(RELU_CLEANUP), fresh)
    return fresh


def test_example_plugin_registers_its_pass(registry: PluginRegistry) -> None:
    assert registry.loaded == [str(RELU_CLEANUP)]
    assert set(registry.passes) == {"relu-cleanup"}
    assert registry.dialects == {}
    pass_cls = registry.passes["relu-cleanup"]()
    assert issubclass(pass_cls, ModulePass)
    assert pass_cls.name == "relu-cleanup"
    assert pass_cls.__name__ == "ReluCleanupPass"
    assert "relu(relu(x))" in (pass_cls.__doc__ or "")


def test_loading_into_a_fresh_registry_leaves_the_global_one_alone() -> None:
    before = dict(REGISTRY.passes)
    fresh = PluginRegistry()
    load_plugin(str(RELU_CLEANUP), fresh)
    assert REGISTRY.passes.keys() == before.keys()


def test_loading_twice_is_a_no_op(registry: PluginRegistry) -> None:
    load_plugin(str(RELU_CLEANUP), registry)
    assert registry.loaded == [str(RELU_CLEANUP)]


def test_relu_cleanup_rewrites(registry: PluginRegistry, graph_ctx, parse_graph_module) -> None:
    module = parse_graph_module(MODULE)
    rng = np.random.default_rng(3)
    inputs = {
        "relu_relu": [rng.standard_normal((8, 16)).astype(np.float32)],
        "mul_one": [rng.standard_normal((8, 16)).astype(np.float32)],
        "mul_one_broadcasting": [rng.standard_normal(16).astype(np.float32)],
        "mul_two": [rng.standard_normal(4).astype(np.float32)],
    }
    before = {name: interpret(module, *args, entry=name) for name, args in inputs.items()}

    registry.passes["relu-cleanup"]()().apply(graph_ctx, module)
    module.verify()

    # relu(relu(relu(x))) -> relu(x); the dead relus stay for dce.
    fn = function(module, "relu_relu")
    ret = fn.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    (result,) = ret.arguments
    assert isinstance(result.owner, graph.ReluOp)
    assert result.owner.input is fn.body.block.args[0]

    # 1 * x -> x when the product has x's type.
    fn = function(module, "mul_one")
    assert fn.body.block.last_op.arguments[0] is fn.body.block.args[0]

    # ... but not when the multiply broadcasts x, nor for other constants.
    assert "graph.mul" in op_names(function(module, "mul_one_broadcasting"))
    assert "graph.mul" in op_names(function(module, "mul_two"))

    for name, args in inputs.items():
        for got, want in zip(interpret(module, *args, entry=name), before[name], strict=True):
            np.testing.assert_array_equal(got, want)


def test_relu_cleanup_then_dce(registry: PluginRegistry, graph_ctx, parse_graph_module) -> None:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    module = parse_graph_module(MODULE)
    registry.passes["relu-cleanup"]()().apply(graph_ctx, module)
    DeadCodeElimination().apply(graph_ctx, module)
    assert op_names(function(module, "relu_relu")) == ["graph.relu", "func.return"]
    assert op_names(function(module, "mul_one")) == ["func.return"]


def test_pattern_pass_builds_a_named_module_pass() -> None:
    cls = pattern_pass("my-fancy-pass", [], doc="Does nothing.")
    assert cls.name == "my-fancy-pass" and cls.__name__ == "MyFancyPassPass"
    assert cls.__doc__ == "Does nothing."
    assert issubclass(cls, ModulePass)


# --------------------------------------------------------------------------
# broken plugins
# --------------------------------------------------------------------------


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def test_missing_plugin_file(tmp_path: Path) -> None:
    spec = str(tmp_path / "nope.py")
    reg = PluginRegistry()
    with pytest.raises(PluginError, match=re.escape(f"plugin file '{spec}' does not exist")):
        load_plugin(spec, reg)
    assert reg.loaded == []


def test_plugin_that_fails_to_import(tmp_path: Path) -> None:
    path = write(tmp_path, "broken_import.py", 'raise RuntimeError("broken on purpose")\n')
    reg = PluginRegistry()
    with pytest.raises(
        PluginError,
        match=re.escape(f"plugin '{path}' failed to import: RuntimeError: broken on purpose"),
    ) as info:
        load_plugin(str(path), reg)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert reg.loaded == [] and reg.passes == {}


def test_plugin_with_a_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, "syntax_error.py", "def register(:\n")
    with pytest.raises(PluginError, match="failed to import: SyntaxError"):
        load_plugin(str(path), PluginRegistry())


def test_plugin_without_register(tmp_path: Path) -> None:
    path = write(tmp_path, "no_register.py", "def setup(registry):\n    pass\n")
    reg = PluginRegistry()
    with pytest.raises(PluginError, match=re.escape(f"plugin '{path}' has no function register(registry)")):
        load_plugin(str(path), reg)
    assert reg.loaded == []


def test_plugin_whose_register_is_not_callable(tmp_path: Path) -> None:
    path = write(tmp_path, "register_value.py", "register = 42\n")
    with pytest.raises(PluginError, match="has no function register\\(registry\\)"):
        load_plugin(str(path), PluginRegistry())


def test_plugin_whose_register_raises(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "register_raises.py",
        """
        def register(registry):
            registry.add_pattern_pass("half-registered", [])
            raise ValueError("missing configuration")
        """,
    )
    reg = PluginRegistry()
    with pytest.raises(
        PluginError,
        match=re.escape(f"plugin '{path}' failed to register: ValueError: missing configuration"),
    ) as info:
        load_plugin(str(path), reg)
    assert isinstance(info.value.__cause__, ValueError)
    assert reg.loaded == []


def test_unknown_module_name() -> None:
    with pytest.raises(
        PluginError,
        match=re.escape(
            "plugin 'graphopt_no_such_plugin_module' failed to import: "
            "ModuleNotFoundError: No module named 'graphopt_no_such_plugin_module'"
        ),
    ):
        load_plugin("graphopt_no_such_plugin_module", PluginRegistry())


# --------------------------------------------------------------------------
# plugins by module name, and what else they can register
# --------------------------------------------------------------------------


def test_plugin_by_module_name_registers_a_dialect_and_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        "graphopt_test_plugin_pkg.py",
        """
        from dataclasses import dataclass

        from xdsl.ir import Dialect
        from xdsl.passes import ModulePass

        TOY = Dialect("toy_plugin", [], [])


        @dataclass(frozen=True)
        class CountPass(ModulePass):
            name = "toy-count"

            def apply(self, ctx, op):
                pass


        def register(registry):
            registry.add_dialect(TOY)
            registry.add_pass(CountPass)
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    reg = PluginRegistry()
    try:
        load_plugin("graphopt_test_plugin_pkg", reg)
    finally:
        sys.modules.pop("graphopt_test_plugin_pkg", None)
    assert reg.loaded == ["graphopt_test_plugin_pkg"]
    dialect = reg.dialects["toy_plugin"]()
    assert isinstance(dialect, Dialect) and dialect.name == "toy_plugin"
    assert reg.passes["toy-count"]().name == "toy-count"
