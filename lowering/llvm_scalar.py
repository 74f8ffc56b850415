"""Scalar ``arith`` / ``math`` ops to xDSL's ``llvm`` dialect.

Used by ``lower-loop-to-llvm``.  Each handler receives an :class:`Emitter`
(which appends llvm ops at the current point), the original op and its
already-converted operands, and returns the converted results.

Choices where xDSL's LLVM translation (``xdsl.backend.llvm.convert_op``) has
no direct instruction:

* ``arith.fptosi`` / ``arith.fptoui``: ``llvm.call_intrinsic`` of
  ``llvm.fptosi.sat.*`` / ``llvm.fptoui.sat.*`` (truncating, saturating at the
  integer range, NaN -> 0; plain ``fptosi`` is poison there anyway).
* ``arith.uitofp``: zero-extend to twice the width, then ``sitofp`` (exact).
* ``arith.maximumf`` / ``minimumf``: ``llvm.maximum`` / ``llvm.minimum``
  intrinsics (NaN-propagating); ``maxnumf`` / ``minnumf``: ``llvm.maxnum`` /
  ``llvm.minnum``.
* ``math`` ops without an LLVM intrinsic (``tanh``, ``erf``, ``tan``, ``atan``,
  ``log1p``, ``expm1``, ``sinh``, ``cosh``, ``cbrt`` ...) call libm
  (``tanhf`` for f32, ``tanh`` for f64), declared as external ``llvm.func``.
* ``math.rsqrt`` is ``1 / sqrt(x)``; ``arith.floordivsi`` / ``ceildivsi`` are
  expanded with ``sdiv``/``srem`` and a sign fix-up.
"""

from __future__ import annotations

from math import prod

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects import arith, llvm
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    AnyFloat,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue


class Emitter(Protocol):
    def emit(self, op: Operation) -> Operation: ...

    def libm_call(self, name: str, args: Sequence[SSAValue], ret: Attribute) -> SSAValue: ...


class UnsupportedOpError(Exception):
    """Raised for an op the LLVM lowering does not know."""


def llvm_scalar_type(t: Attribute) -> Attribute:
    """index -> i64; other scalar types are unchanged."""
    if isinstance(t, IndexType):
        return i64
    return t


def const(e: Emitter, value: int | float, t: Attribute) -> SSAValue:
    t = llvm_scalar_type(t)
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            value = int(bool(value))
        attr: Attribute = IntegerAttr(int(value), t)
    else:
        attr = FloatAttr(float(value), t)  # type: ignore[arg-type]
    return e.emit(llvm.ConstantOp(attr, t)).results[0]


def _r(op: Operation) -> list[SSAValue]:
    return list(op.results)


def _width(t: Attribute) -> int:
    t = llvm_scalar_type(t)
    assert isinstance(t, IntegerType)
    return t.width.data


