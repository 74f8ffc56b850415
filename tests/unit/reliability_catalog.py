"""A catalogue of every graph op at edge-case shapes, shared by the
reliability tests (rank 0, zero-size) and the differential suite.

``cases(kind)`` yields ``(op name, build, inputs)`` for ``kind`` in
``"rank0"`` (0-d operands or 0-d results), ``"empty"`` (a zero-size
dimension) and ``"small"`` (ordinary small shapes).  ``build(b, args)``
returns the function's outputs for a :class:`GraphBuilder`.  Ops that cannot
be built at a kind (conv2d has no 0-d form) are listed in ``NOT_APPLICABLE``
with the verifier error they raise instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from graphopt.dialects.graph import GatherGradOp, SliceGradOp
from graphopt.dialects.graph import (
    AvgPool2dGradOp,
    Conv2dGradFilterOp,
    Conv2dGradInputOp,
    MaxPool2dGradOp,
)

Build = Callable[[object, list], object]

UNARY_FLOAT = [
    "neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "rsqrt", "erf", "sin",
    "cos", "gelu", "leaky_relu", "clip", "zeros_like", "ones_like", "copy",
]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "greater", "less", "equal"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def values(shape: Sequence[int], dtype=np.float32, rng: np.random.Generator | None = None) -> np.ndarray:
    rng = rng or _rng()
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.uniform(0.25, 2.0, shape) * rng.choice([-1, 1], shape)).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-5, 6, shape).astype(dtype)


def positive(shape: Sequence[int], rng: np.random.Generator | None = None) -> np.ndarray:
    return np.abs(values(shape, rng=rng)) + np.float32(0.5)


def _unary(name: str, shape) -> tuple[Build, list]:
    x = positive(shape) if name in ("log", "sqrt", "rsqrt") else values(shape)
    if name == "clip":
        return (lambda b, a: b.clip(a[0], -1.0, 1.0)), [x]
    return (lambda b, a: getattr(b, name)(a[0])), [x]


def _binary(name: str, lhs, rhs) -> tuple[Build, list]:
    a = positive(lhs) if name == "pow" else values(lhs)
    c = values(rhs, rng=_rng(1))
    if name == "div":
        c = positive(rhs, rng=_rng(1))
    return (lambda b, x: getattr(b, name)(x[0], x[1])), [a, c]


def rank0_cases() -> Iterator[tuple[str, Build, list]]:
    s = ()
    for name in UNARY_FLOAT:
        yield (name, *_unary(name, s))
    for name in BINARY:
        yield (name, *_binary(name, s, s))
        yield (name + "/bcast", *_binary(name, s, (3,)))
    yield "constant", (lambda b, a: b.add(a[0], b.constant(np.float32(2.5)))), [values(s)]
    yield "where", (lambda b, a: b.where(a[0], a[1], a[2])), [np.array(True), values(s), values(s)]
    for dt in (np.float64, np.int32, np.int64, np.bool_):
        yield f"cast/{np.dtype(dt).name}", (lambda b, a, dt=dt: b.cast(a[0], dt)), [values(s)]
    for name in REDUCE:
        yield name, (lambda b, a, n=name: getattr(b, n)(a[0])), [values((3, 2))]
        yield name + "/of0d", (lambda b, a, n=name: getattr(b, n)(a[0], [])), [values(s)]
    yield "argmax", (lambda b, a: b.argmax(a[0], 0)), [values((5,))]
    yield "transpose", (lambda b, a: b.transpose(a[0], [])), [values(s)]
    yield "reshape/to0d", (lambda b, a: b.reshape(a[0], [])), [values((1, 1))]
    yield "reshape/from0d", (lambda b, a: b.reshape(a[0], [1])), [values(s)]
    yield "slice", (lambda b, a: b.slice(a[0], [], [])), [values(s)]
    yield "pad", (lambda b, a: b.pad(a[0], [])), [values(s)]
    yield "gather", (lambda b, a: b.gather(a[0], a[1], 0)), [values((4,)), np.array(2, np.int64)]
    yield "gather/2d", (lambda b, a: b.gather(a[0], a[1], 1)), [values((2, 3)), np.array(1, np.int64)]
    yield "broadcast_to", (lambda b, a: b.broadcast_to(a[0], [])), [values(s)]
    yield "broadcast_to/from0d", (lambda b, a: b.broadcast_to(a[0], [2, 3])), [values(s)]
    yield "expand_dims", (lambda b, a: b.expand_dims(a[0], [0])), [values(s)]
    yield "squeeze", (lambda b, a: b.squeeze(a[0])), [values((1, 1))]
    yield "fill", (lambda b, a: b.add(a[0], b.fill([], 1.5))), [values(s)]
    yield "dropout", (lambda b, a: b.dropout(a[0], 0.5, 3, True)), [values(s)]
    yield "add_n", (lambda b, a: b.add_n([a[0], a[1], a[0]])), [values(s), values(s)]
    yield "slice_grad", (lambda b, a: b.apply(SliceGradOp(a[0], [], [], []))), [values(s)]
    yield (
        "gather_grad",
        (lambda b, a: b.apply(GatherGradOp(a[0], a[1], [4], 0))),
        [np.array(1, np.int64), values(s)],
    )
    yield "matmul/to0d", (lambda b, a: b.reduce_sum(b.matmul(a[0], a[1]))), [values((2, 3)), values((3, 2))]


def empty_cases() -> Iterator[tuple[str, Build, list]]:
    e = (2, 0, 3)
    for name in UNARY_FLOAT:
        yield (name, *_unary(name, e))
    for name in BINARY:
        yield (name, *_binary(name, e, e))
        yield (name + "/bcast", *_binary(name, e, (1, 3)))
    yield (
        "constant",
        (lambda b, a: b.add(a[0], b.constant(np.zeros((2, 0, 3), np.float32)))),
        [values(e)],
    )
    for dt in (np.int32, np.int64, np.bool_, np.float64):
        yield (
            f"constant/{np.dtype(dt).name}",
            (lambda b, a, dt=dt: b.cast(b.add(a[0], b.cast(b.constant(np.zeros((2, 0), dt)), np.float32)), dt)),
            [values((2, 0))],
        )
    yield "where", (lambda b, a: b.where(a[0], a[1], a[2])), [values(e, np.bool_), values(e), values(e)]
    yield "cast", (lambda b, a: b.cast(a[0], np.int32)), [values(e)]
    for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_prod"):
        yield name, (lambda b, a, n=name: getattr(b, n)(a[0], [0, 2])), [values(e)]
    yield "reduce_sum/empty-axis", (lambda b, a: b.reduce_sum(a[0], [1])), [values(e)]
    yield "reduce_prod/empty-axis", (lambda b, a: b.reduce_prod(a[0], [1], True)), [values(e)]
    yield "argmax", (lambda b, a: b.argmax(a[0], 2)), [values(e)]
    yield "softmax", (lambda b, a: b.softmax(a[0], -1)), [values(e)]
    yield "log_softmax", (lambda b, a: b.log_softmax(a[0], 0)), [values(e)]
    yield "matmul/m0", (lambda b, a: b.matmul(a[0], a[1])), [values((0, 3)), values((3, 4))]
    yield "matmul/k0", (lambda b, a: b.matmul(a[0], a[1])), [values((2, 0)), values((0, 4))]
    yield "transpose", (lambda b, a: b.transpose(a[0], [2, 0, 1])), [values(e)]
    yield "reshape", (lambda b, a: b.reshape(a[0], [0, 6])), [values(e)]
    yield "concat", (lambda b, a: b.concat([a[0], a[1]], 1)), [values(e), values((2, 2, 3))]
    yield "split", (lambda b, a: b.split(a[0], [0, 3], 2)), [values((2, 1, 3))]
    yield "slice", (lambda b, a: b.slice(a[0], [1], [1], [0])), [values((3, 2))]
    yield "slice/of-empty", (lambda b, a: b.slice(a[0], [0], [2], [0])), [values(e)]
    yield "pad", (lambda b, a: b.pad(a[0], [0, 1, 0, 0, 2, 0])), [values(e)]
    yield "gather/empty-indices", (lambda b, a: b.gather(a[0], a[1], 0)), [values((4, 2)), np.zeros((0,), np.int64)]
    yield "gather/empty-data", (lambda b, a: b.gather(a[0], a[1], 0)), [values((3, 0)), np.array([0, 2], np.int64)]
    yield "broadcast_to", (lambda b, a: b.broadcast_to(a[0], [2, 0, 3])), [values((1, 3))]
    yield "expand_dims", (lambda b, a: b.expand_dims(a[0], [0])), [values(e)]
    yield "squeeze", (lambda b, a: b.squeeze(a[0], [0])), [values((1, 0, 3))]
    yield "flatten", (lambda b, a: b.flatten(a[0], 1)), [values(e)]
    yield "fill", (lambda b, a: b.add(a[0], b.fill([2, 0, 3], 1.5))), [values(e)]
    yield "dropout", (lambda b, a: b.dropout(a[0], 0.5, 3, True)), [values(e)]
    yield "add_n", (lambda b, a: b.add_n([a[0], a[1]])), [values(e), values(e)]
    x4, w4 = values((0, 2, 4, 4)), values((3, 2, 3, 3))
    yield "conv2d/n0", (lambda b, a: b.conv2d(a[0], a[1], (1, 1), (1, 1, 1, 1))), [x4, w4]
    yield "conv2d/c0", (lambda b, a: b.conv2d(a[0], a[1])), [values((1, 0, 4, 4)), values((2, 0, 3, 3))]
    yield "max_pool2d", (lambda b, a: b.max_pool2d(a[0], (2, 2), (2, 2))), [x4]
    yield "avg_pool2d", (lambda b, a: b.avg_pool2d(a[0], (2, 2), (2, 2))), [x4]
    yield "global_avg_pool", (lambda b, a: b.global_avg_pool(a[0])), [x4]
    c = values((2,))
    yield "batch_norm", (lambda b, a: b.batch_norm(a[0], a[1], a[1], a[1], b.abs(a[1]))), [x4, c]
    yield "layer_norm", (lambda b, a: b.layer_norm(a[0], a[1], a[1], -1)), [values((0, 4)), values((4,))]
    g4 = values((0, 3, 4, 4))
    yield (
        "conv2d_grad_input",
        (lambda b, a: b.apply(Conv2dGradInputOp(a[0], a[1], (0, 2, 4, 4), padding=(1, 1, 1, 1)))),
        [g4, w4],
    )
    yield (
        "conv2d_grad_filter",
        (lambda b, a: b.apply(Conv2dGradFilterOp(a[0], a[1], (3, 3), padding=(1, 1, 1, 1)))),
        [x4, g4],
    )
    p4 = values((0, 2, 2, 2))
    yield "max_pool2d_grad", (lambda b, a: b.apply(MaxPool2dGradOp(a[0], a[1], (2, 2), (2, 2)))), [x4, p4]
    yield "avg_pool2d_grad", (lambda b, a: b.apply(AvgPool2dGradOp(a[0], (0, 2, 4, 4), (2, 2), (2, 2)))), [p4]
    yield "slice_grad", (lambda b, a: b.apply(SliceGradOp(a[0], [3, 2], [1, 0], [1, 1]))), [values((0, 2))]
    yield (
        "gather_grad",
        (lambda b, a: b.apply(GatherGradOp(a[0], a[1], [4, 3], 0))),
        [np.zeros((0,), np.int64), values((0, 3))],
    )


def cases(kind: str) -> list[tuple[str, Build, list]]:
    return list({"rank0": rank0_cases, "empty": empty_cases}[kind]())


# Ops with no 0-d form: building them at rank 0 is a verifier error.
NOT_APPLICABLE_RANK0: dict[str, tuple[str, Build, list]] = {
    "matmul": ("rank >= 2", lambda b, a: b.matmul(a[0], a[1]), [values(()), values(())]),
    "softmax": ("out of range", lambda b, a: b.softmax(a[0]), [values(())]),
    "log_softmax": ("out of range", lambda b, a: b.log_softmax(a[0]), [values(())]),
    "concat": ("0-d", lambda b, a: b.concat([a[0], a[0]], 0), [values(())]),
    "split": ("out of range", lambda b, a: b.split(a[0], 1, 0), [values(())]),
    "flatten": ("out of range", lambda b, a: b.flatten(a[0], 1), [values(())]),
    "argmax": ("out of range", lambda b, a: b.argmax(a[0], 0), [values(())]),
    "conv2d": ("rank 4", lambda b, a: b.conv2d(a[0], a[1]), [values(()), values(())]),
    "max_pool2d": ("rank 4", lambda b, a: b.max_pool2d(a[0], (1, 1)), [values(())]),
    "avg_pool2d": ("rank 4", lambda b, a: b.avg_pool2d(a[0], (1, 1)), [values(())]),
    "global_avg_pool": ("rank >= 3", lambda b, a: b.global_avg_pool(a[0]), [values(())]),
    "layer_norm": ("rank >= 1", lambda b, a: b.layer_norm(a[0], a[0], a[0]), [values(())]),
    "batch_norm_train": ("rank >= 2", lambda b, a: b.batch_norm_train(a[0], a[0], a[0]), [values(())]),
}
