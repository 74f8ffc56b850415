"""``expand-math``: f32 ``math.exp``, ``log``, ``tanh`` and ``erf`` as
straight-line polynomials over ``arith`` and ``math.fma``.

Why: LLVM turns ``llvm.exp.v16f32`` into sixteen libm ``expf`` calls, and
tanh and erf are libm calls outright, so a loop that uses them never runs on
vectors.  After this pass such a loop holds only fma, mul, add, bitcasts,
shifts, compares and selects, which LLVM's loop vectoriser widens (16 lanes
with AVX-512).  Sigmoid (``1 / (1 + exp(-x))``) and gelu (erf or tanh form)
are built by the compute rules from these ops, so they vectorise too.

Only scalar f32 is expanded; f64 keeps libm.  The loop level is scalar and
LLVM's loop vectoriser widens it; ``vector<...xf32>`` operands are left alone
because xDSL 0.74's ``arith.cmpf`` and ``arith.select`` take ``i1`` only (an
expansion for them would blend with integer masks instead).  Every
branch is computed and the answer chosen with ``select``, so there is no
control flow.  The arithmetic uses explicit ``math.fma`` and no fast-math
flags, so the vector body and the scalar remainder loop give bitwise the same
results.

Algorithms (polynomial coefficients: near-minimax fits, iteratively
reweighted least squares at Chebyshev nodes in float64, rounded to f32):

* ``exp(x)``: ``x`` clamped to ``[-104, 89]`` (NaN passes the clamp); ``k =
  round(x / ln 2)`` by the 1.5·2^23 rounding trick; ``r = x - k ln 2`` in two
  fma steps (Cody-Waite); ``exp(r) = 1 + r + r^2 P(r)`` (``P`` of degree 4);
  times ``2^(k/2)`` (the ``1 +`` folded into that product's fma) and
  ``2^(k - k/2)``, two power-of-two scalings so overflow gives inf and the
  denormal range rounds once (adding ``k`` to the exponent field would be
  cheaper but turns NaN into numbers).  Softmax's ``exp(x - max)`` has
  ``x <= 0``: :func:`emit_exp_nonpositive` skips the overflow clamp and
  scales by ``2^(k + 25)`` and ``2^-25``, bitwise the same results.
* ``log(x)``: denormals are scaled by 2^23 first; ``x = 2^k m`` with ``m`` in
  ``[sqrt(1/2), sqrt(2))``; ``f = m - 1`` is exact;
  ``log(1+f) = f - f^2/2 + f^3 P(f)`` (``P`` of degree 7);
  ``k ln2_hi + f`` is exact, the small terms are added last.  ``x < 0`` and
  NaN give NaN, ``0`` gives ``-inf``, ``+inf`` gives ``+inf``.
* ``tanh(x)``: ``|x| < 1``: ``x + x^3 P(x^2)`` (``P`` of degree 7); otherwise
  ``(1 - t) / (1 + t)`` with ``t = exp(-2|x|)`` (the expansion above), signed
  with ``copysign``.
* ``1 + erf(z)`` (gelu's form) becomes ``erfc(-z)``: ``1 - erf`` for
  ``|z| < 0.7``, else ``exp(-z^2) T(1/|z|)`` with ``T`` of degree 14 over
  ``[0.7, 10.1]``, so the negative tail does not cancel; when ``z = x * c``,
  the product's rounding error ``fma(x, c, -z)`` is applied to first order.
* ``erf(x)``: ``|x| < 1``: ``x P(x^2)`` (``P`` of degree 6); otherwise
  ``1 - exp(-x^2) R(|x|)`` with ``R(a) ≈ erfc(a) exp(a^2)`` of degree 12 in
  ``(a - 2.5)/1.5`` over ``[1, 4]``; ``x^2`` is split into ``hi + lo`` with
  an fma so ``exp(-x^2)`` keeps full precision; ``|x|`` is clamped to 4
  (erf(4) rounds to 1), then ``copysign``.

Maximum error against float64 results rounded to f32, measured on a dense
sweep (every 4096th f32 bit pattern, dense grids around the branch points,
overflow/underflow edges, ±0, ±inf, NaN, denormals) by
``tests/unit/test_expand_math.py``: see ``MAX_ULP``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    f32,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from graphopt.transforms.levels import require_lowered

#: Largest error in f32 ulps against float64 rounded to f32, as measured by
#: the test sweep (the test asserts these bounds).  sigmoid and gelu are the
#: compute rules' formulas over these expansions; gelu's bound holds for
#: ``x >= -0.5``; below, its error is ``max(6, x^2 / 2)`` ulp because the
#: f32 constant 1/sqrt(2) in ``erf(x / sqrt 2)`` is off by 1.7e-8 relative
#: (10 ulp at x = -5, 54 near -13, where gelu is 1e-37; libm's ``erff`` in
#: the plain formula loses everything below x = -5.7, to cancellation).
MAX_ULP: dict[str, int] = {"exp": 1, "log": 1, "tanh": 1, "erf": 2, "sigmoid": 2, "gelu": 2}


def gelu_ulp_bound(x: float) -> float:
    """The bound on gelu's error at ``x`` (see ``MAX_ULP``)."""
    return MAX_ULP["gelu"] if x >= -0.5 else max(6.0, 0.5 * x * x)