def _fsuffix(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    width = getattr(t, "bitwidth", None)
    return f"f{width}"


def _tsuffix(t: Attribute) -> str:
    """The type-mangling suffix of an overloaded float intrinsic (``f32``,
    ``v8f64``).  xDSL's own ``llvm.FSqrtOp``... translate to unmangled names
    (``llvm.sqrt``), so an f32 and an f64 use in one module clash."""
    from xdsl.dialects.builtin import VectorType

    if isinstance(t, VectorType):
        return f"v{prod(t.get_shape())}{_fsuffix(t.element_type)}"
    return _fsuffix(t)


def _isuffix(t: Attribute) -> str:
    return f"i{_width(t)}"


def _intrinsic(e: Emitter, name: str, args: Sequence[SSAValue], ret: Attribute) -> list[SSAValue]:
    return _r(e.emit(llvm.CallIntrinsicOp(name, args, [ret])))


# ---------------------------------------------------------------------------
# handlers: (emitter, op, operands) -> results
# ---------------------------------------------------------------------------
Handler = Callable[[Emitter, Operation, list[SSAValue]], list[SSAValue]]
HANDLERS: dict[type[Operation], Handler] = {}


def _binop(key: type[Operation], cls: type[Operation]) -> None:
    HANDLERS[key] = lambda e, op, a: _r(e.emit(cls(a[0], a[1])))  # type: ignore[call-arg]


for _n, _c in {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}.items():
    _binop(_n, _c)

for _n, _name in {
    arith.MaxnumfOp: "maxnum",
    arith.MinnumfOp: "minnum",
    mathd.PowFOp: "pow",
    mathd.CopySignOp: "copysign",
}.items():

    def _mkbin(name: str) -> Handler:
        return lambda e, op, a: _intrinsic(e, f"llvm.{name}.{_tsuffix(a[0].type)}", a, a[0].type)

    HANDLERS[_n] = _mkbin(_name)


def _icmp(e: Emitter, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    p = IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64)
    return e.emit(llvm.ICmpOp(a, b, p)).results[0]


def _select(e: Emitter, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(llvm.SelectOp(c, a, b)).results[0]


def _minmax_int(pred: str) -> Handler:
    return lambda e, op, a: [_select(e, _icmp(e, pred, a[0], a[1]), a[0], a[1])]


HANDLERS[arith.MaxSIOp] = _minmax_int("sgt")
HANDLERS[arith.MinSIOp] = _minmax_int("slt")
HANDLERS[arith.MaxUIOp] = _minmax_int("ugt")
HANDLERS[arith.MinUIOp] = _minmax_int("ult")


def _float_minmax(intr: str) -> Handler:
    def h(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
        t = a[0].type
        return _intrinsic(e, f"llvm.{intr}.{_tsuffix(t)}", a, t)

    return h


HANDLERS[arith.MaximumfOp] = _float_minmax("maximum")
HANDLERS[arith.MinimumfOp] = _float_minmax("minimum")


def _negf(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    return _r(e.emit(llvm.FNegOp(a[0])))


HANDLERS[arith.NegfOp] = _negf


def _div_round(e: Emitter, a: SSAValue, b: SSAValue, floor: bool) -> SSAValue:
    """floor/ceil signed division: q = a / b (truncating), adjusted by one
    when the remainder is non-zero and its sign says so."""
    t = a.type
    q = e.emit(llvm.SDivOp(a, b)).results[0]
    r = e.emit(llvm.SRemOp(a, b)).results[0]
    zero = const(e, 0, t)
    r_nz = _icmp(e, "ne", r, zero)
    r_neg = _icmp(e, "slt", r, zero)
    b_neg = _icmp(e, "slt", b, zero)
    signs_differ = e.emit(llvm.XOrOp(r_neg, b_neg)).results[0]
    if floor:
        # adjust when the exact quotient is negative: signs of r and b differ
        cond = e.emit(llvm.AndOp(r_nz, signs_differ)).results[0]
        one = const(e, 1, t)
        qm1 = e.emit(llvm.SubOp(q, one)).results[0]
        return _select(e, cond, qm1, q)
    signs_same = e.emit(llvm.XOrOp(signs_differ, const(e, 1, i1))).results[0]
    cond = e.emit(llvm.AndOp(r_nz, signs_same)).results[0]
    qp1 = e.emit(llvm.AddOp(q, const(e, 1, t))).results[0]
    return _select(e, cond, qp1, q)


HANDLERS[arith.FloorDivSIOp] = lambda e, op, a: [_div_round(e, a[0], a[1], True)]
HANDLERS[arith.CeilDivSIOp] = lambda e, op, a: [_div_round(e, a[0], a[1], False)]


def _cmpi(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    assert isinstance(op, arith.CmpiOp)
    pred = op.predicate
    flag = llvm.ICmpPredicateFlag.from_int(pred.value.data)
    return [_icmp(e, flag.value, a[0], a[1])]


def _cmpf(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    assert isinstance(op, arith.CmpfOp)
    pred = op.predicate
    flag = llvm.FCmpPredicateFlag.from_int(pred.value.data)
    if flag == llvm.FCmpPredicateFlag.FALSE:
        return [const(e, 0, i1)]
    if flag == llvm.FCmpPredicateFlag.TRUE:
        return [const(e, 1, i1)]
    return _r(e.emit(llvm.FCmpOp(a[0], a[1], flag.value)))


HANDLERS[arith.CmpiOp] = _cmpi
HANDLERS[arith.CmpfOp] = _cmpf
HANDLERS[arith.SelectOp] = lambda e, op, a: [_select(e, a[0], a[1], a[2])]


def _constant(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    assert isinstance(op, arith.ConstantOp)
    value = op.value
    t = op.results[0].type
    if isinstance(value, IntegerAttr):
        return [const(e, value.value.data, t)]
    if isinstance(value, FloatAttr):
        return [const(e, value.value.data, t)]
    raise UnsupportedOpError(f"arith.constant of {value} is not supported (only scalars)")


HANDLERS[arith.ConstantOp] = _constant


# --- casts -----------------------------------------------------------------
def _int_resize(e: Emitter, v: SSAValue, to: Attribute, signed: bool) -> SSAValue:
    to = llvm_scalar_type(to)
    wf, wt = _width(v.type), _width(to)
    if wf == wt:
        return v
    if wf > wt:
        return e.emit(llvm.TruncOp(v, to)).results[0]
    cls = llvm.SExtOp if signed else llvm.ZExtOp
    return e.emit(cls(v, to)).results[0]


def _res_type(op: Operation) -> Attribute:
    return llvm_scalar_type(op.results[0].type)


HANDLERS[arith.ExtSIOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), True)]
HANDLERS[arith.ExtUIOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), False)]
HANDLERS[arith.TruncIOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), True)]
HANDLERS[arith.IndexCastOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), True)]
HANDLERS[arith.ExtFOp] = lambda e, op, a: _r(e.emit(llvm.FPExtOp(a[0], _res_type(op))))
HANDLERS[arith.TruncFOp] = lambda e, op, a: _r(e.emit(llvm.FPTruncOp(a[0], _res_type(op))))
HANDLERS[arith.SIToFPOp] = lambda e, op, a: _r(e.emit(llvm.SIToFPOp(a[0], _res_type(op))))
HANDLERS[arith.BitcastOp] = lambda e, op, a: _r(e.emit(llvm.BitcastOp(a[0], _res_type(op))))


