"""The import graph: no cycles, and every import goes down the layer order.

The modules' imports are read with ``ast`` (nothing is imported), function
bodies included: an import moved into a function to dodge a cycle still
counts.  Imports under ``if TYPE_CHECKING:`` are left out (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Folder -> the import package it holds (pyproject's ``package-dir``).
FOLDERS = {
    "graphopt": "graphopt",
    "dialects": "graphopt.dialects",
    "transforms": "graphopt.transforms",
    "lowering": "graphopt.lowering",
    "runtime": "graphopt.runtime",
    "frontends": "graphopt.frontends",
    "tools": "graphopt.tools",
}

#: Layers, lowest first; a module may import its own layer and those below.
#: The ``graphopt/`` package's own modules are placed one by one: shared
#: infrastructure at the bottom, the plugin machinery (which knows the
#: built-in passes and dialects, and which the runtime loads) between lowering
#: and runtime, and the user-facing glue at the top.
LAYERS: list[tuple[str, ...]] = [
    ("graphopt", "graphopt.errors", "graphopt.rules", "graphopt.output_files", "graphopt.memory_limits"),  # the package root imports only errors
    ("graphopt.dialects",),
    ("graphopt.diagnostics", "graphopt.input_formats"),  # locates verifier errors: needs the dialects' verifiers
    ("graphopt.transforms",),
    ("graphopt.lowering",),
    ("graphopt.plugin_guards", "graphopt.plugins"),
    ("graphopt.runtime",),
    ("graphopt.frontends",),
    ("graphopt.tools", "graphopt.testing"),
    ("graphopt.universe", "graphopt.__main__"),
]

#: Imports against the layer order that are allowed, and why.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("graphopt.runtime.compile", "graphopt.frontends.onnx"): (
        "graphopt.compile() accepts an .onnx path; the ONNX frontend (and the onnx "
        "package) is imported only when one is given"
    ),
}


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skipped


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports (``from pkg import sub`` is ``pkg.sub``)."""
    tree = ast.parse(path.read_text(), str(path))
    skipped = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names]
            named = [s for s in subs if s in known]
            targets.update(named)
            if len(named) < len(subs):
                targets.add(base)
    return {t for t in targets if t in known and t != name}


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS"
    return rank


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_is_read() -> None:
    graph = import_graph()
    assert "graphopt.rules" in graph["graphopt.lowering.compute_rules"]
    assert "graphopt.dialects.graph" in graph["graphopt.transforms.fold_constants"]


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_go_down_the_layers() -> None:
    upward = sorted(
        (src, dst)
        for src, targets in import_graph().items()
        for dst in targets
        if layer_of(dst) > layer_of(src) and (src, dst) not in EXCEPTIONS
    )
    assert upward == []


def test_every_exception_is_still_needed() -> None:
    graph = import_graph()
    stale = [edge for edge in EXCEPTIONS if edge[1] not in graph.get(edge[0], set())]
    assert stale == []
