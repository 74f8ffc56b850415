"""README.md's examples run as written: every file it names exists, every
Python block runs, every graph-opt / graph-run / xdsl-opt command exits as
the README says (0, or 1 where a comment says ``exits 1``), and its op table
lists every graph op with its fuse pattern."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
BIN = Path(sys.executable).parent
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, re.S | re.M)
TOOLS = ("graph-opt", "graph-run", "xdsl-opt", ".venv/bin/graph-run", ".venv/bin/graph-opt")
#: Commands the suite does not re-run: installing, the test suite itself, and
#: the training scripts (tests/unit/test_examples_training.py runs those).
SKIPPED = ("python3 -m venv", ".venv/bin/lit", "python examples/train_")


#: ``NAME=$(...)`` lines of the sh blocks: set once, for the commands after them.
ASSIGNMENT = re.compile(r"^([A-Z_]+)=(\$\(.*\))$")


@functools.cache
def assignments() -> dict[str, str]:
    """The values of the README's ``NAME=$(...)`` lines, run as a shell would."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    values: dict[str, str] = {}
    for lang, body in BLOCKS:
        for line in body.splitlines() if lang == "sh" else []:
            m = ASSIGNMENT.match(line.strip().replace(".venv/bin/", ""))
            if m:
                out = subprocess.run(f"printf %s {m[2]}", shell=True, cwd=REPO, env=env,
                                     capture_output=True, text=True, check=True)
                values[m[1]] = out.stdout
    return values


def commands() -> list[str]:
    found: list[str] = []
    for lang, body in BLOCKS:
        if lang != "sh":
            continue
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith(TOOLS) or line.startswith(SKIPPED):
                found.append(line)
    return found


def split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing ``# comment`` (a ``#`` outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i].strip(), line[i + 1 :].strip()
    return line, ""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A scratch folder that shows the checkout through one symlink per entry:
    the README's relative paths work there, and the files a command writes
    (out.mlir, model.o...) land in it rather than in the checkout, where
    tests running in parallel would see them come and go."""
    for entry in REPO.iterdir():
        if entry.name != ".git":
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


@pytest.mark.parametrize("line", [c for c in commands() if not c.startswith(SKIPPED)])
def test_readme_command_runs(line: str, checkout: Path) -> None:
    command, comment = split_comment(line)
    command = command.replace(".venv/bin/", "")
    command = re.sub(r"\|\s*dot\b.*$", "> /dev/null", command)  # Graphviz is not a dependency
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **assignments())
    result = subprocess.run(command, shell=True, cwd=checkout, env=env, capture_output=True, text=True)
    expected = 1 if "exits 1" in comment else 0
    assert result.returncode == expected, f"{command}\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_the_first_command_compiles_and_runs_a_model() -> None:
    first = commands()[0]
    assert "graph-run examples/" in first and "--check" in first


def test_ci_runs_what_the_readme_says() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    ci = re.sub(r'"\$work/venv/bin/([\w-]+)"', r".venv/bin/\1", ci).replace(" --quiet", "")
    _venv, install, run = commands()[0].split(" && ")
    assert install in ci and run in ci
    (tests,) = [c for c in commands() if c.startswith(".venv/bin/lit")]
    for part in tests.split(" && "):
        assert part in ci


def test_every_file_the_readme_names_exists() -> None:
    named = set(re.findall(r"\b((?:examples|tests|benchmarks|transforms|\.ci)/[\w./-]*\w)", README))
    missing = sorted(p for p in named if not (REPO / p).exists())
    assert not missing, missing


def test_readme_python_blocks_run(monkeypatch: pytest.MonkeyPatch, checkout: Path) -> None:
    monkeypatch.chdir(checkout)
    ran = 0
    for lang, body in BLOCKS:
        if lang != "python" or body.startswith("@irdl_op_definition"):
            continue
        exec(compile(body, "README.md", "exec"), {"__name__": "readme"})
        ran += 1
    assert ran >= 3


def test_the_plugin_excerpt_is_the_example_file() -> None:
    (excerpt,) = [b for lang, b in BLOCKS if lang == "python" and b.startswith("@irdl_op_definition")]
    source = (REPO / "examples" / "plugins" / "square_op.py").read_text().splitlines()
    position = 0
    for line in (l for l in excerpt.splitlines() if l.strip()):
        while position < len(source) and source[position] != line:
            position += 1
        assert position < len(source), f"not in examples/plugins/square_op.py (in order): {line!r}"


def test_the_op_table_lists_every_op_with_its_fuse_pattern() -> None:
    from graphopt.dialects.graph import GRAPH_OPS

    rows = dict(re.findall(r"^\|[^|]*\| `(\w+)` \| (\w+) \|", README, re.M))
    for op in GRAPH_OPS:
        short = op.name.removeprefix("graph.")
        assert short in rows, f"{op.name} is missing from the README's op table"
        assert rows[short] == op.FUSE_PATTERN.keyword, f"{op.name}: {rows[short]} != {op.FUSE_PATTERN.keyword}"
    assert len(rows) == len(GRAPH_OPS)
