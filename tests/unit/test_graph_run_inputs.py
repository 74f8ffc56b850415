"""graph-run's input handling and graphopt.compile's argument checks."""

import tracemalloc

import numpy as np
import pytest

from graphopt.runtime.compile import compile as compile_module
from graphopt.runtime.compile import parse_text
from graphopt.errors import ArgumentError
from graphopt.diagnostics import UserError
from graphopt.tools.run_inputs import random_inputs

SOURCE = """
func.func @f(%a: tensor<1024x1024xf32>, %b: tensor<8xi32>, %c: tensor<8xi1>, %d: tensor<4xf64>)
    -> tensor<1024x1024xf32> {
  func.return %a : tensor<1024x1024xf32>
}
"""


def test_random_inputs_are_drawn_in_the_target_dtype():
    fn = next(iter(parse_text(SOURCE).ops))
    tracemalloc.start()
    try:
        arrays = random_inputs(fn, 0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [a.dtype for a in arrays] == [np.float32, np.int32, np.bool_, np.float64]
    assert arrays[0].shape == (1024, 1024)
    # One f32 array of 1 Mi elements is 4 MiB; an f64 temporary would double it.
    assert peak < 1.5 * arrays[0].nbytes
    assert 0.4 < arrays[0].std() / 1.0 < 1.6
    assert np.array_equal(random_inputs(fn, 0)[1], arrays[1])  # seeded


EXP = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


@pytest.mark.parametrize("level", [7, -1, True, "3"])
def test_compile_rejects_a_bad_llvm_opt_level(level):
    with pytest.raises(ArgumentError, match="llvm_opt_level must be 0, 1, 2 or 3"):
        compile_module(parse_text(EXP), llvm_opt_level=level)


def test_compile_completes_a_pipeline_that_lowers():
    """A pipeline that lowers itself is not lowered twice, nor left empty."""
    fn = compile_module(parse_text(EXP), "cse,lower-graph-to-loop,lower-loop-to-llvm")
    x = np.linspace(-2, 2, 4, dtype=np.float32)
    np.testing.assert_allclose(next(iter(fn.functions.values()))(x), np.exp(x), rtol=1e-6)
