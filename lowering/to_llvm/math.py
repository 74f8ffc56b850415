"""``convert-math-to-llvm``: scalar ``math`` ops to ``llvm`` ops or libm.

LLVM intrinsics where they exist (``exp``, ``log``, ``sqrt``, ``fma``...);
``math.rsqrt`` is ``1 / sqrt(x)``; ``tanh``, ``erf``, ``atan``, ``log1p`` and
the other functions without an intrinsic call libm (``tanhf`` for f32,
``tanh`` for f64), declared in the module as external ``llvm.func``s.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import Float32Type, Float64Type, ModuleOp
from xdsl.ir import Operation, SSAValue

from graphopt.lowering.to_llvm.common import ConversionPass, LoopToLLVMError
from graphopt.lowering.to_llvm.scalar import (
    Emitter,
    Handler,
    ScalarPattern,
    _tsuffix,
    _icmp,
    _intrinsic,
    _r,
    _select,
    const,
    declare_externals,
)

HANDLERS: dict[type[Operation], Handler] = {}
# Overloaded intrinsics by their mangled names (``llvm.sqrt.f32``): xDSL's
# ``llvm.FSqrtOp``... translate to unmangled ones, and an f32 and an f64 use
# in one module would then clash.
for _n, _intr in {
    mathd.PowFOp: "pow",
    mathd.CopySignOp: "copysign",
    mathd.ExpOp: "exp",
    mathd.Exp2Op: "exp2",
    mathd.LogOp: "log",
    mathd.Log2Op: "log2",
    mathd.Log10Op: "log10",
    mathd.SqrtOp: "sqrt",
    mathd.AbsFOp: "fabs",
    mathd.SinOp: "sin",
    mathd.CosOp: "cos",
    mathd.FloorOp: "floor",
    mathd.CeilOp: "ceil",
    mathd.RoundOp: "round",
    mathd.RoundEvenOp: "roundeven",
    mathd.TruncOp: "trunc",
}.items():

    def _mk(intr: str) -> Handler:
        return lambda e, op, a: _intrinsic(e, f"llvm.{intr}.{_tsuffix(a[0].type)}", a, a[0].type)

    HANDLERS[_n] = _mk(_intr)


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
            raise LoopToLLVMError(f"{op.name} on {t} is not supported")
        return [e.libm_call(name, a, t)]

    return h


for _cls, _fname in LIBM_UNARY.items():
    HANDLERS[_cls] = _libm(_fname)
HANDLERS[mathd.Atan2Op] = _libm("atan2")



@dataclass(frozen=True)
class ConvertMathToLLVMPass(ConversionPass):
    name = "convert-math-to-llvm"

    def patterns(self):
        return dict.fromkeys(HANDLERS, ScalarPattern(HANDLERS))

    def finish(self, module: ModuleOp, patterns) -> None:
        declare_externals(module, next(iter(patterns.values())).externals)
