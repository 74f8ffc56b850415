"""Shared fixtures for the graph-level unit tests: an xDSL context with the
dialects graph functions use, and print/parse helpers."""

from __future__ import annotations

import io
import os
from collections.abc import Callable

import pytest
from hypothesis import settings
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from graphopt.dialects.fused import Fused
from graphopt.dialects.graph import Graph


# Property tests explore new random graphs on every local run; under CI they
# replay a fixed sequence so that a landing never depends on luck.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def make_graph_context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Graph, Fused):
        ctx.load_dialect(dialect)
    return ctx


def print_module(module: ModuleOp, generic: bool = False) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


@pytest.fixture
def graph_ctx() -> Context:
    """A Context with builtin, func, graph and fused loaded."""
    return make_graph_context()


@pytest.fixture
def parse_graph_module(graph_ctx: Context) -> Callable[[str], ModuleOp]:
    """Parse and verify textual IR."""

    def parse(text: str) -> ModuleOp:
        module = Parser(graph_ctx, text).parse_module()
        module.verify()
        return module

    return parse


@pytest.fixture
def graph_roundtrip(graph_ctx: Context) -> Callable[..., ModuleOp]:
    """Print a module (custom or generic form), parse it back and verify it."""

    def roundtrip(module: ModuleOp, generic: bool = False) -> ModuleOp:
        text = print_module(module, generic)
        reparsed = Parser(graph_ctx, text).parse_module()
        reparsed.verify()
        return reparsed

    return roundtrip
