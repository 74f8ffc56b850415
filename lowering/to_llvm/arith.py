"""``convert-arith-to-llvm``: scalar ``arith`` ops to ``llvm`` ops.

``index`` becomes ``i64``.  An op's ``fastmath`` flags are carried to the
llvm float ops it becomes (``llvm.fadd``... take them; LLVM then contracts or
reassociates where the flags allow).  Where LLVM has no instruction:

* ``arith.fptosi``/``fptoui``: ``llvm.fptosi.sat``/``fptoui.sat`` intrinsics
  (saturating, NaN -> 0; plain ``fptosi`` is poison there anyway);
* ``arith.uitofp``: zero-extend to twice the width, then ``sitofp`` (exact);
* ``arith.maximumf``/``minimumf``: ``llvm.maximum``/``minimum``
  (NaN-propagating); ``maxnumf``/``minnumf``: ``llvm.maxnum``/``minnum``;
* ``arith.floordivsi``/``ceildivsi``: ``sdiv``/``srem`` and a sign fix-up
  (two instructions when the divisor is a positive constant).

Integer arithmetic on constants, and adding 0 or multiplying by 1, is folded
(:func:`fold`): index arithmetic of loop bounds and of one-iteration loops
emits no instruction; an integer op equal to one before it in its block is
that op (``PURE``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue

from graphopt.lowering.to_llvm.common import ConversionPass, LoopToLLVMError, binop, binop_props, build, constant_int, int_attr, llvm_type
from graphopt.lowering.to_llvm.scalar import (
    Emitter,
    Handler,
    ScalarPattern,
    _fsuffix,
    _icmp,
    _intrinsic,
    _isuffix,
    _r,
    _select,
    _tsuffix,
    _width,
    const,
)

# ---------------------------------------------------------------------------
# handlers: (emitter, op, operands) -> results
# ---------------------------------------------------------------------------
HANDLERS: dict[type[Operation], Handler] = {}


def _binop(key: type[Operation], cls: type[Operation]) -> None:
    HANDLERS[key] = lambda e, op, a: e.morph(op, cls, a, binop_props(cls))


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


def _minmax_int(pred: str) -> Handler:
    return lambda e, op, a: [_select(e, _icmp(e, pred, a[0], a[1]), a[0], a[1])]


HANDLERS[arith.MaxnumfOp] = lambda e, op, a: _intrinsic(e, f"llvm.maxnum.{_tsuffix(a[0].type)}", a, a[0].type)
HANDLERS[arith.MinnumfOp] = lambda e, op, a: _intrinsic(e, f"llvm.minnum.{_tsuffix(a[0].type)}", a, a[0].type)
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


def _div_round(e: Emitter, a: SSAValue, b: SSAValue, floor: bool) -> SSAValue:
    """floor/ceil signed division: q = a / b (truncating), adjusted by one
    when the remainder is non-zero and its sign says so."""
    t = a.type
    q = e.emit(llvm.SDivOp(a, b)).results[0]
    r = e.emit(llvm.SRemOp(a, b)).results[0]
    zero = const(e, 0, t)
    if (divisor := constant_int(b)) is not None and divisor > 0:
        # b > 0: floor adjusts by -1 when r < 0 (r >> (width-1) is then -1),
        # ceil by +1 when r > 0.
        if floor:
            return e.emit(binop(llvm.AddOp, q, e.emit(binop(llvm.AShrOp, r, const(e, _width(t) - 1, t))).results[0])).results[0]
        up = e.emit(llvm.ZExtOp(_icmp(e, "sgt", r, zero), t)).results[0]
        return e.emit(binop(llvm.AddOp, q, up)).results[0]
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


def _floordiv(a: int, b: int) -> int:
    return a // b


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


#: Integer ops folded when their operands are constants.
FOLD = {
    arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b, arith.MuliOp: lambda a, b: a * b,
    arith.FloorDivSIOp: _floordiv, arith.CeilDivSIOp: _ceildiv, arith.DivSIOp: _truncdiv,
    arith.RemSIOp: lambda a, b: a - b * _truncdiv(a, b),
    arith.MaxSIOp: max, arith.MinSIOp: min,
}  # fmt: skip


def fold(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue] | None:
    """The results of an integer op on constants, or of ``x + 0``, ``x - 0``,
    ``x * 1``, ``x * 0``, ``x / 1``: no instruction is emitted for them
    (index arithmetic on loop bounds, one-iteration loops...)."""
    t = op.results[0].type
    if not isinstance(t, IntegerType | IndexType):
        return None
    x, y = constant_int(a[0]), constant_int(a[1])
    cls = type(op)
    if x is not None and y is not None:
        if cls not in (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.MaxSIOp, arith.MinSIOp) and y == 0:
            return None
        w = _width(t)
        v = FOLD[cls](x, y) & ((1 << w) - 1)
        return [const(e, v - (1 << w) if w > 1 and v >> (w - 1) else v, t)]
    if y == 0 and cls in (arith.AddiOp, arith.SubiOp) or y == 1 and cls in (arith.MuliOp, arith.DivSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp):
        return [a[0]]
    if x == 0 and cls is arith.AddiOp or x == 1 and cls is arith.MuliOp:
        return [a[1]]
    if (x == 0 or y == 0) and cls is arith.MuliOp:
        return [const(e, 0, t)]
    return None


def _cmpi(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    assert isinstance(op, arith.CmpiOp)
    pred = op.predicate
    return e.morph(op, llvm.ICmpOp, a, {"predicate": int_attr(pred.value.data, i64)})


def _cmpf(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    assert isinstance(op, arith.CmpfOp)
    pred = op.predicate
    flag = llvm.FCmpPredicateFlag.from_int(pred.value.data)
    if flag == llvm.FCmpPredicateFlag.FALSE:
        return [const(e, 0, i1)]
    if flag == llvm.FCmpPredicateFlag.TRUE:
        return [const(e, 1, i1)]
    return e.morph(op, llvm.FCmpOp, a, {"predicate": int_attr(flag.to_int(), i64)})


HANDLERS[arith.CmpiOp] = _cmpi
HANDLERS[arith.CmpfOp] = _cmpf
HANDLERS[arith.SelectOp] = lambda e, op, a: e.morph(op, llvm.SelectOp, a)


def _constant(e: Emitter, op: Operation, a: list[SSAValue]) -> list[SSAValue]:
    assert isinstance(op, arith.ConstantOp)
    value = op.value
    t = op.results[0].type
    if isinstance(value, IntegerAttr | FloatAttr):
        return [const(e, value.value.data, t, op)]
    raise LoopToLLVMError(f"arith.constant of {value} is not supported (only scalars)")


HANDLERS[arith.ConstantOp] = _constant


# --- casts -----------------------------------------------------------------
def _int_resize(e: Emitter, v: SSAValue, to: Attribute, signed: bool) -> SSAValue:
    to = llvm_type(to)
    wf, wt = _width(v.type), _width(to)
    if wf == wt:
        return v
    if wf > wt:
        return e.emit(llvm.TruncOp(v, to)).results[0]
    return e.emit(build(llvm.SExtOp if signed else llvm.ZExtOp, (v,), (to,))).results[0]


def _res_type(op: Operation) -> Attribute:
    return llvm_type(op.results[0].type)


HANDLERS[arith.ExtSIOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), True)]
HANDLERS[arith.ExtUIOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), False)]
HANDLERS[arith.TruncIOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), True)]
HANDLERS[arith.IndexCastOp] = lambda e, op, a: [_int_resize(e, a[0], _res_type(op), True)]
for _n, _c in {
    arith.NegfOp: llvm.FNegOp, arith.ExtFOp: llvm.FPExtOp, arith.TruncFOp: llvm.FPTruncOp,
    arith.SIToFPOp: llvm.SIToFPOp, arith.BitcastOp: llvm.BitcastOp,
}.items():  # fmt: skip
    HANDLERS[_n] = lambda e, op, a, c=_c: e.morph(op, c, a)


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



#: Ops whose llvm form is the same instruction on 1-D vectors.
ELEMENTWISE = frozenset(
    {arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.NegfOp,
     arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.SelectOp,
     arith.MaximumfOp, arith.MinimumfOp}
)  # fmt: skip


#: Integer ops a preceding equal op of the same block replaces (index
#: arithmetic the kernels repeat per access).
PURE = frozenset(
    {arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp,
     arith.CeilDivSIOp, arith.MaxSIOp, arith.MinSIOp, arith.CmpiOp, arith.IndexCastOp, arith.ExtSIOp,
     arith.ExtUIOp, arith.TruncIOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRSIOp}
)  # fmt: skip


@dataclass(frozen=True)
class ConvertArithToLLVMPass(ConversionPass):
    name = "convert-arith-to-llvm"

    def patterns(self):
        pattern = ScalarPattern(HANDLERS, elementwise=ELEMENTWISE, folders=FOLD, fold=fold, pure=PURE)
        return dict.fromkeys(HANDLERS, pattern)
