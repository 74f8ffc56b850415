"""Packaging: ``python -m graphopt``, the metadata in pyproject.toml, the
``xdsl.universe`` entry point, and the source checkout importing as a whole."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True)


def test_python_dash_m_graphopt_is_graph_opt() -> None:
    ok = run("-m", "graphopt", "-p", "cse", "examples/mlp.mlir")
    assert ok.returncode == 0 and "func.func @mlp" in ok.stdout
    bad = run("-m", "graphopt", "examples/errors/bad.mlir")
    assert bad.returncode == 1
    assert bad.stderr.startswith("examples/errors/bad.mlir:2:3: error: graph.matmul: inner dimensions differ")
    assert run("-m", "graphopt", "--help").stdout.startswith("usage: graph-opt")


def test_test_tools_are_not_run_time_dependencies() -> None:
    def names(reqs: list[str]) -> set[str]:
        return {re.split(r"[<>=!~\[ ]", r, maxsplit=1)[0] for r in reqs}

    assert not {"lit", "filecheck"} & names(PYPROJECT["project"]["dependencies"])
    assert {"lit", "filecheck"} <= names(PYPROJECT["project"]["optional-dependencies"]["test"])
    for tool_file in (REPO / "tools").glob("*.py"):
        text = tool_file.read_text()
        assert "import lit" not in text and "import filecheck" not in text, tool_file


def test_license_and_typing_metadata() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    assert "Apache License" in (REPO / "LICENSE").read_text()[:200]
    assert (REPO / "graphopt" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["graphopt"]


def test_the_xdsl_universe_entry_point_is_published_and_complete() -> None:
    declared = PYPROJECT["project"]["entry-points"]["xdsl.universe"]
    assert declared == {"graphopt": "graphopt.universe:GRAPHOPT_UNIVERSE"}
    from xdsl.universe import Universe

    from graphopt.dialects import project_dialects
    from graphopt.transforms import PASS_LOCATIONS
    from graphopt.universe import GRAPHOPT_UNIVERSE

    assert set(GRAPHOPT_UNIVERSE.all_dialects) == set(project_dialects())
    assert set(GRAPHOPT_UNIVERSE.all_passes) == set(PASS_LOCATIONS)
    assert GRAPHOPT_UNIVERSE.all_targets["graph-dot"]().name == "graph-dot"
    installed = {ep.name: ep.value for ep in entry_points(group="xdsl.universe")}
    if "graphopt" in installed:  # an install older than this entry point lacks it
        multiverse = Universe.get_multiverse()  # no name clashes with xDSL's
        assert {"graph", "fused", "loop"} <= set(multiverse.all_dialects)
        assert "fuse-ops" in multiverse.all_passes


def test_the_source_checkout_imports_without_the_editable_finder() -> None:
    # After a non-editable `pip install .`, running Python in the repository
    # root imports this checkout's graphopt/ folder first; its subpackages
    # (dialects/, runtime/...) must come along.  Dropping the editable
    # install's finder reproduces that situation.
    code = (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
        "sys.path_hooks[:] = [h for h in sys.path_hooks if 'editable' not in repr(h).lower()]\n"
        "sys.path_importer_cache.clear()\n"
        "import graphopt.dialects, graphopt.runtime.compile\n"
        "print(graphopt.dialects.__file__)\n"
    )
    result = run("-c", code)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == REPO / "dialects" / "__init__.py"
