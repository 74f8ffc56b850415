"""``graph-run --check``: compare compiled outputs with tolerances that fit the data.

A fixed rtol/atol fails on data it does not fit: a convolution whose outputs
are near 1000 has absolute rounding errors far above 1e-5 on its outputs that
happen to be near 0, and an f64 output computed in f32 can never meet f64
tolerances.  So both the compiled result and the float32 reference are
compared with a float64 reference (the same function, every f32 value
widened to f64), and the compiled result may be off by a small multiple of
the float32 reference's own error:

    |compiled - ref64| <= 4 * E + 8 * eps * (|ref64| + rms(ref64))

where ``E = max |ref32 - ref64|`` over the output, ``eps`` is the machine
epsilon of the output's type, or of f32 when the function computes in f32
anywhere (an f64 output of an f32 computation has f32 rounding), and ``rms``
the root mean square of the output.
Where the float32 reference is NaN or +-inf the compiled value must be the
same.  Integer and boolean outputs must equal the reference exactly.  When the
float64 reference cannot run, ``ref64`` is the float32 reference (``E = 0``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import Float32Type, ModuleOp, TensorType

from graphopt.dialects.graph import GraphOp
from graphopt.runtime.reference import ReferenceInterpreter

E_FACTOR = 4.0
EPS_FACTOR = 8.0


def _widen(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    return a.astype(np.float64) if a.dtype == np.float32 else a


class Float64Interpreter(ReferenceInterpreter):
    """The reference interpreter with every f32 value (inputs, constants,
    results) widened to f64, as an estimate of the exact result."""

    def run_wide(self, name: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self._call(self.functions[name], [_widen(a) for a in inputs])

    def _evaluate(self, op: GraphOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        return op.reference(*args)  # f64 where the types say f32: not checked

    def _keep(self, value: np.ndarray) -> np.ndarray:
        return _widen(value)


def float64_reference(
    interpreter: ReferenceInterpreter, name: str, inputs: Sequence[np.ndarray]
) -> list[np.ndarray] | None:
    """The float64 estimate, or ``None`` if some op cannot run in f64."""
    wide = Float64Interpreter(interpreter.module)
    try:
        with np.errstate(all="ignore"):
            return wide.run_wide(name, inputs)
    except (NotImplementedError, TypeError, ValueError):
        # An op the interpreter cannot run, or whose numpy reference refuses
        # f64 operands: compare with the f32 reference.  Any other exception
        # is a bug and propagates.
        return None


def _same_nonfinite(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    return (np.isnan(g) & np.isnan(w)) | (g == w)


def computes_in_f32(module: ModuleOp) -> bool:
    """Whether any value of ``module`` is an f32 tensor."""
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            if isinstance(v.type, TensorType) and v.type.element_type == Float32Type():
                return True
    return False


def compare_output(
    index: int,
    got: np.ndarray,
    ref32: np.ndarray,
    ref64: np.ndarray | None,
    compute_eps: float = 0.0,
) -> str | None:
    """A one-line description of the mismatch of one output, or ``None``."""
    if got.shape != ref32.shape or got.dtype != ref32.dtype:
        return (
            f"output {index}: compiled {tuple(got.shape)} {got.dtype}, "
            f"reference {tuple(ref32.shape)} {ref32.dtype}"
        )
    if got.size == 0:
        return None
    if got.dtype.kind != "f":
        bad = got != ref32
        if not bad.any():
            return None
        where = tuple(int(c) for c in np.argwhere(bad)[0])
        return (
            f"output {index}: {int(bad.sum())} of {got.size} elements differ; first at "
            f"{where}: compiled {got[where]!r}, reference {ref32[where]!r}"
        )
    r32 = ref32.astype(np.float64)
    r64 = ref64.astype(np.float64) if ref64 is not None and ref64.shape == got.shape else r32
    g = got.astype(np.float64)
    finite = np.isfinite(r32) & np.isfinite(r64)
    with np.errstate(all="ignore"):
        ref_err = float(np.max(np.abs(r32 - r64)[finite])) if finite.any() else 0.0
        rms = float(np.sqrt(np.mean(np.square(r64[finite])))) if finite.any() else 0.0
        eps = max(float(np.finfo(got.dtype).eps), compute_eps)
        allowed = E_FACTOR * ref_err + EPS_FACTOR * eps * (np.abs(r64) + rms)
        err = np.abs(g - r64)
        ok = np.where(finite, err <= allowed, _same_nonfinite(g, r32))
    if ok.all():
        return None
    bad = ~ok
    if (bad & ~finite).any():
        where = tuple(int(c) for c in np.argwhere(bad & ~finite)[0])
        detail = f"compiled {got[where]!r}, reference {ref32[where]!r}"
    else:
        with np.errstate(all="ignore"):
            ratio = np.where(bad, err / np.maximum(allowed, np.finfo(np.float64).tiny), -1.0)
        where = tuple(int(c) for c in np.unravel_index(int(np.argmax(ratio)), got.shape))
        detail = (
            f"compiled {got[where]!r}, float64 reference {r64[where]:.9g} "
            f"(float32 reference {ref32[where]!r}); error {err[where]:.3g} > "
            f"allowed {allowed[where]:.3g}"
        )
    return f"output {index}: {int(bad.sum())} of {got.size} elements differ; worst at {where}: {detail}"


def compare(
    got: Sequence[np.ndarray],
    ref32: Sequence[np.ndarray],
    ref64: Sequence[np.ndarray] | None = None,
    compute_eps: float = 0.0,
) -> list[str]:
    """One line per mismatching output (see the module docstring for the rule)."""
    if len(got) != len(ref32):
        return [f"the compiled function returns {len(got)} outputs, the reference {len(ref32)}"]
    problems = []
    for i, (g, w) in enumerate(zip(got, ref32)):
        wide = ref64[i] if ref64 is not None else None
        line = compare_output(i, np.asarray(g), np.asarray(w), wide, compute_eps)
        if line is not None:
            problems.append(line)
    return problems
