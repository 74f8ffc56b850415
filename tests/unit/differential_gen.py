"""Random graphs for the differential suite (``test_differential``).

``graph_for_seed(seed)`` builds one function from the whole op set (every
element type, zero-size and rank-0 shapes) with inputs that hold ±inf and
NaN, and ``check_seed(seed)`` compares, for -O0 .. -O3, the reference
interpreter after every pass of the level's pipeline and the compiled code
with the reference of the original graph.

Run as a script (``python differential_gen.py START COUNT``) it checks
seeds one after the other and prints ``START s`` before each and ``OK s`` /
``FAIL s message`` / ``SKIP s`` after it, so that a parent that sees the
process die knows which graph crashed it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import numpy as np

F32, F64, I32, I64, B = np.float32, np.float64, np.int32, np.int64, np.bool_
SHAPES = [(), (0,), (3,), (1, 3), (2, 3), (2, 0, 3), (2, 1, 4), (3, 1)]


class Gen:
    """One random function: a pool of values, grown op by op."""

    def __init__(self, seed: int):
        from graphopt.frontends.builder import GraphBuilder

        self.rng = np.random.default_rng(seed)
        self.b = GraphBuilder("f")
        self.inputs: list[np.ndarray] = []
        self.pool: list = []

    # -- values ---------------------------------------------------------------

    def array(self, shape, dtype) -> np.ndarray:
        r = self.rng
        dtype = np.dtype(dtype)
        if dtype.kind == "f":
            a = (r.uniform(0.25, 2.0, shape) * r.choice([-1.0, 1.0], shape)).astype(dtype)
            if a.size and r.random() < 0.35:
                flat = a.reshape(-1)
                for k in r.integers(0, a.size, r.integers(1, 3)):
                    flat[k] = r.choice([np.inf, -np.inf, np.nan])
            return a
        if dtype.kind == "b":
            return r.integers(0, 2, shape).astype(bool)
        return r.integers(-4, 5, shape).astype(dtype)

    def fresh(self, shape, dtype, constant: bool | None = None):
        """A new function input (or, sometimes, a constant) of ``shape``."""
        a = self.array(shape, dtype)
        if constant is None:
            constant = self.rng.random() < 0.2
        if constant:
            return self.b.constant(a)
        self.inputs.append(a)
        return self.b.input(a.shape, a.dtype)

    def pick(self, kinds: str = "fib"):
        from graphopt.dialects.graph import numpy_dtype, tensor_of

        choices = [v for v in self.pool if numpy_dtype(tensor_of(v).element_type).kind in kinds]
        if not choices:
            return None
        return choices[int(self.rng.integers(len(choices)))]

    def shape(self, v) -> tuple[int, ...]:
        return tuple(v.type.get_shape())

    def dtype(self, v) -> np.dtype:
        from graphopt.dialects.graph import numpy_dtype

        return numpy_dtype(v.type.element_type)

    def operand(self, kinds: str = "f"):
        v = self.pick(kinds)
        if v is None or self.rng.random() < 0.25:
            kind = kinds[int(self.rng.integers(len(kinds)))]
            dtype = {"f": [F32, F32, F64], "i": [I32, I64], "b": [B]}[kind]
            v = self.fresh(SHAPES[int(self.rng.integers(len(SHAPES)))], dtype[int(self.rng.integers(len(dtype)))])
        return v

    def nchw(self, dtype=F32):
        r = self.rng
        shape = (int(r.choice([0, 1, 2])), int(r.integers(1, 3)), int(r.integers(3, 6)), int(r.integers(3, 6)))
        return self.fresh(shape, dtype)

    def axes(self, rank: int) -> list[int]:
        return [a for a in range(rank) if self.rng.random() < 0.5]

    # -- ops ----------------------------------------------------------------

    def step(self, forced: int | None = None) -> None:
        """Apply one random op; raise VerifyException (and leave no op of the
        step behind) when the random operands do not fit it."""
        from xdsl.utils.exceptions import VerifyException

        block = self.b.block
        before = set(block.ops)
        name, make = OPS[int(self.rng.integers(len(OPS))) if forced is None else forced]
        try:
            out = make(self)
            for op in block.ops:
                if op not in before:
                    op.verify()
        except (VerifyException, ValueError, IndexError):
            for op in reversed(list(block.ops)):
                if op not in before:
                    block.erase_op(op, safe_erase=False)
            raise VerifyException(f"{name} does not fit") from None
        outs = out if isinstance(out, tuple) else (out,)
        self.pool.extend(o for o in outs if o is not None)


def _un(name: str, kinds: str = "f") -> Callable[[Gen], object]:
    def make(g: Gen):
        return getattr(g.b, name)(g.operand(kinds))

    return make


def _bin(name: str, kinds: str = "fi") -> Callable[[Gen], object]:
    def make(g: Gen):
        a = g.operand(kinds)
        r = g.rng.random()
        shape = g.shape(a)
        if r < 0.5:
            other = shape
        elif r < 0.75:
            other = shape[1:]
        else:
            other = tuple(1 if g.rng.random() < 0.5 else d for d in shape)
        b = g.fresh(other, g.dtype(a))
        return getattr(g.b, name)(*((a, b) if g.rng.random() < 0.5 else (b, a)))

    return make


def _reduce(name: str, kinds: str = "fi"):
    def make(g: Gen):
        x = g.operand(kinds)
        return getattr(g.b, name)(x, g.axes(len(g.shape(x))), bool(g.rng.random() < 0.5))

    return make


def _where(g: Gen):
    a = g.operand("fi")
    return g.b.where(g.fresh(g.shape(a), B), a, g.fresh(g.shape(a), g.dtype(a)))


def _cast(g: Gen):
    to = [F32, F64, I32, I64, B][int(g.rng.integers(5))]
    return g.b.cast(g.operand("fib"), to)


def _argmax(g: Gen):
    x = g.operand("fi")
    return g.b.argmax(x, int(g.rng.integers(-1, max(1, len(g.shape(x))))), bool(g.rng.random() < 0.5))


def _norm_axis(name: str):
    def make(g: Gen):
        x = g.operand("f")
        if not g.shape(x) or 0 in g.shape(x):
            x = g.fresh((2, 3), F32)
        return getattr(g.b, name)(x, int(g.rng.integers(-1, len(g.shape(x)))))

    return make


def _matmul(g: Gen):
    m, k, n = (int(v) for v in g.rng.integers(0, 4, 3))
    dt = [F32, F64][int(g.rng.integers(2))]
    lead = [(), (2,)][int(g.rng.integers(2))]
    return g.b.matmul(g.fresh((*lead, m, k), dt), g.fresh((k, n), dt))


def _transpose(g: Gen):
    x = g.operand("fib")
    return g.b.transpose(x, [int(a) for a in g.rng.permutation(len(g.shape(x)))])


def _reshape(g: Gen):
    x = g.operand("fib")
    n = int(np.prod(g.shape(x)))
    options = [[n], [1, n], [n, 1]] + ([[]] if n == 1 else []) + ([[0, 5]] if n == 0 else [])
    return g.b.reshape(x, options[int(g.rng.integers(len(options)))])


def _concat(g: Gen):
    x = g.operand("fib")
    shape = g.shape(x)
    axis = int(g.rng.integers(len(shape))) if shape else 0
    other = tuple(int(g.rng.integers(0, 3)) if i == axis else d for i, d in enumerate(shape))
    return g.b.concat([x, g.fresh(other, g.dtype(x))], axis)


def _operand_and_axis(g: Gen) -> tuple[object, tuple[int, ...], int] | None:
    """An operand of rank >= 1, its shape and one of its axes (None for a scalar)."""
    x = g.operand("fib")
    shape = g.shape(x)
    if not shape:
        return None
    return x, shape, int(g.rng.integers(len(shape)))


def _split(g: Gen):
    if (picked := _operand_and_axis(g)) is None:
        return None
    x, shape, axis = picked
    first = int(g.rng.integers(0, shape[axis] + 1))
    return g.b.split(x, [first, shape[axis] - first], axis)


def _slice(g: Gen):
    x = g.operand("fib")
    shape = g.shape(x)
    axes = g.axes(len(shape))
    starts = [int(g.rng.integers(-3, 4)) for _ in axes]
    ends = [int(g.rng.integers(-3, 5)) for _ in axes]
    steps = [int(g.rng.choice([1, 2, -1])) for _ in axes]
    return g.b.slice(x, starts, ends, axes, steps)


def _pad(g: Gen):
    x = g.operand("fib")
    pads = [int(v) for v in g.rng.integers(0, 3, 2 * len(g.shape(x)))]
    return g.b.pad(x, pads, float(g.rng.choice([0.0, 1.5, -2.0])))


def _gather(g: Gen):
    if (picked := _operand_and_axis(g)) is None:
        return None
    x, shape, axis = picked
    ishape = SHAPES[int(g.rng.integers(4))]
    idx = g.rng.integers(-shape[axis] - 1, shape[axis] + 2, ishape).astype(I64)
    g.inputs.append(idx)
    return g.b.gather(x, g.b.input(idx.shape, idx.dtype), axis)


def _broadcast_to(g: Gen):
    x = g.operand("fib")
    return g.b.broadcast_to(x, [int(g.rng.choice([0, 2])), *g.shape(x)])


def _expand_squeeze(g: Gen):
    x = g.operand("fib")
    y = g.b.expand_dims(x, [0])
    return g.b.squeeze(y, [0]) if g.rng.random() < 0.5 else y


def _flatten(g: Gen):
    x = g.operand("fib")
    rank = len(g.shape(x))
    return g.b.flatten(x, int(g.rng.integers(0, rank + 1))) if rank else None


def _fill(g: Gen):
    x = g.operand("f")
    return g.b.add(x, g.b.fill(list(g.shape(x)), float(g.rng.choice([0.0, 2.5, -1.0]))))


def _dropout(g: Gen):
    return g.b.dropout(g.operand("f"), 0.5, int(g.rng.integers(100)), True)


def _add_n(g: Gen):
    x = g.operand("fi")
    return g.b.add_n([x, g.fresh(g.shape(x), g.dtype(x)), x])


def _window(g: Gen):
    k = (int(g.rng.integers(1, 4)), int(g.rng.integers(1, 4)))
    s = (int(g.rng.integers(1, 3)), int(g.rng.integers(1, 3)))
    p = tuple(int(g.rng.integers(0, kk)) for kk in (k[0], k[1], k[0], k[1]))
    return k, s, p


def _conv(g: Gen):
    x = g.nchw()
    c = x.type.get_shape()[1]
    (kh, kw), s, p = _window(g)
    w = g.fresh((int(g.rng.integers(1, 3)), c, kh, kw), F32)
    return g.b.conv2d(x, w, s, p)


def _pool(name: str):
    def make(g: Gen):
        k, s, p = _window(g)
        extra = (bool(g.rng.random() < 0.5),) if name == "avg_pool2d" else ()
        return getattr(g.b, name)(g.nchw(), k, s, p, *extra)

    return make


def _norms(g: Gen, which: int):
    x = g.nchw()
    c = x.type.get_shape()[1]
    if which == 0:
        var = g.b.abs(g.fresh((c,), F32))
        return g.b.batch_norm(x, g.fresh((c,), F32), g.fresh((c,), F32), g.fresh((c,), F32), var)
    if which == 1:
        return g.b.batch_norm_train(x, g.fresh((c,), F32), g.fresh((c,), F32))
    last = x.type.get_shape()[3]
    return g.b.layer_norm(x, g.fresh((last,), F32), g.fresh((last,), F32), -1)


def _grad_ops(g: Gen, which: int):
    from graphopt.dialects.graph import GatherGradOp, SliceGradOp
    from graphopt.dialects.graph import (
        AvgPool2dGradOp,
        Conv2dGradFilterOp,
        Conv2dGradInputOp,
        MaxPool2dGradOp,
    )

    (kh, kw), s, p = _window(g)
    x = g.nchw()
    xs = tuple(x.type.get_shape())
    if which in (0, 1):
        fwd = g.b.conv2d(x, g.fresh((2, xs[1], kh, kw), F32), s, p)
        gy = g.fresh(tuple(fwd.type.get_shape()), F32)
        if which == 0:
            return g.b.apply(Conv2dGradInputOp(gy, g.fresh((2, xs[1], kh, kw), F32), xs, s, p))
        return g.b.apply(Conv2dGradFilterOp(x, gy, (kh, kw), s, p))
    if which in (2, 3):
        fwd = g.b.max_pool2d(x, (kh, kw), s, p)
        gy = g.fresh(tuple(fwd.type.get_shape()), F32)
        if which == 2:
            return g.b.apply(MaxPool2dGradOp(x, gy, (kh, kw), s, p))
        return g.b.apply(AvgPool2dGradOp(gy, xs, (kh, kw), s, p, count_include_pad=bool(g.rng.random() < 0.5)))
    if which == 4:
        gy = g.fresh((2, 1), F32)
        return g.b.apply(SliceGradOp(gy, [5, 3], [1, 0], [2, 1]))
    idx = g.rng.integers(0, 4, (3,)).astype(I64)
    g.inputs.append(idx)
    return g.b.apply(GatherGradOp(g.b.input(idx.shape, idx.dtype), g.fresh((3, 2), F32), [4, 2], 0))


OPS: list[tuple[str, Callable[[Gen], object]]] = [
    *[(n, _un(n)) for n in (
        "exp", "log", "sqrt", "tanh", "sigmoid", "rsqrt", "erf", "sin", "cos", "gelu",
        "leaky_relu", "zeros_like", "ones_like",
    )],
    *[(n, _un(n, "fi")) for n in ("neg", "relu", "abs", "copy")],
    ("clip", lambda g: g.b.clip(g.operand("f"), -1.0, 1.5)),
    *[(n, _bin(n)) for n in ("add", "sub", "mul", "maximum", "minimum", "greater", "less", "equal")],
    ("div", _bin("div", "f")),
    ("pow", _bin("pow", "f")),
    ("where", _where),
    ("cast", _cast),
    *[(n, _reduce(n)) for n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod")],
    ("argmax", _argmax),
    ("softmax", _norm_axis("softmax")),
    ("log_softmax", _norm_axis("log_softmax")),
    ("matmul", _matmul),
    ("transpose", _transpose),
    ("reshape", _reshape),
    ("concat", _concat),
    ("split", _split),
    ("slice", _slice),
    ("pad", _pad),
    ("gather", _gather),
    ("broadcast_to", _broadcast_to),
    ("expand_dims", _expand_squeeze),
    ("flatten", _flatten),
    ("fill", _fill),
    ("dropout", _dropout),
    ("add_n", _add_n),
    ("conv2d", _conv),
    ("max_pool2d", _pool("max_pool2d")),
    ("avg_pool2d", _pool("avg_pool2d")),
    ("global_avg_pool", lambda g: g.b.global_avg_pool(g.nchw())),
    *[(n, lambda g, w=w: _norms(g, w)) for w, n in enumerate(("batch_norm", "batch_norm_train", "layer_norm"))],
    *[
        (n, lambda g, w=w: _grad_ops(g, w))
        for w, n in enumerate((
            "conv2d_grad_input", "conv2d_grad_filter", "max_pool2d_grad", "avg_pool2d_grad",
            "slice_grad", "gather_grad",
        ))
    ],
]


def graph_for_seed(seed: int, steps: int = 5):
    """``(module, inputs)`` of seed ``seed``, or None if no graph came out.

    A step whose random operands do not fit its op is dropped: the op was
    never inserted, and what the step made before (an input, a constant, a
    forward op) stays, unused but valid."""
    from xdsl.utils.exceptions import VerifyException

    g = Gen(seed)
    tries = 0
    while len(g.pool) < steps and tries < 40:
        tries += 1
        # Seed s starts with op s mod len(OPS): a range of len(OPS) seeds
        # covers the whole op set.
        forced = seed % len(OPS) if tries <= 6 and not g.pool else None
        try:
            g.step(forced)
        except (VerifyException, ValueError, IndexError):
            continue
    if not g.pool:
        return None
    outs = [g.pool[-1]]
    if len(g.pool) > 2:
        outs.append(g.pool[int(g.rng.integers(len(g.pool) - 1))])
    module = g.b.build(*outs)
    return module, g.inputs


def compare(got, want, what: str, f32_inside: bool = True) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (
            f"{what}: result #{i} is {g.shape} {g.dtype}, the reference {w.shape} {w.dtype}"
        )
        if w.dtype.kind == "f":
            # An f64 result computed from f32 values (a cast) carries f32 error.
            tol = 1e-3 if w.dtype == np.float32 or f32_inside else 1e-9
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"{what}: result #{i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: result #{i}")


def check_seed(seed: int) -> str:
    """"ok", or "skip" when no graph came out; raises AssertionError on a mismatch."""
    import graphopt
    from graphopt.dialects.graph import element_type_of
    from graphopt.runtime.compile import run_pipeline
    from graphopt.runtime.reference import interpret
    from graphopt.transforms.pipelines import LEVELS, pipeline_passes

    made = graph_for_seed(seed)
    if made is None:
        return "skip"
    module, inputs = made
    f32 = np.dtype(np.float32)
    f32_inside = any(
        r.type.element_type == element_type_of(f32) for op in module.walk() for r in op.results
    ) or any(a.dtype == f32 for a in inputs)
    with np.errstate(all="ignore"):
        want = interpret(module, *inputs)
        for level in LEVELS:
            m = module.clone()
            for spec in pipeline_passes(level):
                run_pipeline(m, spec)
                compare(interpret(m, *inputs), want, f"-{level}, reference after {spec}", f32_inside)
            got = graphopt.compile(m)["f"](*inputs)
            got = [] if got is None else list(got) if isinstance(got, tuple) else [got]
            compare(got, want, f"-{level}, compiled", f32_inside)
    return "ok"


def main(argv: list[str]) -> int:
    start, count = int(argv[0]), int(argv[1])
    seed = start
    while count < 0 or seed < start + count:
        print(f"START {seed}", flush=True)
        try:
            status = check_seed(seed)
            print(f"{status.upper()} {seed}", flush=True)
        except Exception as err:  # noqa: BLE001 - reported with its seed
            print(f"FAIL {seed} {json.dumps(f'{type(err).__name__}: {err}'[:4000])}", flush=True)
        seed += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
