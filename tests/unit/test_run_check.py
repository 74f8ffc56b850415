"""graph-run --check's comparison rule (graphopt.tools.run_check)."""

import numpy as np

from graphopt.tools.run_check import compare, compare_output

EPS32 = float(np.finfo(np.float32).eps)


def _data(n=4096, seed=0):
    rng = np.random.default_rng(seed)
    exact = rng.standard_normal(n) * 1000.0
    ref32 = exact.astype(np.float32)
    return exact, ref32


def test_result_as_accurate_as_the_f32_reference_passes():
    exact, ref32 = _data()
    # A compiled result off by a couple of f32 ulps of the output's scale,
    # also where the output is near 0 (a fixed atol 1e-5 fails there).
    got = (exact + 2 * EPS32 * 1000.0).astype(np.float32)
    assert not np.isclose(got, ref32, rtol=1e-4, atol=1e-5).all()
    assert compare([got], [ref32], [exact], EPS32) == []


def test_a_real_error_fails_and_names_the_worst_element():
    exact, ref32 = _data()
    got = ref32.copy()
    got[17] += 1.0
    got[123] += 5.0
    [line] = compare([got], [ref32], [exact], EPS32)
    assert line.startswith("output 0: 2 of 4096 elements differ; worst at (123,)")
    assert "float64 reference" in line and "allowed" in line


def test_f64_output_of_an_f32_computation_uses_f32_rounding():
    exact, ref32 = _data()
    out64 = (exact + 3 * EPS32 * 1000.0).astype(np.float32).astype(np.float64)
    assert compare([out64], [ref32.astype(np.float64)], [exact], EPS32) == []
    # Without the f32 computation, f64 tolerances apply.
    assert compare([out64], [exact], [exact], 0.0) != []


def test_non_finite_values_must_agree():
    ref = np.array([1.0, np.nan, np.inf, -np.inf], np.float32)
    assert compare_output(0, ref.copy(), ref, ref.astype(np.float64)) is None
    got = ref.copy()
    got[1] = 0.0
    line = compare_output(0, got, ref, ref.astype(np.float64))
    assert line is not None and "worst at (1,)" in line
    got = ref.copy()
    got[3] = np.inf
    assert compare_output(0, got, ref, None) is not None


def test_integers_exactly_and_shapes():
    a = np.arange(6, dtype=np.int32)
    assert compare([a], [a.copy()]) == []
    b = a.copy()
    b[4] = 0
    assert "first at (4,)" in compare([b], [a])[0]
    assert "compiled (6,) int32, reference (2, 3) int32" in compare([a], [a.reshape(2, 3)])[0]
