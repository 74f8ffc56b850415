"""The tensor ops (concat, split, slice, pad, broadcast_to, expand_dims,
squeeze, flatten, gather, fill, zeros_like, ones_like, dropout, copy): numpy
reference semantics, compiled code against the reference, and how passes
treat the random and copy ops."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

import graphopt
from graphopt.dialects import graph, loop
from graphopt.dialects.graph import f64, i1, i32
from graphopt.dialects.graph import dropout_hash, dropout_keep_mask
from graphopt.dialects.graph import onnx_slice_range
from graphopt.frontends.builder import GraphBuilder
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.compile import parse_text, run_pipeline
from op_check import RandomArrays, assert_matches, build_module, compiled_matches_reference
from graphopt.transforms.fold_constants import fold_constants

rand = RandomArrays(4321)


def check(
    fn: Callable[[GraphBuilder, list], object],
    inputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray] | None = None,
    exact: bool = True,
) -> list[np.ndarray]:
    """Compiled == reference, bit for bit unless ``exact`` is false (a
    transcendental producer may differ from numpy by an ulp), and the
    reference == ``expected`` when given."""
    want = compiled_matches_reference(fn, inputs, rtol=1e-6, atol=1e-7, exact=exact)
    if expected is not None:
        assert len(expected) == len(want)
        for w, e in zip(want, expected):
            assert_matches(w, e, rtol=0, atol=0, exact=True)
    return want


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]

# --------------------------------------------------------------------------
# concat and split
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_concat(n: int, axis: int) -> None:
    sizes = [2, 1, 3][:n]
    base = [2, 3, 4]
    shapes = [[s if d == axis % 3 else base[d] for d in range(3)] for s in sizes]
    xs = [rand(s) for s in shapes]
    check(lambda b, a: b.concat(a, axis=axis), xs, [np.concatenate(xs, axis=axis)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_concat_dtypes(dtype) -> None:
    xs = [rand((3, 2), dtype), rand((3, 1), dtype), rand((3, 4), dtype)]
    check(lambda b, a: b.concat(a, axis=-1), xs, [np.concatenate(xs, axis=-1)])


def test_concat_empty_piece_and_fused_producers() -> None:
    """An empty input is skipped; producers are inlined and read clamped."""
    xs = [rand((2, 3)), rand((0, 3)), rand((4, 3))]
    check(
        lambda b, a: b.relu(b.concat([b.exp(a[0]), a[1], b.neg(a[2])], axis=0)),
        xs,
        [np.maximum(np.concatenate([np.exp(xs[0]), xs[1], -xs[2]]), 0)],
        exact=False,
    )


def test_concat_same_input_twice() -> None:
    x = rand((2, 3), np.int32)
    check(lambda b, a: b.concat([a[0], a[0], a[0]], axis=1), [x], [np.concatenate([x, x, x], 1)])


SPLITS = [((7, 4), [2, 5], 0), ((3, 9), [1, 0, 8], -1), ((2, 6, 3), [4, 1, 1], 1)]


@pytest.mark.parametrize("shape,sizes,axis", SPLITS)
def test_split_all_used(shape, sizes, axis) -> None:
    x = rand(shape)
    cuts = np.cumsum(sizes)[:-1]
    check(lambda b, a: b.split(a[0], sizes, axis=axis), [x], np.split(x, cuts, axis=axis))


@pytest.mark.parametrize("shape,sizes,axis", SPLITS)
def test_split_some_used(shape, sizes, axis) -> None:
    """Only the last piece is returned: the others are dead results."""
    x = rand(shape, np.int32)
    cuts = np.cumsum(sizes)[:-1]
    check(lambda b, a: b.split(a[0], sizes, axis=axis)[-1], [x], [np.split(x, cuts, axis=axis)[-1]])


def test_split_pieces_feed_other_ops() -> None:
    x = rand((4, 6))
    p = np.split(x, [1, 3], axis=1)

    def fn(b: GraphBuilder, a: list):
        first, _, last = b.split(a[0], [1, 2, 3], axis=1)
        return b.add(first, b.slice(last, [0], [1], axes=[1]))

    check(fn, [x], [p[0] + p[2][:, :1]])


def test_split_equal_pieces() -> None:
    x = rand((6, 2))
    check(lambda b, a: b.split(a[0], 3), [x], np.split(x, 3))


def test_split_rejects_unequal_count() -> None:
    b = GraphBuilder("f")
    x = b.input((5, 2))
    with pytest.raises(VerifyException, match="cannot split axis 0 of 5x2xf32 into 2 equal pieces"):
        b.split(x, 2)


# --------------------------------------------------------------------------
# slice
# --------------------------------------------------------------------------

SLICES = [
    # starts, ends, axes, steps, numpy index of a (5, 8) array
    ([1], [4], None, None, np.s_[1:4]),
    ([-3, 2], [100, -1], None, None, np.s_[-3:, 2:-1]),
    ([0], [8], [1], [3], np.s_[:, 0:8:3]),
    ([-1], [-100], [-1], [-2], np.s_[:, ::-2]),
    ([4, 6], [0, 1], [0, 1], [-1, -2], np.s_[4:0:-1, 6:1:-2]),
    ([2], [2], None, None, np.s_[2:2]),
    ([100], [-100], [0], [-1], np.s_[::-1]),
    ([1, -2], [5, -9], [1, 0], [2, -1], np.s_[-2::-1, 1:5:2]),
]


@pytest.mark.parametrize("starts,ends,axes,steps,index", SLICES)
def test_slice(starts, ends, axes, steps, index) -> None:
    x = rand((5, 8))
    check(lambda b, a: b.slice(a[0], starts, ends, axes=axes, steps=steps), [x], [x[index]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_slice_dtypes(dtype) -> None:
    x = rand((4, 3, 5), dtype)
    check(lambda b, a: b.slice(a[0], [-1, 1], [0, 5], axes=[0, 2], steps=[-1, 2]), [x], [x[3:0:-1, :, 1:5:2]])


def test_onnx_slice_clamping() -> None:
    """ONNX clamps a negative-step start to [0, dim-1], so a start before the
    beginning still selects element 0 (Python's slice would select nothing)."""
    assert onnx_slice_range(-10, -20, -1, 5) == (0, 1)
    assert onnx_slice_range(10, -20, -1, 5) == (4, 5)
    assert onnx_slice_range(-10, 20, 2, 5) == (0, 3)
    assert onnx_slice_range(3, 1, 1, 5) == (3, 0)
    x = np.arange(5, dtype=np.int64)
    check(lambda b, a: b.slice(a[0], [-10], [-20], steps=[-1]), [x], [x[:1]])


def test_slice_matches_python_where_they_agree() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        dim = int(rng.integers(0, 7))
        step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        start, end = (int(v) for v in rng.integers(-9, 10, size=2))
        first, count = onnx_slice_range(start, end, step, dim)
        if step < 0 and start + (dim if start < 0 else 0) < 0:
            continue  # the one place ONNX and Python differ (see above)
        want = list(range(dim))[start:end:step]
        assert [first + step * k for k in range(count)] == want, (start, end, step, dim)


# --------------------------------------------------------------------------
# pad, gather
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape,pads",
    [((3, 4), [1, 0, 2, 3]), ((5,), [0, 4]), ((2, 3, 2), [0, 1, 2, 3, 0, 1]), ((2, 2), [0, 0, 0, 0])],
)
def test_pad(shape, pads) -> None:
    x = rand(shape)
    r = len(shape)
    want = np.pad(x, [(pads[k], pads[r + k]) for k in range(r)], constant_values=np.float32(-2.5))
    check(lambda b, a: b.pad(a[0], pads, -2.5), [x], [want])