# exp --------------------------------------------------------------------------
_EXP_HI = 89.0  # above ln(FLT_MAX) = 88.72...: the scaling overflows to inf
_EXP_LO = -104.0  # below ln(2^-150): the scaling underflows to 0
_LOG2E = 1.4426950408889634
_LN2_HI = 0.693145751953125  # 11 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.4286068203094173e-06
_ROUND_MAGIC = 12582912.0  # 1.5 * 2^23: adding it rounds to an integer
_ROUND_MAGIC_BITS = 0x4B400000
_EXP_LIFT = 25  # x <= 0: 2^(k + 25) is normal for every k >= -150
_EXP_P = [
    0.4999999403953552, 0.1666652113199234, 0.04166838899254799, 0.008368718437850475,
    0.0013814648846164346,
]  # exp(r) = 1 + r + r^2 P(r), |r| <= ln(2)/2; fmt: skip

# log --------------------------------------------------------------------------
_SQRT_HALF_BITS = 0x3F3504F3
_ONE_BITS = 0x3F800000
_MANTISSA = 0x007FFFFF
_FLT_MIN = 1.1754943508222875e-38
_LOG_P = [
    0.3333333134651184, -0.250008225440979, 0.20001226663589478, -0.16623352468013763,
    0.14201770722866058, -0.1316024512052536, 0.12761493027210236, -0.0763421505689621,
]  # fmt: skip

# tanh -------------------------------------------------------------------------
_TANH_P = [
    -0.333333283662796, 0.1333319991827011, -0.05395309999585152, 0.02178473211824894,
    -0.008595116436481476, 0.0030785955023020506, -0.000841137720271945,
    0.00012147079542046413,
]  # fmt: skip

# erf --------------------------------------------------------------------------
_ERF_P = [
    1.1283791065216064, -0.3761262595653534, 0.11283600330352783, -0.026854457333683968,
    0.0051895566284656525, -0.0008021013345569372, 7.889651169534773e-05,
]  # fmt: skip
_ERFC_R = [
    0.21080636978149414, -0.11152100563049316, 0.056110505014657974, -0.027005692943930626,
    0.01248933095484972, -0.005567515734583139, 0.0024033167865127325,
    -0.001016694470308721, 0.0004113541799597442, -0.00014437602658290416,
    5.777917613158934e-05, -3.6772089515579864e-05, 1.2867250916315243e-05,
]  # fmt: skip
_ERF_MAX = 4.0
_ERFC_TAIL = [
    0.3558131158351898, 0.2241201400756836, -0.06740216910839081, 0.014590374194085598,
    0.00018713712051976472, -0.0026365767698735, 0.0019647276494652033,
    -0.0009380939300172031, 0.00024600722827017307, -9.168854012386873e-05,
    8.813849854050204e-05, 0.00012708635767921805, -0.00017453881446272135,
    -1.3072918818579637e-06, 3.7984325899742544e-05,
]  # fmt: skip
# erfc(a) exp(a^2) for a in [0.7, 10.1], in (1/a - mid) / half:
_ERFC_TAIL_MIN = 0.7
_ERFC_TAIL_MID = (1 / 0.7 + 1 / 10.1) / 2
_ERFC_TAIL_HALF = (1 / 0.7 - 1 / 10.1) / 2
_ERFC_MAX = 10.1  # erfc(10.1) < 2^-150 rounds to 0


