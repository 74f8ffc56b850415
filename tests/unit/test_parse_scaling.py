"""Parsing is linear in the file size (LocatedParser's table of line starts)."""

import time

import pytest
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span

from graphopt.plugins import project_context
from graphopt.diagnostics import LineTable, LocatedParser, parse_error_diagnostic


def test_line_table():
    table = LineTable("ab\ncd\n\nef")
    assert [table.line_col(i) for i in (0, 1, 2, 3, 6, 7, 8)] == [
        (1, 1), (1, 2), (1, 3), (2, 1), (3, 1), (4, 1), (4, 2)
    ]


def test_op_locations_do_not_rescan_the_source(monkeypatch):
    """Span.get_location counts newlines from the start: once per op is quadratic."""
    calls = []
    original = Span.get_location
    monkeypatch.setattr(Span, "get_location", lambda self: calls.append(1) or original(self))
    body = "\n".join(f"  %v{i} = graph.exp %x : tensor<4xf32>" for i in range(200))
    text = f"func.func @f(%x: tensor<4xf32>) {{\n{body}\n  func.return\n}}\n"
    module = LocatedParser(project_context(), text, "f.mlir").parse_module()
    assert calls == []
    ops = list(module.walk())
    assert ops[-2].location.line.data == 201 and ops[-2].location.column.data == 3


def test_100k_ops_parse_and_report_their_error_within_a_loose_bound():
    n = 100_000
    text = "".join(f"func.func private @f{i}()\n" for i in range(n)) + '"graph.frobnicate"() : () -> ()\n'
    start = time.process_time()
    with pytest.raises(ParseError) as info:
        LocatedParser(project_context(), text, "big.mlir").parse_module()
    elapsed = time.process_time() - start
    d = parse_error_diagnostic(info.value)
    assert d.line == n + 1 and "graph.frobnicate is not registered" in d.message
    assert elapsed < 30.0, f"parsing {n} ops took {elapsed:.1f} s of CPU"
