"""Functions without a body (declarations): verified, compiled or refused,
never an assertion or a call of address 0.

* a public declaration is a verifier error at it;
* a private graph-level declaration that nothing calls is left out of the
  compiled code; a graph-level call of one is one error at the call;
* a loop-level declaration is an external symbol: the JIT needs a library of
  this process to define it (else one error at the declaration, instead of
  a segmentation fault at the call), an object file keeps it for the linker;
* running a declaration, in the reference interpreter or graph-run, is one
  error at it.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType, f32

import graphopt
from graphopt.errors import ArgumentError, LoweringError, VerifyError
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.compile import lowered_module, parse_text

PRIVATE = """
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""

CALL = """
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""

LOOP_LEVEL = """
func.func private @{name}(f32) -> f32
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>, %ws: memref<0xi8>) attributes {{loop.abi = #loop.abi<inputs = ["x" : tensor<4xf32>], outputs = ["y" : tensor<4xf32>], workspace = 0>}} {{
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  %e = func.call @{name}(%v) : (f32) -> f32
  memref.store %e, %y[%c0] : memref<4xf32>
  func.return
}}
"""

X = np.arange(4, dtype=np.float32)


def test_an_unused_private_declaration_is_left_out() -> None:
    cm = graphopt.compile(PRIVATE, opt_level=2)
    assert list(cm) == ["f"]
    np.testing.assert_allclose(cm["f"](X), np.exp(X), rtol=1e-6)
    assert "@g" not in cm.llvm_ir and '@"g"' not in cm.llvm_ir


def test_a_public_declaration_is_a_verifier_error() -> None:
    b = GraphBuilder("f")
    module = b.build(b.exp(b.input((4,), name="x")))
    t = TensorType(f32, [4])
    module.body.block.add_op(func.FuncOp.external("h", [t], [t]))
    module.body.block.last_op.sym_visibility = None  # public, without a body
    with pytest.raises(VerifyError, match="func.func @h: a function without a body is a declaration and must be private"):
        graphopt.compile(module)


def test_a_graph_level_call_of_a_declaration_is_one_error_at_the_call() -> None:
    with pytest.raises(LoweringError, match=r"^<string>:4:3: error: lower-graph-to-loop: @f: func.call @g: @g is a declaration without a body"):
        graphopt.compile(CALL)


def test_the_reference_interpreter_refuses_to_run_a_declaration() -> None:
    module = parse_text(PRIVATE)
    with pytest.raises(ArgumentError, match=r"^<string>:2:1: error: @g is a declaration without a body: there is nothing to run$"):
        graphopt.interpret(module, X, entry="g")
    np.testing.assert_allclose(graphopt.interpret(module, X)[0], np.exp(X))  # the only public function
    with pytest.raises(ArgumentError, match=r"^<string>:4:3: error: func.call @g: @g is a declaration without a body"):
        graphopt.interpret(parse_text(CALL), X)


def test_a_loop_level_declaration_no_library_defines() -> None:
    """Before: the JIT compiled it, and the call jumped to address 0."""
    with pytest.raises(LoweringError, match=r"^<string>:2:1: error: @no_such_function_anywhere is declared without a body and no library loaded in this process defines it"):
        graphopt.compile(LOOP_LEVEL.format(name="no_such_function_anywhere"))


def test_a_loop_level_declaration_a_library_defines_is_called() -> None:
    cm = graphopt.compile(LOOP_LEVEL.format(name="expf"))
    assert cm["f"](np.ones(4, np.float32))[0] == pytest.approx(np.e, rel=1e-6)


def test_an_object_file_keeps_the_declaration_external() -> None:
    from graphopt.runtime.aot import object_code

    module = lowered_module(LOOP_LEVEL.format(name="my_external_kernel"), max_inline_constant_bytes=-1)
    assert b"my_external_kernel" in object_code(module)
