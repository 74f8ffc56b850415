"""The math ops (graph.elementwise, graph.reduce): numpy reference semantics, compiled
code against the reference, build-time errors, and how fusion and lowering
treat log_softmax."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from xdsl.dialects import math as mathd
from xdsl.dialects import scf
from xdsl.utils.exceptions import VerifyException

import graphopt
from graphopt.dialects import graph
from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.fused import GroupOp
from graphopt.dialects.graph import f64, i1, i32
from graphopt.dialects.graph import cast_array
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import run_pipeline
from graphopt.runtime.reference import interpret
from op_check import RandomArrays, build_module, compiled_matches_reference
from graphopt.transforms.fold_constants import fold_constants

rand = RandomArrays(2468)


def check(
    fn: Callable[[GraphBuilder, list], object],
    inputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    opt_level: int | None = None,
) -> list[np.ndarray]:
    """Compiled == reference (floats to ``rtol``/``atol``, the rest exactly),
    and the reference == ``expected`` when given.  Returns the reference."""
    want = compiled_matches_reference(fn, inputs, rtol, atol, opt_level=opt_level)
    if expected is not None:
        for w, e in zip(want, expected):
            assert w.dtype == np.asarray(e).dtype
            np.testing.assert_allclose(w, e, rtol=rtol, atol=atol)
    return want


def erf64(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x.astype(np.float64))


# --------------------------------------------------------------------------
# unary
# --------------------------------------------------------------------------

UNARY_NUMPY = {
    "abs": np.abs,
    "erf": lambda x: erf64(x).astype(x.dtype),
    "sin": np.sin,
    "cos": np.cos,
}


@pytest.mark.parametrize("name", list(UNARY_NUMPY))
@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 4)])
def test_unary(name: str, shape) -> None:
    x = rand(shape)
    check(lambda b, a: getattr(b, name)(a[0]), [x], [UNARY_NUMPY[name](x)])


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64])
def test_abs_dtypes(dtype) -> None:
    x = rand((3, 5), dtype)
    check(lambda b, a: b.abs(a[0]), [x], [np.abs(x)], rtol=1e-12, atol=0)


def test_rsqrt() -> None:
    x = np.abs(rand((4, 6))) + 0.05
    check(lambda b, a: b.rsqrt(a[0]), [x], [1.0 / np.sqrt(x)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendentals_f64(dtype) -> None:
    x = rand((3, 4), dtype) * 3
    tol = 1e-12 if dtype == np.float64 else 1e-5
    want = np.cos(np.sin(erf64(x))).astype(dtype)
    check(lambda b, a: b.cos(b.sin(b.erf(a[0]))), [x], [want], rtol=tol, atol=tol)


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu(approximate: bool, dtype) -> None:
    x = (rand((5, 8), dtype) * 3).astype(dtype)
    xd = x.astype(np.float64)
    if approximate:
        want = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))
    else:
        want = 0.5 * xd * (1 + erf64(xd / math.sqrt(2)))
    tol = 1e-12 if dtype == np.float64 else 1e-5
    check(lambda b, a: b.gelu(a[0], approximate), [x], [want.astype(dtype)], rtol=tol, atol=tol)


def test_gelu_known_values() -> None:
    x = np.array([-3.0, -1.0, 0.0, 1.0, 3.0], np.float64)
    exact = np.array([-0.0040496941, -0.1586552539, 0.0, 0.8413447461, 2.9959503059])
    check(lambda b, a: b.gelu(a[0]), [x], [exact], rtol=1e-8, atol=1e-9)
    tanh = np.array([-0.0036373921, -0.1588080094, 0.0, 0.8411919906, 2.9963626079])
    check(lambda b, a: b.gelu(a[0], approximate=True), [x], [tanh], rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("alpha", [0.01, 0.2, -1.5])
def test_leaky_relu(alpha: float) -> None:
    x = rand((3, 7))
    want = np.where(x > 0, x, x * np.float32(alpha))
    check(lambda b, a: b.leaky_relu(a[0], alpha), [x], [want])


def test_leaky_relu_default_alpha_f64() -> None:
    x = rand((2, 5), np.float64)
    check(lambda b, a: b.leaky_relu(a[0]), [x], [np.where(x > 0, x, 0.01 * x)], rtol=1e-12)


@pytest.mark.parametrize(
    "dtype,lo,hi",
    [
        (np.float32, -0.5, 0.75),
        (np.float64, 0.0, math.inf),
        (np.float32, -math.inf, 0.0),
        (np.int32, -3.0, 4.0),
        (np.int64, 0.0, 1e30),  # a bound beyond the range clamps to it
        (np.int32, -math.inf, 2.0),
    ],
)
def test_clip(dtype, lo: float, hi: float) -> None:
    x = rand((4, 5), dtype)
    want = np.clip(x.astype(np.float64), lo, hi).astype(dtype)
    check(lambda b, a: b.clip(a[0], lo, hi), [x], [want], rtol=0, atol=0)


def test_clip_nan_stays_nan() -> None:
    x = np.array([np.nan, -2.0, 0.5, 9.0], np.float32)
    want = np.array([np.nan, -1.0, 0.5, 1.0], np.float32)
    check(lambda b, a: b.clip(a[0], -1.0, 1.0), [x], [want])


# --------------------------------------------------------------------------
# binary and comparisons
# --------------------------------------------------------------------------

BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
]


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS)
def test_pow(shapes) -> None:
    base, exponent = np.abs(rand(shapes[0])) + 0.1, rand(shapes[1])
    check(lambda b, a: b.pow(a[0], a[1]), [base, exponent], [np.power(base, exponent)])


def test_pow_f64_negative_base() -> None:
    base = np.array([-2.0, -2.0, 4.0, 0.0], np.float64)
    exponent = np.array([3.0, 0.5, -0.5, 2.0], np.float64)
    with np.errstate(invalid="ignore"):
        want = np.power(base, exponent)
    check(lambda b, a: b.pow(a[0], a[1]), [base, exponent], [want], rtol=1e-12)


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_minimum(shapes, dtype) -> None:
    x, y = rand(shapes[0], dtype), rand(shapes[1], dtype)
    check(lambda b, a: b.minimum(a[0], a[1]), [x, y], [np.minimum(x, y)])


def test_minimum_propagates_nan() -> None:
    x = np.array([np.nan, 1.0, 2.0], np.float32)
    y = np.array([0.0, np.nan, 1.0], np.float32)
    check(lambda b, a: b.minimum(a[0], a[1]), [x, y], [np.minimum(x, y)])


COMPARE = {"greater": np.greater, "less": np.less, "equal": np.equal}


@pytest.mark.parametrize("name", list(COMPARE))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((2, 1), (1, 3))])
def test_compare(name: str, dtype, shapes) -> None:
    # small integers so that equal is true somewhere
    x = rand.rng.integers(-2, 3, size=shapes[0]).astype(dtype)
    y = rand.rng.integers(-2, 3, size=shapes[1]).astype(dtype)
    (want,) = check(lambda b, a: getattr(b, name)(a[0], a[1]), [x, y], [COMPARE[name](x, y)])
    assert want.dtype == np.bool_


def test_compare_nan_is_false() -> None:
    x = np.array([np.nan, np.nan, 1.0, 2.0], np.float32)
    y = np.array([np.nan, 1.0, np.nan, 2.0], np.float32)
    for name, fn in COMPARE.items():
        check(lambda b, a: getattr(b, name)(a[0], a[1]), [x, y], [fn(x, y)])


def test_equal_on_i1() -> None:
    x, y = rand((3, 4), np.bool_), rand((4,), np.bool_)
    check(lambda b, a: b.equal(a[0], a[1]), [x, y], [x == y])


# --------------------------------------------------------------------------
# where
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 4), (3, 4), (3, 4)),
        ((4,), (3, 4), ()),
        ((3, 1), (1, 4), (4,)),
        ((2, 1, 1), (3, 1), (1, 4)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_where(shapes, dtype) -> None:
    c, x, y = rand(shapes[0], np.bool_), rand(shapes[1], dtype), rand(shapes[2], dtype)
    check(lambda b, a: b.where(a[0], a[1], a[2]), [c, x, y], [np.where(c, x, y)])


def test_where_of_a_comparison_f64() -> None:
    """relu written with where: the comparison fuses into the select."""
    x = rand((5, 6), np.float64)
    zero = np.zeros((), np.float64)
    check(
        lambda b, a: b.where(b.greater(a[0], a[1]), a[0], a[1]),
        [x, zero],
        [np.maximum(x, 0.0)],
        opt_level=2,
    )


# --------------------------------------------------------------------------
# cast
# --------------------------------------------------------------------------

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def cast_input(dtype) -> np.ndarray:
    """In-range values with fractions, negatives, zeros and ties for the src dtype."""
    if np.dtype(dtype).kind == "f":
        return np.array([[-7.75, -2.5, -0.5, -0.0], [0.0, 0.4, 1.5, 123.9]], dtype)
    if np.dtype(dtype).kind == "b":
        return np.array([[True, False, True, True], [False, False, True, False]])
    return np.array([[-100, -1, 0, 1], [2, 7, 99, 12345]], dtype)


@pytest.mark.parametrize("src", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dst", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cast(src, dst) -> None:
    x = cast_input(src)
    (want,) = check(lambda b, a: b.cast(a[0], dst), [x], [x.astype(dst)], rtol=0, atol=0)
    assert want.dtype == np.dtype(dst)


def test_cast_takes_element_types() -> None:
    x = cast_input(np.float32)
    check(lambda b, a: b.cast(b.cast(a[0], i32), f64), [x], [x.astype(np.int32).astype(np.float64)])
    check(lambda b, a: b.cast(a[0], i1), [x], [x != 0])


def test_cast_f64_to_f32_rounds() -> None:
    x = np.array([1.0 + 2.0**-30, 1e300, -1e300, 3.141592653589793], np.float64)
    with np.errstate(over="ignore"):
        want = x.astype(np.float32)
    check(lambda b, a: b.cast(a[0], np.float32), [x], [want], rtol=0, atol=0)


def test_cast_i64_to_i32_wraps() -> None:
    x = np.array([2**31, 2**32 + 5, -(2**31) - 1], np.int64)
    check(lambda b, a: b.cast(a[0], np.int32), [x], [x.astype(np.int32)])


def test_cast_out_of_range_saturates() -> None:
    """numpy leaves these undefined; graph.cast saturates and maps NaN to 0,
    in the reference and in compiled code alike."""
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.9], np.float32)
    check(
        lambda b, a: b.cast(a[0], np.int32),
        [x],
        [np.array([0, 2**31 - 1, -(2**31), 2**31 - 1, -(2**31), 2], np.int32)],
    )
    y = np.array([1e19, -1e19, 9.2e18], np.float64)
    check(
        lambda b, a: b.cast(a[0], np.int64),
        [y],
        [np.array([2**63 - 1, -(2**63), 9200000000000000000], np.int64)],
    )
    assert cast_array(np.array([np.nan], np.float32), np.dtype(np.bool_))[0]


def test_cast_folds() -> None:
    b = GraphBuilder("f")
    c = b.constant(np.array([1.7, -2.2, 0.0], np.float32))
    module = b.build(b.cast(c, np.int64))
    fold_constants(module)
    assert not [op for op in module.walk() if isinstance(op, graph.CastOp)]
    np.testing.assert_array_equal(interpret(module)[0], np.array([1, -2, 0], np.int64))


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["reduce_min", "reduce_prod"])
@pytest.mark.parametrize(
    "axes,keepdims", [((1,), False), ((-1,), True), ((0, 2), False), (None, False), ((-3, -2), True)]
)
def test_reductions(name: str, axes, keepdims: bool) -> None:
    x = rand((2, 3, 4))
    fn = np.min if name == "reduce_min" else np.prod
    ax = tuple(range(3)) if axes is None else tuple(a % 3 for a in axes)
    check(lambda b, a: getattr(b, name)(a[0], axes, keepdims), [x], [fn(x, axis=ax, keepdims=keepdims)])


@pytest.mark.parametrize("name", ["reduce_min", "reduce_prod"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_reductions_dtypes(name: str, dtype) -> None:
    x = rand((5, 6), dtype)
    fn = np.min if name == "reduce_min" else np.prod
    check(lambda b, a: getattr(b, name)(a[0], [0]), [x], [fn(x, axis=0).astype(dtype)], rtol=1e-12)


def test_reduce_prod_empty_axis_is_one() -> None:
    x = np.zeros((3, 0), np.float32)
    check(lambda b, a: b.reduce_prod(a[0], [1]), [x], [np.ones(3, np.float32)])


def test_reduce_min_nan_propagates() -> None:
    x = np.array([[1.0, np.nan, -3.0], [4.0, 5.0, -np.inf]], np.float32)
    check(lambda b, a: b.reduce_min(a[0], [1]), [x], [np.array([np.nan, -np.inf], np.float32)])


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax(axis: int, keepdims: bool) -> None:
    x = rand((3, 4, 5))
    (want,) = check(lambda b, a: b.argmax(a[0], axis, keepdims), [x], [np.argmax(x, axis, keepdims=keepdims)])
    assert want.dtype == np.int64


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64, np.bool_])
def test_argmax_dtypes_and_ties(dtype) -> None:
    """Ties (small integers, booleans) return the first index, as numpy does."""
    x = rand.rng.integers(-2, 2, size=(6, 7)).astype(dtype)
    for axis in (0, 1):
        check(lambda b, a: b.argmax(a[0], axis), [x], [np.argmax(x, axis)])


def test_argmax_extremes() -> None:
    """All -inf (or all the lowest integer) gives 0; the first NaN wins."""
    x = np.array(
        [[-np.inf, -np.inf, -np.inf], [1.0, np.nan, np.nan], [np.nan, 5.0, 1.0], [-np.inf, 2.0, 2.0]],
        np.float32,
    )
    check(lambda b, a: b.argmax(a[0], 1), [x], [np.array([0, 1, 0, 1])])
    low = np.full((2, 3), np.iinfo(np.int32).min, np.int32)
    check(lambda b, a: b.argmax(a[0], -1), [low], [np.array([0, 0])])


# --------------------------------------------------------------------------
# log_softmax
# --------------------------------------------------------------------------


def log_softmax64(x: np.ndarray, axis: int) -> np.ndarray:
    xd = x.astype(np.float64)
    shifted = xd - xd.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_log_softmax(axis: int) -> None:
    x = rand((3, 4, 5))
    check(lambda b, a: b.log_softmax(a[0], axis), [x], [log_softmax64(x, axis).astype(np.float32)])


def test_log_softmax_large_logits_f64() -> None:
    x = rand((4, 6), np.float64) * 1000
    (want,) = check(lambda b, a: b.log_softmax(a[0]), [x], [log_softmax64(x, -1)], rtol=1e-12)
    assert np.isfinite(want).all()


def test_log_softmax_with_epilogue_fuses_into_one_group() -> None:
    b = GraphBuilder("f")
    x = b.input((4, 6))
    y = b.mul(b.log_softmax(x), b.splat((), -1.0))
    module = b.build(y)
    run_pipeline(module, "fuse-ops")
    groups = [op for op in module.walk() if isinstance(op, GroupOp)]
    assert len(groups) == 1
    xs = rand((4, 6))
    check(
        lambda bb, a: bb.mul(bb.log_softmax(a[0]), bb.splat((), -1.0)),
        [xs],
        [(-log_softmax64(xs, -1)).astype(np.float32)],
        opt_level=2,
    )


def test_log_softmax_hoists_row_statistics() -> None:
    """The row's max and log-sum-exp are computed once per row: the only
    ``math.log`` sits in the row loop, outside the loop over the row."""
    module = build_module(lambda b, a: b.log_softmax(a[0], 1), [rand((4, 6))])
    lower_graph_to_loop(module)
    logs = [op for op in module.walk() if isinstance(op, mathd.LogOp)]
    assert len(logs) == 1
    depth, parent = 0, logs[0].parent_op()
    while parent is not None:
        depth += isinstance(parent, scf.ForOp)
        parent = parent.parent_op()
    assert depth == 1


# --------------------------------------------------------------------------
# op classes, fuse patterns and build-time errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,pattern",
    [
        ("abs", FusePattern.ELEMWISE),
        ("gelu", FusePattern.ELEMWISE),
        ("clip", FusePattern.ELEMWISE),
        ("cast", FusePattern.ELEMWISE),
        ("pow", FusePattern.BROADCAST),
        ("equal", FusePattern.BROADCAST),
        ("where", FusePattern.BROADCAST),
        ("reduce_prod", FusePattern.COMM_REDUCE),
        ("argmax", FusePattern.COMM_REDUCE),
        ("log_softmax", FusePattern.OUT_EWISE_FUSABLE),
    ],
)
def test_fuse_patterns(name: str, pattern: FusePattern) -> None:
    cls = graph.op_class_by_name(name)
    assert cls is not None and cls.FUSE_PATTERN == pattern


@pytest.mark.parametrize(
    "build_fn,message",
    [
        (lambda b: b.clip(b.input((3,)), 2.0, 1.0), "min 2.0 is greater than max 1.0"),
        (
            lambda b: b.where(b.input((3,)), b.input((3,)), b.input((3,))),
            "condition must have element type i1",
        ),
        (
            lambda b: b.where(b.input((2, 1), np.bool_), b.input((3,)), b.input((4,))),
            r"shapes are not broadcastable \(2x1 vs 3 vs 4\)",
        ),
        (lambda b: b.minimum(b.input((2, 3)), b.input((4,))), r"not broadcastable \(2x3 vs 4\)"),
        (
            lambda b: b.greater(b.input((3,)), b.input((3,), np.float64)),
            r"element types differ \(f32 vs f64\)",
        ),
        (lambda b: b.argmax(b.input((3, 0)), 1), r"empty axis \(axis 1 of 3x0\)"),
        (lambda b: b.argmax(b.input((3, 4)), 2), "axis 2 is out of range for rank 2"),
        (lambda b: b.cast(b.input((3,)), np.float16), "unsupported numpy dtype float16"),
    ],
)
def test_build_errors(build_fn, message: str) -> None:
    b = GraphBuilder("f")
    with pytest.raises((VerifyException, ValueError), match=message):
        b.build(build_fn(b))


def test_verifier_catches_wrong_element_types() -> None:
    b = GraphBuilder("f")
    b.pow(b.input((3,), np.int32), b.input((3,), np.int32))
    with pytest.raises(VerifyException, match="graph.pow: operand #0 has element type i32"):
        b.build()
