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


# Stores 1.0 to buf[i] for i < n into the caller's input buffer (so what the
# call wrote is seen even when it raises).
INTO_INPUT_ABI = '#loop.abi<inputs = ["n" : tensor<1xi64>, "buf" : tensor<4xf32>], outputs = [], workspace = 0>'
STORE_INTO_INPUT = f"""
func.func @fill(%n: memref<1xi64>, %buf: memref<4xf32>, %ws: memref<0xi8>) attributes {{loop.abi = {INTO_INPUT_ABI}}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %nv = memref.load %n[%c0] : memref<1xi64>
  %ub = arith.index_cast %nv : i64 to index
  scf.for %i = %c2 to %ub step %c1 {{
    memref.store %one, %buf[%i] : memref<4xf32>
  }}
  func.return
}}
"""


def test_checked_out_of_bounds_store_is_not_performed():
    """The store past the end goes to a scratch global, not to element 0:
    the buffer holds what the in-bounds stores wrote, as the error says."""
    fn = graphopt.compile(parse_text(STORE_INTO_INPUT), bounds_check=True)["fill"]
    buf = np.full(4, 5.0, np.float32)
    with pytest.raises(BoundsError, match="it was not performed"):
        fn(np.array([6], np.int64), buf)
    np.testing.assert_array_equal(buf, [5.0, 5.0, 1.0, 1.0])


def test_constant_out_of_bounds_index_is_rejected_when_parsed():
    text = STORE_UP_TO_N.replace("%out[%i]", "%out[%c9]").replace(
        "%one = arith.constant 1.0 : f32", "%one = arith.constant 1.0 : f32\n  %c9 = arith.constant 9 : index"
    )
    with pytest.raises(LocatedVerifyError, match=r"<string>:\d+:\d+: error: memref.store: index 9 is out of bounds"):
        parse_text(text)



VEC_ABI = '#loop.abi<inputs = ["at" : tensor<2xi64>, "x" : tensor<2x32xf32>], outputs = ["out" : tensor<2x32xf32>], workspace = 0>'

# out[i, j .. j+16) = x[i, j .. j+16) + 1 (row-major, on into the next row),
# (i, j) given at run time; out is zeroed first.
VECTOR_AT = f"""
func.func @shift(%at: memref<2xi64>, %x: memref<2x32xf32>, %out: memref<2x32xf32>, %ws: memref<0xi8>) attributes {{loop.abi = {VEC_ABI}}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %z = vector.broadcast %zero : f32 to vector<16xf32>
  %o = vector.broadcast %one : f32 to vector<16xf32>
  vector.store %z, %out[%c0, %c0] : memref<2x32xf32>, vector<16xf32>
  vector.store %z, %out[%c0, %c16] : memref<2x32xf32>, vector<16xf32>
  vector.store %z, %out[%c1, %c0] : memref<2x32xf32>, vector<16xf32>
  vector.store %z, %out[%c1, %c16] : memref<2x32xf32>, vector<16xf32>
  %iv = memref.load %at[%c0] : memref<2xi64>
  %jv = memref.load %at[%c1] : memref<2xi64>
  %i = arith.index_cast %iv : i64 to index
  %j = arith.index_cast %jv : i64 to index
  %v = vector.load %x[%i, %j] : memref<2x32xf32>, vector<16xf32>
  %s = arith.addf %v, %o : vector<16xf32>
  vector.store %s, %out[%i, %j] : memref<2x32xf32>, vector<16xf32>
  func.return
}}
"""


@pytest.mark.parametrize("i,j", [(1, 0), (1, 16), (0, 17), (0, 31)])
def test_checked_vector_access_in_bounds(i, j):
    """Inside the memref, also on into the next row (row-major)."""
    fn = graphopt.compile(parse_text(VECTOR_AT), bounds_check=True)["shift"]
    x = np.arange(64, dtype=np.float32).reshape(2, 32)
    want = np.zeros(64, np.float32)
    start = i * 32 + j
    want[start:start + 16] = x.reshape(-1)[start:start + 16] + 1
    np.testing.assert_array_equal(fn(np.array([i, j], np.int64), x), want.reshape(2, 32))


@pytest.mark.parametrize("i,j", [(1, 17), (1, 31), (0, 32), (2, 0), (0, 1 << 40)])
def test_checked_vector_access_reports_a_vector_past_the_end(i, j):
    """The vector's first element inside the memref, its last past the end;
    or an index outside its dimension."""
    fn = graphopt.compile(parse_text(VECTOR_AT), bounds_check=True)["shift"]
    with pytest.raises(BoundsError, match="out of bounds"):
        fn(np.array([i, j], np.int64), np.zeros((2, 32), np.float32))
    fn(np.array([0, 3], np.int64), np.zeros((2, 32), np.float32))  # the flag was cleared
