"""Checking gradients against finite differences (torch.gradcheck's numbers).

``check_vjp(module, inputs)`` differentiates ``@f`` with ``autodiff``, runs
the gradient function on ``inputs`` and a RANDOM cotangent (never ones: a
rule like ``g - t*t`` for tanh passes with ``g = 1``) and compares it with the
central differences ``<ct, f(x + eps e_i) - f(x - eps e_i)> / (2 eps)`` of
the forward function, element by element.  Both run with the reference
interpreter, or compiled with ``compiled=True``.

``check_directional(build, inputs)`` is the float32 check: the compiled f32
gradient along a random direction against a float64 central difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from graphopt.dialects.graph import numpy_dtype
from graphopt.frontends.builder import GraphBuilder
from graphopt.runtime.compile import compile as compile_module
from graphopt.runtime.reference import interpret
from graphopt.transforms.autodiff.autodiff_pass import add_gradient, find_function

EPS = 1e-6
ATOL = 1e-5
RTOL = 1e-3


class GradientMismatch(AssertionError):
    """The symbolic gradient disagrees with finite differences."""


def build_module(build: Callable, inputs: Sequence[np.ndarray], name: str = "f") -> ModuleOp:
    """A module with ``@name(inputs...)`` returning ``build(b, args)``."""
    b = GraphBuilder(name)
    args = [b.input(np.shape(a), np.asarray(a).dtype, name=f"x{i}") for i, a in enumerate(inputs)]
    out = build(b, args)
    outs = out if isinstance(out, tuple) else (out,)
    return b.build(*outs)


def _float_indices(inputs: Sequence[np.ndarray]) -> list[int]:
    return [i for i, a in enumerate(inputs) if np.asarray(a).dtype.kind == "f"]


def _runner(module: ModuleOp, compiled: bool, pipeline: str) -> Callable[..., list[np.ndarray]]:
    if not compiled:
        return lambda name, *xs: interpret(module, *xs, entry=name)
    cm = compile_module(module, pipeline=pipeline)

    def run(name: str, *xs: np.ndarray) -> list[np.ndarray]:
        out = cm[name](*xs)
        return list(out) if isinstance(out, tuple) else [out]

    return run


def gradient(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    cotangents: Sequence[np.ndarray],
    wrt: Sequence[int],
    *,
    func: str = "f",
    compiled: bool = False,
    pipeline: str = "",
) -> list[np.ndarray]:
    """The autodiff gradients of ``<cotangents, func(inputs)>`` w.r.t. ``wrt``."""
    module = module.clone()
    add_gradient(module, func, list(wrt), "head")
    outs = _runner(module, compiled, pipeline)(f"{func}_grad", *inputs, *cotangents)
    return outs[len(outs) - len(wrt) :]


def numeric_gradient(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    cotangents: Sequence[np.ndarray],
    wrt: Sequence[int],
    *,
    func: str = "f",
    eps: float = EPS,
) -> list[np.ndarray]:
    """Central differences of ``<cotangents, func(inputs)>`` (reference interpreter)."""
    inputs = [np.array(a, copy=True) for a in inputs]

    def objective() -> float:
        outs = [o for o in interpret(module, *inputs, entry=func) if o.dtype.kind == "f"]
        return sum(float(np.sum(o.astype(np.float64) * c)) for o, c in zip(outs, cotangents))

    grads = []
    for i in wrt:
        x = inputs[i]
        g = np.zeros(x.shape, np.float64)
        flat, gflat = x.reshape(-1), g.reshape(-1)
        for k in range(flat.size):
            orig = flat[k]
            flat[k] = orig + eps
            up = objective()
            flat[k] = orig - eps
            down = objective()
            flat[k] = orig
            gflat[k] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def random_cotangents(module: ModuleOp, func: str, rng: np.random.Generator) -> list[np.ndarray]:
    fn = find_function(module, func)
    cts = []
    for t in fn.function_type.outputs.data:
        dtype = numpy_dtype(t.element_type)  # type: ignore[attr-defined]
        if dtype.kind == "f":
            cts.append(rng.standard_normal(tuple(t.get_shape())).astype(dtype))  # type: ignore[attr-defined]
    return cts


def check_vjp(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    *,
    wrt: Sequence[int] | None = None,
    rng: np.random.Generator | None = None,
    func: str = "f",
    eps: float = EPS,
    atol: float = ATOL,
    rtol: float = RTOL,
    compiled: bool = False,
    pipeline: str = "",
) -> list[np.ndarray]:
    """Raise :class:`GradientMismatch` unless autodiff agrees with finite
    differences for a random cotangent; return the symbolic gradients."""
    rng = rng or np.random.default_rng(0)
    wrt = _float_indices(inputs) if wrt is None else list(wrt)
    cts = random_cotangents(module, func, rng)
    got = gradient(module, inputs, cts, wrt, func=func, compiled=compiled, pipeline=pipeline)
    want = numeric_gradient(module, inputs, cts, wrt, func=func, eps=eps)
    for i, g, w in zip(wrt, got, want):
        if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol):
            err = np.max(np.abs(np.asarray(g, np.float64) - w)) if g.shape == w.shape else None
            raise GradientMismatch(
                f"gradient of input #{i} differs from finite differences "
                f"(max abs error {err}):\nautodiff:\n{g}\nnumeric:\n{w}"
            )
    return got


def check_directional(
    build: Callable,
    inputs: Sequence[np.ndarray],
    *,
    wrt: Sequence[int] | None = None,
    rng: np.random.Generator | None = None,
    tol: float = 2e-3,
    eps: float = 1e-4,
    pipeline: str = "",
) -> None:
    """The compiled float32 gradient along a random direction vs a float64
    central difference (``|a - n| <= tol * (1 + |n|)``)."""
    rng = rng or np.random.default_rng(0)
    x64 = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a for a in inputs]
    x32 = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in x64]
    wrt = _float_indices(x64) if wrt is None else list(wrt)
    m64, m32 = build_module(build, x64), build_module(build, x32)
    cts64 = random_cotangents(m64, "f", rng)
    cts32 = [c.astype(np.float32) for c in cts64]
    dirs = {i: rng.standard_normal(x64[i].shape) for i in wrt}
    got = gradient(m32, x32, cts32, wrt, compiled=True, pipeline=pipeline)
    analytic = sum(float(np.sum(g.astype(np.float64) * dirs[i])) for i, g in zip(wrt, got))

    def objective(t: float) -> float:
        xs = [a + t * dirs[i] if i in dirs else a for i, a in enumerate(x64)]
        outs = [o for o in interpret(m64, *xs, entry="f") if o.dtype.kind == "f"]
        return sum(float(np.sum(o * c)) for o, c in zip(outs, cts64))

    numeric = (objective(eps) - objective(-eps)) / (2 * eps)
    if not abs(analytic - numeric) <= tol * (1 + abs(numeric)):
        raise GradientMismatch(
            f"float32 directional derivative {analytic} differs from float64 {numeric}"
        )

