"""Hand-written loop-level IR cannot crash the process: unsafe constants are
verifier errors, and checked code turns a run-time out-of-bounds index into
an error instead of a write outside the buffer."""

import numpy as np
import pytest

import graphopt
from graphopt.runtime.compile import parse_text
from graphopt.runtime.executable import BoundsError
from graphopt.diagnostics import LocatedVerifyError

ABI = '#loop.abi<inputs = ["n" : tensor<1xi64>], outputs = ["out" : tensor<4xf32>], workspace = 0>'

# Stores out[i] for i < n, n given at run time.
STORE_UP_TO_N = f"""
func.func @fill(%n: memref<1xi64>, %out: memref<4xf32>, %ws: memref<0xi8>) attributes {{loop.abi = {ABI}}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %nv = memref.load %n[%c0] : memref<1xi64>
  %ub = arith.index_cast %nv : i64 to index
  scf.for %i = %c0 to %ub step %c1 {{
    memref.store %one, %out[%i] : memref<4xf32>
  }}
  func.return
}}
"""


def test_checked_code_reports_an_out_of_bounds_store():
    fn = graphopt.compile(parse_text(STORE_UP_TO_N), bounds_check=True)["fill"]
    np.testing.assert_array_equal(fn(np.array([4], np.int64)), np.ones(4, np.float32))
    with pytest.raises(BoundsError, match="out of bounds"):
        fn(np.array([100_000_000], np.int64))
    # The flag is cleared: the next good call succeeds.
    np.testing.assert_array_equal(fn(np.array([2], np.int64))[:2], [1.0, 1.0])


def test_constant_out_of_bounds_index_is_rejected_when_parsed():
    text = STORE_UP_TO_N.replace("%out[%i]", "%out[%c9]").replace(
        "%one = arith.constant 1.0 : f32", "%one = arith.constant 1.0 : f32\n  %c9 = arith.constant 9 : index"
    )
    with pytest.raises(LocatedVerifyError, match=r"<string>:\d+:\d+: error: memref.store: index 9 is out of bounds"):
        parse_text(text)