def is_f32_like(t: Attribute) -> bool:
    """The type this pass expands: scalar f32."""
    return isinstance(t, Float32Type)


def _emits(op_class: type[Operation]) -> Callable[..., SSAValue]:
    """A :class:`_Builder` method emitting ``op_class`` of its operands."""

    def method(self: _Builder, *operands: SSAValue) -> SSAValue:
        return self._emit(op_class(*operands))

    method.__doc__ = f"``{op_class.name}`` of the operands."
    return method


class _Builder:
    """Collects the replacement ops of one expansion."""

    def __init__(self, ftype: Attribute, emit: Callable[[Operation], Operation] | None = None):
        """``emit`` places each op and returns it (or an equal one); without
        it the ops are collected in ``ops``."""
        self.ops: list[Operation] = []
        self.ftype, self.itype = ftype, i32
        self._consts: dict[tuple[str, float | int], SSAValue] = {}
        self._place = emit

    def _emit(self, op: Operation) -> SSAValue:
        if self._place is not None:
            return self._place(op).results[0]
        self.ops.append(op)
        return op.results[0]

    def _const(self, key: tuple[str, float | int], t: Attribute) -> SSAValue:
        if (hit := self._consts.get(key)) is None:
            attr: Attribute = IntegerAttr(int(key[1]), t) if t == i32 else FloatAttr(float(key[1]), f32)
            hit = self._consts[key] = self._emit(arith.ConstantOp(attr, t))
        return hit

    # constants
    def f(self, value: float) -> SSAValue:
        return self._const(("f", float(value)), f32)

    def i(self, value: int) -> SSAValue:
        if value >= 1 << 31:
            value -= 1 << 32
        return self._const(("i", value), i32)

    # float arithmetic
    add = _emits(arith.AddfOp)
    sub = _emits(arith.SubfOp)
    mul = _emits(arith.MulfOp)
    div = _emits(arith.DivfOp)
    fma = _emits(mathd.FmaOp)
    abs = _emits(mathd.AbsFOp)
    copysign = _emits(mathd.CopySignOp)

    def horner(self, x: SSAValue, coeffs: Sequence[float]) -> SSAValue:
        """``coeffs[0] + coeffs[1] x + ...`` with one fma per degree."""
        p = self.f(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            p = self.fma(p, x, self.f(c))
        return p

    # compares and selects (NaN compares false under ordered predicates)
    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._emit(arith.CmpfOp(a, b, pred))

    select = _emits(arith.SelectOp)

    # integer views of the float bits
    def bits(self, a: SSAValue) -> SSAValue:
        return self._emit(arith.BitcastOp(a, self.itype))

    def float_of_bits(self, a: SSAValue) -> SSAValue:
        return self._emit(arith.BitcastOp(a, self.ftype))

    iadd = _emits(arith.AddiOp)
    isub = _emits(arith.SubiOp)
    iand = _emits(arith.AndIOp)

    def shl(self, a: SSAValue, n: int) -> SSAValue:
        return self._emit(arith.ShLIOp(a, self.i(n)))

    def ashr(self, a: SSAValue, n: int) -> SSAValue:
        return self._emit(arith.ShRSIOp(a, self.i(n)))

    def to_float(self, a: SSAValue) -> SSAValue:
        return self._emit(arith.SIToFPOp(a, self.ftype))

    # the functions
    def exp(self, x: SSAValue, nonpositive: bool = False) -> SSAValue:
        """``exp(x)``; ``nonpositive`` when ``x <= 0`` or NaN is known (see
        :func:`emit_exp_nonpositive`)."""
        hi = None if nonpositive else self.f(_EXP_HI)
        lo = self.f(_EXP_LO)
        if hi is not None:
            x = self.select(self.cmp("ogt", x, hi), hi, x)
        x = self.select(self.cmp("olt", x, lo), lo, x)
        magic = self.f(_ROUND_MAGIC)
        shifted = self.fma(x, self.f(_LOG2E), magic)  # k + 1.5*2^23, rounded
        kf = self.sub(shifted, magic)
        if nonpositive:
            # k in [-150, 0]: 2^(k + 25) is normal, er * 2^(k + 25) is exact
            # and the product with 2^-25 rounds once, as the two steps below.
            biased = self.isub(self.bits(shifted), self.i(_ROUND_MAGIC_BITS - 127 - _EXP_LIFT))
        else:
            # k + 254 = (k1 + 127) + (k2 + 127) with k1 = k // 2, k2 = k - k1:
            # the two biased exponents, without a separate bias add for each.
            biased = self.isub(self.bits(shifted), self.i(_ROUND_MAGIC_BITS - 254))
        r = self.fma(kf, self.f(-_LN2_HI), x)
        r = self.fma(kf, self.f(-_LN2_LO), r)
        # exp(r) - 1 = r + r^2 P(r); (1 + that) * s as one fma: s is a power
        # of two and the product normal, so it rounds as 1 + (exp(r) - 1).
        em1 = self.fma(self.horner(r, _EXP_P), self.mul(r, r), r)
        if nonpositive:
            s = self.float_of_bits(self.shl(biased, 23))
            return self.mul(self.fma(em1, s, s), self.f(2.0**-_EXP_LIFT))
        e1 = self.ashr(biased, 1)
        e2 = self.isub(biased, e1)
        s1 = self.float_of_bits(self.shl(e1, 23))
        s2 = self.float_of_bits(self.shl(e2, 23))
        return self.mul(self.fma(em1, s1, s1), s2)

    def log(self, x: SSAValue) -> SSAValue:
        denormal = self.cmp("olt", x, self.f(_FLT_MIN))
        xs = self.select(denormal, self.mul(x, self.f(8388608.0)), x)
        k_adjust = self.select(denormal, self.i(-23), self.i(0))
        ix = self.iadd(self.bits(xs), self.i(_ONE_BITS - _SQRT_HALF_BITS))
        k = self.iadd(self.isub(self.ashr(ix, 23), self.i(127)), k_adjust)
        m = self.float_of_bits(self.iadd(self.iand(ix, self.i(_MANTISSA)), self.i(_SQRT_HALF_BITS)))
        f = self.sub(m, self.f(1.0))
        kf = self.to_float(k)
        f2 = self.mul(f, f)
        f3 = self.mul(f2, f)
        small = self.fma(f3, self.horner(f, _LOG_P), self.mul(kf, self.f(_LN2_LO)))
        small = self.fma(f2, self.f(-0.5), small)
        y = self.add(self.fma(kf, self.f(_LN2_HI), f), small)
        inf = self.f(float("inf"))
        y = self.select(self.cmp("oeq", x, inf), inf, y)
        y = self.select(self.cmp("oeq", x, self.f(0.0)), self.f(float("-inf")), y)
        return self.select(self.cmp("ult", x, self.f(0.0)), self.f(float("nan")), y)

    def tanh(self, x: SSAValue) -> SSAValue:
        a = self.abs(x)
        x2 = self.mul(x, x)
        small = self.fma(self.mul(x2, x), self.horner(x2, _TANH_P), x)
        t = self.exp(self.mul(a, self.f(-2.0)))
        one = self.f(1.0)
        big = self.copysign(self.div(self.sub(one, t), self.add(one, t)), x)
        return self.select(self.cmp("olt", a, one), small, big)

    def erf(self, x: SSAValue) -> SSAValue:
        a = self.abs(x)
        small = self.mul(x, self.horner(self.mul(x, x), _ERF_P))
        top = self.f(_ERF_MAX)
        a = self.select(self.cmp("ogt", a, top), top, a)
        a2_hi = self.mul(a, a)
        a2_lo = self.fma(a, a, self._emit(arith.NegfOp(a2_hi)))  # a*a - a2_hi, exact
        e = self.exp(self._emit(arith.NegfOp(a2_hi)))
        e = self.fma(e, self._emit(arith.NegfOp(a2_lo)), e)  # exp(-hi) * (1 - lo)
        u = self.fma(a, self.f(1 / 1.5), self.f(-2.5 / 1.5))
        erfc = self.mul(e, self.horner(u, _ERFC_R))
        big = self.copysign(self.sub(self.f(1.0), erfc), x)
        return self.select(self.cmp("olt", a, self.f(1.0)), small, big)

    def erfc(self, x: SSAValue, x_lo: SSAValue | None = None) -> SSAValue:
        """``1 - erf(x + x_lo)`` without the cancellation, for ``1 + erf(z)``
        (gelu).  ``x_lo``, a rounding error of ``x`` known to the caller, is
        applied to first order: ``-2/sqrt(pi) exp(-x^2) x_lo``."""
        a = self.abs(x)
        one = self.f(1.0)
        small = self.sub(one, self.mul(x, self.horner(self.mul(x, x), _ERF_P)))
        top = self.f(_ERFC_MAX)
        a = self.select(self.cmp("ogt", a, top), top, a)
        a2_hi = self.mul(a, a)
        a2_lo = self.fma(a, a, self._emit(arith.NegfOp(a2_hi)))
        e = self.exp(self._emit(arith.NegfOp(a2_hi)))
        e = self.fma(e, self._emit(arith.NegfOp(a2_lo)), e)
        u = self.fma(
            self.div(one, a), self.f(1 / _ERFC_TAIL_HALF), self.f(-_ERFC_TAIL_MID / _ERFC_TAIL_HALF)
        )
        tail = self.mul(e, self.horner(u, _ERFC_TAIL))
        big = self.select(self.cmp("olt", x, self.f(0.0)), self.sub(self.f(2.0), tail), tail)
        y = self.select(self.cmp("olt", a, self.f(_ERFC_TAIL_MIN)), small, big)
        if x_lo is None:
            return y
        corrected = self.fma(self.mul(e, self.f(-2 / math.sqrt(math.pi))), x_lo, y)
        return self.select(self.cmp("olt", self.abs(x), top), corrected, y)


def emit_exp_nonpositive(emit: Callable[[Operation], Operation], x: SSAValue) -> SSAValue:
    """``exp(x)`` of a scalar f32 ``x`` known to be ``<= 0`` or NaN (softmax's
    ``x - max``), its ops placed by ``emit``: bitwise the expansion of
    ``math.exp`` there, in four instructions fewer (no overflow clamp, and
    one power-of-two scaling by ``2^(k + 25)`` instead of two)."""
    return _Builder(x.type, emit).exp(x, nonpositive=True)


_EXPANSIONS = {
    mathd.ExpOp: _Builder.exp,
    mathd.LogOp: _Builder.log,
    mathd.TanhOp: _Builder.tanh,
    mathd.ErfOp: _Builder.erf,
}


class ExpandF32Math(RewritePattern):
    """Replace one f32 exp/log/tanh/erf by its polynomial expansion."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        expand = _EXPANSIONS.get(type(op))
        if expand is None or not is_f32_like(op.results[0].type):
            return
        b = _Builder(op.results[0].type)
        value = expand(b, op.operands[0])
        rewriter.replace(op, b.ops, [value])


def _is_one(value: SSAValue) -> bool:
    op = value.owner
    return isinstance(op, arith.ConstantOp) and isinstance(op.value, FloatAttr) and op.value.value.data == 1.0


class OnePlusErfToErfc(RewritePattern):
    """``1 + erf(z)`` -> ``erfc(-z)``: no cancellation for ``z < 0``, so gelu
    keeps its precision in the negative tail.  When ``z = x * c`` (gelu's
    ``x / sqrt 2``), the rounding error of that product, ``fma(x, c, -z)``,
    is carried into erfc too."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, arith.AddfOp) or not is_f32_like(op.result.type):
            return
        for erf, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if isinstance(erf.owner, mathd.ErfOp) and _is_one(other):
                b = _Builder(op.result.type)
                z = erf.owner.operand
                z_lo = None
                if isinstance(prod := z.owner, arith.MulfOp):
                    z_lo = b._emit(arith.NegfOp(b.fma(prod.lhs, prod.rhs, b._emit(arith.NegfOp(z)))))
                value = b.erfc(b._emit(arith.NegfOp(z)), z_lo)
                rewriter.replace(op, b.ops, [value])
                return


def expand_math(module: ModuleOp) -> None:
    """Expand every f32 exp/log/tanh/erf in ``module``, in place (each
    pattern offered only the ops of its classes, in one walk)."""
    from graphopt.lowering.to_llvm.common import ConversionPass  # (to_llvm imports this module)

    kinds = {type(op) for op in module.walk()}
    if mathd.ErfOp in kinds:
        ConversionPass.run(module, {arith.AddfOp: OnePlusErfToErfc()})
    if kinds.intersection(_EXPANSIONS):
        ConversionPass.run(module, dict.fromkeys(_EXPANSIONS, ExpandF32Math()))


@dataclass(frozen=True)
class ExpandMathPass(ModulePass):
    """f32 ``math.exp/log/tanh/erf`` -> arith polynomials (vectorisable)."""

    name = "expand-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_lowered(op, self.name)
        expand_math(op)