@pytest.mark.parametrize("dtype,value", [(np.int32, 7), (np.int64, -3), (np.float64, 0.25), (np.bool_, 1)])
def test_pad_dtypes(dtype, value) -> None:
    x = rand((2, 3), dtype)
    want = np.pad(x, [(2, 0), (1, 1)], constant_values=np.asarray(value).astype(dtype))
    check(lambda b, a: b.pad(a[0], [2, 1, 0, 1], value), [x], [want])


def test_pad_fused_with_producer() -> None:
    x = rand((3, 3))
    check(lambda b, a: b.exp(b.pad(b.neg(a[0]), [1, 1, 1, 1])), [x], [np.exp(np.pad(-x, 1))], exact=False)


@pytest.mark.parametrize(
    "shape,indices,axis",
    [
        ((5, 3), [4, -1, 0, -5], 0),
        ((5, 3), [[0, -1], [2, -3]], -1),
        ((2, 4, 3), [[1], [-2]], 1),
        ((4, 6), -2, -1),
    ],
)
def test_gather(shape, indices, axis) -> None:
    x = rand(shape)
    idx = np.asarray(indices, dtype=np.int64)
    check(lambda b, a: b.gather(a[0], a[1], axis=axis), [x, idx], [np.take(x, idx, axis=axis)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_dtypes(dtype) -> None:
    x, idx = rand((4, 3), dtype), np.array([3, -4, 1], np.int64)
    check(lambda b, a: b.gather(a[0], a[1], axis=0), [x, idx], [np.take(x, idx, axis=0)])


def test_gather_out_of_range_is_clamped() -> None:
    x = np.arange(5, dtype=np.float32)
    idx = np.array([7, -6, -100, 4, 5], np.int64)
    check(lambda b, a: b.gather(a[0], a[1]), [x, idx], [np.array([4, 0, 0, 4, 4], np.float32)])


def test_gather_computed_indices() -> None:
    """Indices produced by another op are inlined too."""
    x, idx = rand((6, 2)), np.array([[1, -2], [0, 5]], np.int64)
    check(lambda b, a: b.gather(a[0], b.neg(a[1]), axis=0), [x, idx], [np.take(x, -idx, axis=0)])


# --------------------------------------------------------------------------
# broadcast_to, expand_dims, squeeze, flatten
# --------------------------------------------------------------------------


@pytest.mark.parametrize("src,dst", [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (3, 2)), ((1, 3, 1), (2, 3, 4))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_broadcast_to(src, dst, dtype) -> None:
    x = rand(src, dtype)
    check(lambda b, a: b.broadcast_to(a[0], dst), [x], [np.broadcast_to(x, dst).copy()])


@pytest.mark.parametrize("axes", [[0], [-1], [0, 2], [1, -1], [3, 0]])
def test_expand_dims(axes) -> None:
    x = rand((2, 3), np.float64)
    check(lambda b, a: b.expand_dims(a[0], axes), [x], [np.expand_dims(x, axes)])


@pytest.mark.parametrize("axes", [None, [0], [-1], [0, 2]])
def test_squeeze(axes) -> None:
    x = rand((1, 3, 1), np.int32)
    want = np.squeeze(x) if axes is None else np.squeeze(x, tuple(axes))
    check(lambda b, a: b.squeeze(a[0], axes), [x], [want])


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_flatten(axis) -> None:
    x = rand((2, 3, 4))
    a = axis + 3 if axis < 0 else axis
    want = x.reshape(int(np.prod(x.shape[:a])), -1)
    check(lambda b, args: b.flatten(args[0], axis), [x], [want])


def test_flatten_bool() -> None:
    x = rand((2, 1, 3), np.bool_)
    check(lambda b, a: b.flatten(a[0]), [x], [x.reshape(2, 3)])


@pytest.mark.parametrize("shapes", [((2, 12, 5, 7), (2, 3, 4, 5, 7)), ((6, 5, 7), (3, 2, 35)), ((4, 6), (24,))])
def test_reshape_keeps_shared_trailing_dims(shapes) -> None:
    """A reshape maps its index through the dims that differ; the trailing
    dims both shapes share pass through (ShuffleNet's channel shuffle:
    the channel index divided once a pixel row, not every pixel divided)."""
    a, b_shape = shapes
    x = rand(a)
    check(lambda b, args: b.reshape(args[0], b_shape), [x], [x.reshape(b_shape)])
    check(lambda b, args: b.reshape(args[0], a), [x.reshape(b_shape)], [x])


def test_channel_shuffle_divides_outside_the_pixel_loops() -> None:
    x = rand((1, 12, 5, 7))
    b = GraphBuilder("f")
    xi = b.input(x.shape)
    y = b.reshape(b.transpose(b.reshape(xi, (1, 3, 4, 5, 7)), (0, 2, 1, 3, 4)), (1, 12, 5, 7))
    m = b.build(y)
    want = x.reshape(1, 3, 4, 5, 7).transpose(0, 2, 1, 3, 4).reshape(1, 12, 5, 7)
    np.testing.assert_array_equal(graphopt.compile(m, opt_level=2)["f"](x), want)
    run_pipeline(m, "O2")
    lower_graph_to_loop(m)
    assert sum(isinstance(op, func.FuncOp) for op in m.walk()) == 2  # one kernel and the driver
    inner = [op for op in m.walk() if isinstance(op, memref.LoadOp)]
    assert inner and all(not isinstance(v.owner, arith.DivUIOp | arith.RemUIOp) for op in inner for v in op.operands[-2:])


# --------------------------------------------------------------------------
# fill, zeros_like, ones_like
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "elem,dtype,value", [(i32, np.int32, -7), (f64, np.float64, 0.1), (i1, np.bool_, 1), (i1, np.bool_, 0)]
)
def test_fill(elem, dtype, value) -> None:
    check(lambda b, a: b.fill((2, 3), value, elem), [], [np.full((2, 3), value, dtype)])


def test_fill_fused_is_a_scalar() -> None:
    """Inside a group a fill is one constant: no buffer, no load."""
    module = parse_text(
        """
func.func @f(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %r = fused.group "fill_add" pattern(elemwise) (%a = %x : tensor<4x5xf32>) -> (tensor<4x5xf32>) {
    %f = graph.fill {shape = array<i64: 4, 5>, value = 2.5 : f64} : tensor<4x5xf32>
    %s = graph.add %a, %f : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    fused.yield %s : tensor<4x5xf32>
  }
  func.return %r : tensor<4x5xf32>
}
"""
    )
    x = rand((4, 5))
    np.testing.assert_array_equal(graphopt.compile(module)["f"](x), x + np.float32(2.5))
    lower_graph_to_loop(module)
    driver = next(op for op in module.walk() if loop.get_driver_abi(op) is not None)
    assert loop.get_driver_abi(driver).workspace_bytes.data == 0
    loads = [op for op in module.walk() if isinstance(op, memref.LoadOp)]
    assert len(loads) == 1


def test_fill_folds_to_a_splat() -> None:
    module = build_module(lambda b, a: b.fill((1000, 1000), 3.0, i32), [])
    fold_constants(module)
    (const,) = [op for op in module.walk() if isinstance(op, graph.ConstantOp)]
    assert const.is_splat
    assert not [op for op in module.walk() if isinstance(op, graph.FillOp)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_like(dtype) -> None:
    x = rand((3, 2), dtype)
    check(
        lambda b, a: (b.zeros_like(a[0]), b.ones_like(a[0])),
        [x],
        [np.zeros_like(x), np.ones_like(x)],
    )


# --------------------------------------------------------------------------
# dropout and copy
# --------------------------------------------------------------------------


def _fmix32(h: int) -> int:
    """Plain-Python murmur3 finaliser, to check the numpy hash independently."""
    m = 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & m
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & m
    return h ^ (h >> 16)


def test_dropout_hash_is_murmur_finaliser() -> None:
    idx = np.array([0, 1, 2, 12345, 2**32 - 1], np.uint64)
    got = dropout_hash(-5, idx)
    want = [_fmix32(((int(i) * 0x9E3779B9) & 0xFFFFFFFF) ^ ((-5) & 0xFFFFFFFF)) for i in idx]
    assert got.dtype == np.uint32 and got.tolist() == want


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rate,seed", [(0.5, 0), (0.1, 42), (0.9, -3), (0.0, 7)])
def test_dropout_training_matches_reference(dtype, rate, seed) -> None:
    """Compiled and reference masks are bit-identical, and the kept values
    are scaled by 1 / (1 - rate)."""
    x = rand((33, 65), dtype)
    (out,) = check(lambda b, a: b.dropout(a[0], rate, seed, True), [x])
    keep = dropout_keep_mask(seed, rate, x.shape)
    np.testing.assert_array_equal(out != 0, keep & (x != 0))
    np.testing.assert_array_equal(out[keep], x[keep] * np.asarray(1 / (1 - rate), dtype))
    assert abs(keep.mean() - (1 - rate)) < 0.03


def test_dropout_inference_is_identity() -> None:
    x = rand((4, 7))
    check(lambda b, a: b.dropout(a[0], 0.5, 3), [x], [x])


def test_dropout_deterministic_per_seed() -> None:
    x = np.ones((64, 64), np.float32)
    run = lambda seed: check(lambda b, a: b.dropout(a[0], 0.5, seed, True), [x])[0]  # noqa: E731
    np.testing.assert_array_equal(run(11), run(11))
    assert (run(11) != run(12)).any()


def test_dropout_fused_and_in_a_diamond() -> None:
    """The mask depends only on the dropout's own indices: reading it twice,
    through other ops, gives the same mask."""
    x = rand((8, 9))
    keep = dropout_keep_mask(5, 0.3, x.shape)
    d = np.where(keep, np.exp(x) * np.float32(1 / 0.7), np.float32(0))
    want = d * d
    (got,) = check(
        lambda b, a: (lambda v: b.mul(v, v))(b.dropout(b.exp(a[0]), 0.3, 5, True)), [x], exact=False
    )
    np.testing.assert_allclose(got, want, rtol=1e-6)


DROPOUTS = """
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64, training} : tensor<4xf32>
  %b = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64, training} : tensor<4xf32>
  %c = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64} : tensor<4xf32>
  %d = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64} : tensor<4xf32>
  %dead = graph.dropout %x {rate = 0.5 : f64, seed = 1 : i64, training} : tensor<4xf32>
  %k = graph.constant splat 1.0 : tensor<4xf32>
  %e = graph.dropout %k {rate = 0.5 : f64, seed = 1 : i64, training} : tensor<4xf32>
  %cp = graph.copy %k {device = "cpu"} : tensor<4xf32>
  %s = graph.add %e, %cp : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b, %c, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
"""


def _count(module, cls, training: bool | None = None) -> int:
    return sum(
        1
        for op in module.walk()
        if isinstance(op, cls) and (training is None or op.is_training == training)
    )


def test_dropout_cse_dce_fold() -> None:
    """Training dropouts are not merged by CSE nor folded, and an unused one is
    still dead code; inference dropouts (identities) do merge.  copy is
    never folded."""
    module = parse_text(DROPOUTS)
    assert not graph.DropoutOp.has_trait(Pure)
    assert _count(module, graph.DropoutOp, training=True) == 4
    CommonSubexpressionElimination().apply(Context(), module)
    DeadCodeElimination().apply(Context(), module)
    ret = next(op for op in module.walk() if isinstance(op, func.ReturnOp))
    a, b = (v.owner for v in ret.arguments[:2])
    assert a is not b and isinstance(a, graph.DropoutOp) and isinstance(b, graph.DropoutOp)
    assert _count(module, graph.DropoutOp, training=True) == 3  # %a, %b, %e; %dead is gone
    assert _count(module, graph.DropoutOp, training=False) == 1
    fold_constants(module)
    assert _count(module, graph.DropoutOp, training=True) == 3
    assert _count(module, graph.CopyOp) == 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_copy(dtype) -> None:
    x = rand((3, 4), dtype)
    check(lambda b, a: b.copy(a[0], "cpu"), [x], [x])


def test_builder_reports_shape_errors() -> None:
    b = GraphBuilder("f")
    x, y = b.input((2, 3)), b.input((3, 3))
    with pytest.raises(VerifyException, match=r"graph.concat: shapes differ outside axis 1 \(2x3 vs 3x3\)"):
        b.concat([x, y], axis=1)
    with pytest.raises(VerifyException, match="graph.broadcast_to: cannot broadcast 2x3 to 3x3"):
        b.broadcast_to(x, (3, 3))
