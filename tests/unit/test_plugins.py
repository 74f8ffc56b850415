"""The plugin API: loading the example plugin into a fresh registry, running
its pass, and the PluginError raised for every kind of broken plugin."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import numpy as np

import graphopt
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


#: A plugin that raises: where (importing it, or in its register), the file,
#: the exception class and its message.
RAISING_PLUGINS = {
    "import": ("broken_import.py", 'raise RuntimeError("broken on purpose")\n', RuntimeError, "broken on purpose"),
    "register": (
        "register_raises.py",
        """
        def register(registry):
            registry.add_pattern_pass("half-registered", [])
            raise ValueError("missing configuration")
        """,
        ValueError,
        "missing configuration",
    ),
}


@pytest.mark.parametrize("stage", list(RAISING_PLUGINS))
def test_plugin_that_raises(tmp_path: Path, stage: str) -> None:
    """One error naming the plugin, the stage and the exception, which is its cause."""
    name, source, error, message = RAISING_PLUGINS[stage]
    path = write(tmp_path, name, source)
    reg = PluginRegistry()
    with pytest.raises(
        PluginError,
        match=re.escape(f"plugin '{path}' failed to {stage}: {error.__name__}: {message}"),
    ) as info:
        load_plugin(str(path), reg)
    assert isinstance(info.value.__cause__, error)
    assert reg.loaded == []
    if stage == "import":
        assert reg.passes == {}


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


# --------------------------------------------------------------------------
# misbehaving plugins (name collisions, sys.exit, crashes) and every entry point
# --------------------------------------------------------------------------

INPUTS = REPO / "tests" / "filecheck" / "plugins" / "Inputs"
SQUARE_OP = REPO / "examples" / "plugins" / "square_op.py"


@pytest.mark.parametrize(
    "plugin, kind, name, owner",
    [
        ("cse_plugin.py", "pass", "cse", "xDSL"),
        ("graph_dialect_plugin.py", "dialect", "graph", "graph-opt"),
    ],
)
def test_a_name_taken_by_a_builtin_is_refused(plugin: str, kind: str, name: str, owner: str) -> None:
    reg = PluginRegistry()
    with pytest.raises(PluginError, match=re.escape(f"registers {kind} '{name}', which {owner} already defines")):
        load_plugin(str(INPUTS / plugin), reg)
    assert reg.passes == {} and reg.dialects == {} and reg.loaded == []


@pytest.mark.parametrize("name", ["fuse-ops", "canonicalize", "O2", "default"])
def test_builtin_passes_and_pipelines_cannot_be_replaced(name: str) -> None:
    with pytest.raises(PluginError, match=f"registers pass '{name}', which .*graph-opt|xDSL"):
        PluginRegistry().add_pattern_pass(name, [])


def test_two_plugins_with_one_pass_name_name_both() -> None:
    reg = PluginRegistry()
    load_plugin(str(INPUTS / "same_pass_a.py"), reg)
    with pytest.raises(PluginError) as info:
        load_plugin(str(INPUTS / "same_pass_b.py"), reg)
    assert "same_pass_b.py' registers pass 'my-cleanup'" in str(info.value)
    assert "which plugin '" in str(info.value) and "same_pass_a.py' already defines" in str(info.value)
    assert list(reg.passes) == ["my-cleanup"] and len(reg.loaded) == 1


def test_an_op_name_taken_by_another_dialect_is_refused() -> None:
    from xdsl.dialects.builtin import UnitAttr
    from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def

    @irdl_op_definition
    class FakeRelu(IRDLOperation):
        name = "graph.relu"
        flag = opt_prop_def(UnitAttr)

    with pytest.raises(PluginError, match=r"registers op 'graph.relu', which graph-opt \(dialect 'graph'\) already defines"):
        PluginRegistry().add_dialect(Dialect("mine", [FakeRelu], []))


def test_a_failed_register_is_rolled_back(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "half.py",
        """
        def register(registry):
            registry.add_pattern_pass("half-a", [])
            registry.add_pattern_pass("cse", [])
        """,
    )
    reg = PluginRegistry()
    with pytest.raises(PluginError, match="registers pass 'cse'"):
        load_plugin(str(path), reg)
    assert reg.passes == {} and reg.sources == {}
    reg.add_pattern_pass("half-a", [])  # the name is free again


@pytest.mark.parametrize("where", ["import", "register"])
def test_sys_exit_in_a_plugin_is_an_error(tmp_path: Path, where: str) -> None:
    body = "import sys\nsys.exit(0)\n" if where == "import" else "def register(registry):\n    raise SystemExit(3)\n"
    path = write(tmp_path, f"exit_{where}.py", body)
    with pytest.raises(PluginError, match=r"called sys.exit\((0|3)\)"):
        load_plugin(str(path), PluginRegistry())


def test_a_crashing_plugin_verifier_and_pass_name_the_op_and_plugin(parse_graph_module) -> None:
    from graphopt.runtime.compile import parse_text

    load_plugin(str(INPUTS / "raising_plugin.py"))
    text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %b = bug.op %x {fail} : tensor<4xf32>\n  func.return %b : tensor<4xf32>\n}\n"
    with pytest.raises(graphopt.VerifyError) as info:
        parse_text(text, "bug.mlir")
    message = str(info.value)
    assert message.startswith("bug.mlir:2:3: error: bug.op: the verifier of plugin '")
    assert "raising_plugin.py' raised ZeroDivisionError" in message

    with pytest.raises(graphopt.PluginError) as info:
        graphopt.compile(str(INPUTS / "relu.mlir"), "bug-pass")
    assert info.value.location is not None and info.value.location.endswith("relu.mlir:3:3")
    assert "pass 'bug-pass' of plugin '" in str(info.value)
    assert "raised KeyError: 'graph.relu' on graph.relu" in str(info.value)


def test_compile_takes_plugins(tmp_path: Path) -> None:
    source = (REPO / "tests" / "filecheck" / "plugins" / "graph_run.mlir").read_text()
    cm = graphopt.compile(source, "autodiff{func=f wrt=x seed=ones},O2", plugins=[str(SQUARE_OP)])
    x = np.array([1.0, -2.0, 3.0], np.float32)
    w = np.array([0.5, 1.0, 2.0], np.float32)
    loss, dx = cm["f_grad"](x=x, w=w)
    np.testing.assert_allclose(loss, np.sum(x * x * w), rtol=1e-6)
    np.testing.assert_allclose(dx, 2 * x * w, rtol=1e-6)


def test_entry_point_plugins_load_and_a_broken_one_only_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphopt.plugins import load_plugins

    monkeypatch.syspath_prepend(str(INPUTS / "entry_points"))
    reg = PluginRegistry()
    warnings: list[str] = []
    try:
        load_plugins(registry=reg, warn=warnings.append)
    finally:
        for mod in ("graphopt_test_good_plugin", "graphopt_test_broken_plugin"):
            sys.modules.pop(mod, None)
    assert "ep-relu-cleanup" in reg.passes
    (warning,) = warnings
    assert "plugin entry point 'broken' (graphopt_test_broken_plugin) failed to import: ImportError" in warning
    with pytest.raises(PluginError, match="entry point 'broken'"):
        load_plugins(registry=PluginRegistry(), warn=None)
    sys.modules.pop("graphopt_test_good_plugin", None)


def test_sys_exit_inside_a_plugin_pass_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "exit_pass.py",
        """
        import sys

        from xdsl.pattern_rewriter import RewritePattern, op_type_rewrite_pattern

        from graphopt.dialects import graph


        class Quit(RewritePattern):
            @op_type_rewrite_pattern
            def match_and_rewrite(self, op: graph.ExpOp, rewriter) -> None:
                sys.exit(0)


        def register(registry):
            registry.add_pattern_pass("quit-on-exp", [Quit()])
        """,
    )
    with pytest.raises(PluginError) as info:
        graphopt.compile(str(INPUTS / "relu.mlir"), "quit-on-exp", plugins=[str(path)])
    assert "pass 'quit-on-exp' of plugin '" in str(info.value)
    assert "called sys.exit(0) on graph.exp" in str(info.value)
    assert info.value.location is not None and info.value.location.endswith("relu.mlir:2:3")