def _uitofp(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    wide = IntegerType(2 * _width(a[0].type))
    z = e.emit(llvm.ZExtOp(a[0], wide)).results[0]
    return _r(e.emit(llvm.SIToFPOp(z, _res_type(op))))


HANDLERS[arith.UIToFPOp] = _uitofp


def _fptoi(kind: str) -> Handler:
    def h(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
        rt = _res_type(op)
        name = f"llvm.{kind}.sat.{_isuffix(rt)}.{_fsuffix(a[0].type)}"
        return _intrinsic(e, name, a, rt)

    return h


HANDLERS[arith.FPToSIOp] = _fptoi("fptosi")
HANDLERS[arith.FPToUIOp] = _fptoi("fptoui")


# --- math ------------------------------------------------------------------
for _n, _intr in {
    mathd.ExpOp: "exp",
    mathd.Exp2Op: "exp2",
    mathd.LogOp: "log",
    mathd.Log2Op: "log2",
    mathd.SqrtOp: "sqrt",
    mathd.AbsFOp: "fabs",
    mathd.SinOp: "sin",
    mathd.CosOp: "cos",
    mathd.FloorOp: "floor",
    mathd.CeilOp: "ceil",
    mathd.Log10Op: "log10",
    mathd.RoundOp: "round",
    mathd.RoundEvenOp: "roundeven",
    mathd.TruncOp: "trunc",
}.items():

    def _mk2(intr: str) -> Handler:
        return lambda e, op, a: _intrinsic(e, f"llvm.{intr}.{_tsuffix(a[0].type)}", a, a[0].type)

    HANDLERS[_n] = _mk2(_intr)


HANDLERS[mathd.FmaOp] = lambda e, op, a: _r(e.emit(llvm.FMAOp(a[0], a[1], a[2])))


def _rsqrt(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    t = a[0].type
    (s,) = _intrinsic(e, f"llvm.sqrt.{_tsuffix(t)}", a, t)
    return _r(e.emit(llvm.FDivOp(const(e, 1.0, t), s)))


HANDLERS[mathd.RsqrtOp] = _rsqrt


def _absi(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    t = a[0].type
    zero = const(e, 0, t)
    neg = e.emit(llvm.SubOp(zero, a[0])).results[0]
    return [_select(e, _icmp(e, "slt", a[0], zero), neg, a[0])]


HANDLERS[mathd.AbsIOp] = _absi

LIBM_UNARY: dict[type[Operation], str] = {
    mathd.TanhOp: "tanh", mathd.ErfOp: "erf", mathd.TanOp: "tan", mathd.AtanOp: "atan",
    mathd.AsinOp: "asin", mathd.AcosOp: "acos", mathd.SinhOp: "sinh", mathd.CoshOp: "cosh",
    mathd.AsinhOp: "asinh", mathd.AcoshOp: "acosh", mathd.AtanhOp: "atanh",
    mathd.Log1pOp: "log1p", mathd.ExpM1Op: "expm1", mathd.CbrtOp: "cbrt",
}  # fmt: skip


def _libm(fname: str) -> Handler:
    def h(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
        t = a[0].type
        if isinstance(t, Float32Type):
            name = fname + "f"
        elif isinstance(t, Float64Type):
            name = fname
        else:
            raise UnsupportedOpError(f"{op.name} on {t} is not supported")
        return [e.libm_call(name, a, t)]

    return h


for _cls, _fname in LIBM_UNARY.items():
    HANDLERS[_cls] = _libm(_fname)
HANDLERS[mathd.Atan2Op] = _libm("atan2")


def lower_scalar_op(e: Emitter, op: Operation, operands: list[SSAValue]) -> list[SSAValue]:
    """Lower one scalar op, or raise :class:`UnsupportedOpError`."""
    handler = HANDLERS.get(type(op))
    if handler is None:
        raise UnsupportedOpError(f"'{op.name}' is not supported by lower-loop-to-llvm")
    for t in (*(o.type for o in op.operands), *(r.type for r in op.results)):
        if not isinstance(t, IntegerType | IndexType | AnyFloat):
            raise UnsupportedOpError(
                f"'{op.name}' on {t} is not supported by lower-loop-to-llvm (scalars only)"
            )
    return handler(e, op, operands)
