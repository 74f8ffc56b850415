"""``lower-loop-to-llvm``: the loop-level program to xDSL's ``llvm`` dialect.

Input: a ``builtin.module`` of kernel ``func.func``s (``loop.for`` nests,
``loop.load``/``loop.store``, ``arith``/``math`` scalars, ``memref.alloca``),
``memref.global`` constants and driver ``func.func``s marked with
``#loop.abi`` (see :mod:`graphopt.dialects.loop`).

Output: a module holding only top-level ``llvm.func`` and ``llvm.mlir.global``
ops, so ``graph-opt -p lower-loop-to-llvm -t llvm`` prints LLVM IR.

Conventions
-----------
* A memref is a bare ``!llvm.ptr`` to dense row-major data; a load/store
  linearises its indices with ``mul``/``add nsw`` and uses ``getelementptr
  inbounds``.  ``index`` is ``i64``.
* ``i1`` elements are stored as one byte (``i8``, 0 or 1) like numpy's
  ``bool``: loads ``trunc``, stores ``zext``.
* ``loop.for`` becomes a header block whose arguments are the induction
  variable and the iter_args (``icmp slt`` + ``llvm.cond_br``), a body that
  ends in ``add iv, step`` + ``llvm.br`` back to the header, and an exit block;
  the loop's results are the header's iter-arg block arguments.  Steps must be
  positive.
* ``memref.alloca`` (static) becomes an ``llvm.alloca`` hoisted to the
  function's entry block (so a loop around it does not grow the stack).
* Private ``func.func``s (kernels) get ``internal`` linkage so LLVM can
  inline them into their driver; everything else is ``external``.  Note that
  xDSL's own ``-t llvm`` printer drops function linkage;
  :func:`to_llvmlite_module` re-applies it.
* No pointer argument is marked ``noalias``: memory planning may make a
  kernel's input and output share storage (in-place ops), so the lowering
  cannot prove the absence of aliasing.  The loop vectoriser still vectorises
  with run-time overlap checks.  Hidden constant arguments are never written,
  so they carry ``noalias``.
* Constants: a ``memref.global`` of at most ``max-inline-constant-bytes``
  bytes (or one used outside a driver) becomes an ``llvm.mlir.global``
  (``internal``, with its dense initializer, ``constant`` when the memref
  global is).  A larger one used only by drivers becomes a *hidden* pointer
  parameter appended to each driver using it, after the workspace, in order of
  first use; :class:`LLVMLoweringResult` lists them with their numpy arrays.
* Drivers keep their symbol names, get ``external`` linkage and the ABI
  ``void fn(in0, ..., inN, out0, ..., outM, workspace, hidden0, ...)``.
* Scalar ops: see :mod:`graphopt.lowering.llvm_scalar` (libm is called for
  ``tanh``, ``erf`` ...; ``fptosi`` uses ``llvm.fptosi.sat``).

Python API
----------
``lower_loop_to_llvm(module, max_inline_constant_bytes=4096)
-> LLVMLoweringResult`` rewrites ``module`` in place and describes every
driver (:class:`DriverInfo`).  ``to_llvmlite_module(module)`` /
``emit_llvm_ir(module)`` translate the lowered module with xDSL's
``convert_module`` and re-apply function linkage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    TensorType,
    UnitAttr,
    i8,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from graphopt.dialects import loop
from graphopt.lowering.llvm_function import (
    PTR,
    FuncLowering,
    LoopToLLVMError,
    llvm_type,
    num_elements,
    static_memref,
    storage_type,
)

__all__ = [
    "DriverInfo",
    "HiddenConstant",
    "LLVMLoweringResult",
    "LoopToLLVMError",
    "LowerLoopToLLVMPass",
    "emit_llvm_ir",
    "lower_loop_to_llvm",
    "numpy_dtype",
    "to_llvmlite_module",
]



# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of a memref element type (``i1`` -> ``bool``)."""
    if isinstance(t, Float32Type):
        return np.dtype(np.float32)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return np.dtype(np.bool_)
        if w in (8, 16, 32, 64):
            unsigned = t.signedness.data.name == "UNSIGNED"
            return np.dtype(f"{'u' if unsigned else 'i'}{w // 8}")
    raise LoopToLLVMError(f"element type {t} has no numpy equivalent")


@dataclass
class HiddenConstant:
    """A large constant passed to a driver as a trailing pointer argument."""

    symbol: str
    type: MemRefType
    array: np.ndarray


@dataclass
class DriverInfo:
    """Signature of one driver after lowering."""

    name: str
    input_types: list[MemRefType]
    output_types: list[MemRefType]
    workspace_bytes: int
    input_names: list[str | None] = field(default_factory=list)
    output_names: list[str | None] = field(default_factory=list)
    hidden_constants: list[HiddenConstant] = field(default_factory=list)

    @property
    def num_params(self) -> int:
        return len(self.input_types) + len(self.output_types) + 1 + len(self.hidden_constants)


@dataclass
class LLVMLoweringResult:
    module: ModuleOp
    drivers: dict[str, DriverInfo]


def _dense_to_numpy(value: DenseIntOrFPElementsAttr, t: MemRefType) -> np.ndarray:
    dtype = numpy_dtype(t.element_type)
    elt = value.get_element_type()
    raw = value.data.data
    if isinstance(elt, IndexType):
        arr = np.frombuffer(raw, dtype=np.int64)
    elif isinstance(elt, IntegerType) and elt.width.data == 1:
        arr = np.frombuffer(raw, dtype=np.uint8).astype(np.bool_)
    else:
        arr = np.frombuffer(raw, dtype=dtype.newbyteorder("<"))
    n = num_elements(t)
    if arr.size == 1 and n != 1:
        arr = np.full(n, arr[0])
    if arr.size != n:
        raise LoopToLLVMError(f"initializer of {t} has {arr.size} elements, expected {n}")
    return np.ascontiguousarray(arr.astype(dtype, copy=False).reshape(t.get_shape()))


# ---------------------------------------------------------------------------
# module lowering
# ---------------------------------------------------------------------------


class _ModuleLowering:
    def __init__(self, module: ModuleOp, max_inline_constant_bytes: int):
        self.module = module
        self.max_inline = max_inline_constant_bytes
        self.externals: dict[str, llvm.FuncOp] = {}
        self.new_ops: list[Operation] = []

    def declare_external(self, name: str, arg_types: Sequence[Attribute], ret: Attribute) -> None:
        if name in self.externals:
            return
        fn = llvm.FuncOp(
            name, llvm.LLVMFunctionType(list(arg_types), ret), linkage=llvm.LinkageAttr("external")
        )
        self.externals[name] = fn

    def run(self) -> LLVMLoweringResult:
        globals_: dict[str, memref.GlobalOp] = {}
        funcs: list[func.FuncOp] = []
        for op in self.module.ops:
            match op:
                case memref.GlobalOp():
                    globals_[op.sym_name.data] = op
                case func.FuncOp():
                    funcs.append(op)
                case llvm.FuncOp() | llvm.GlobalOp():
                    pass
                case _:
                    raise LoopToLLVMError(
                        f"'{op.name}' at module level is not supported by lower-loop-to-llvm"
                    )
        drivers = {f.sym_name.data: f for f in funcs if loop.get_driver_abi(f) is not None}

        # Which globals are used where (driver-only large constants are hidden).
        users: dict[str, set[str]] = {g: set() for g in globals_}
        first_use: dict[str, list[str]] = {d: [] for d in drivers}
        for f in funcs:
            fname = f.sym_name.data
            for inner in f.walk():
                if isinstance(inner, memref.GetGlobalOp):
                    g = inner.name_.string_value()
                    if g not in globals_:
                        raise LoopToLLVMError(f"memref.get_global of unknown symbol @{g}")
                    users[g].add(fname)
                    if fname in first_use and g not in first_use[fname]:
                        first_use[fname].append(g)
        hidden: set[str] = set()
        arrays: dict[str, np.ndarray] = {}
        for g, gop in globals_.items():
            t = static_memref(gop.type, f"memref.global @{g}")
            size = loop.memref_num_bytes(t)
            if (
                size > self.max_inline
                and users[g]
                and users[g] <= drivers.keys()
                and isinstance(gop.initial_value, DenseIntOrFPElementsAttr)
                and gop.constant is not None
            ):
                hidden.add(g)
                arrays[g] = _dense_to_numpy(gop.initial_value, t)

        result_drivers: dict[str, DriverInfo] = {}
        for name, f in drivers.items():
            result_drivers[name] = self.driver_info(f)
            result_drivers[name].hidden_constants = [
                HiddenConstant(g, globals_[g].type, arrays[g])  # type: ignore[arg-type]
                for g in first_use[name]
                if g in hidden
            ]

        new_ops: list[Operation] = []
        for g, gop in globals_.items():
            if g not in hidden:
                new_ops.append(self.lower_global(gop))
        for f in funcs:
            new_ops.append(self.lower_func(f, drivers, result_drivers, globals_))
        new_ops.extend(self.externals.values())

        for op in list(self.module.ops):
            if isinstance(op, memref.GlobalOp | func.FuncOp):
                op.detach()
                op.erase(safe_erase=False)
        self.module.body.block.add_ops(new_ops)
        return LLVMLoweringResult(self.module, result_drivers)

    def driver_info(self, f: func.FuncOp) -> DriverInfo:
        abi = loop.get_driver_abi(f)
        assert abi is not None
        name = f.sym_name.data
        n_in, n_out = abi.num_inputs.data, abi.num_outputs.data
        inputs = list(f.function_type.inputs.data)
        if len(inputs) != n_in + n_out + 1:
            raise LoopToLLVMError(
                f"driver @{name}: #loop.abi says {n_in} inputs + {n_out} outputs + "
                f"workspace, but the function has {len(inputs)} arguments"
            )
        if f.function_type.outputs.data:
            raise LoopToLLVMError(f"driver @{name} must not return values")
        ws = inputs[-1]
        if (
            not isinstance(ws, MemRefType)
            or ws.get_shape() != (abi.workspace_bytes.data,)
            or ws.element_type != i8
        ):
            raise LoopToLLVMError(
                f"driver @{name}: the last argument must be the workspace "
                f"memref<{abi.workspace_bytes.data}xi8>, got {ws}"
            )
        types = [static_memref(t, f"driver @{name} argument {i}") for i, t in enumerate(inputs)]
        hints = [a.name_hint for a in f.body.block.args] if f.body.blocks else [None] * len(types)
        return DriverInfo(
            name=name,
            input_types=types[:n_in],
            output_types=types[n_in : n_in + n_out],
            workspace_bytes=abi.workspace_bytes.data,
            input_names=hints[:n_in],
            output_names=hints[n_in : n_in + n_out],
        )

    def lower_global(self, gop: memref.GlobalOp) -> llvm.GlobalOp:
        t = static_memref(gop.type, f"memref.global @{gop.sym_name.data}")
        st = storage_type(t.element_type)
        n = max(1, num_elements(t))
        arr_t = llvm.LLVMArrayType(n, st)
        value: Attribute | None = None
        init = gop.initial_value
        if isinstance(init, DenseIntOrFPElementsAttr):
            arr = _dense_to_numpy(init, t).reshape(-1)
            if arr.dtype == np.bool_:
                arr = arr.astype(np.uint8)
            value = DenseIntOrFPElementsAttr(
                TensorType(st, [arr.size]), BytesAttr(np.ascontiguousarray(arr).tobytes())
            )
        elif not isinstance(init, UnitAttr | NoneAttr) and init is not None:
            raise LoopToLLVMError(f"memref.global @{gop.sym_name.data}: unsupported initializer")
        else:
            # uninitialised: zero-initialise
            zero = 0.0 if isinstance(st, AnyFloat) else 0
            value = DenseIntOrFPElementsAttr.from_list(TensorType(st, [n]), [zero] * n)
        return llvm.GlobalOp(
            arr_t,
            gop.sym_name.data,
            "internal",
            constant=gop.constant is not None,
            value=value,
            alignment=64,
        )

    def lower_func(
        self,
        f: func.FuncOp,
        drivers: dict[str, func.FuncOp],
        infos: dict[str, DriverInfo],
        globals_: dict[str, memref.GlobalOp],
    ) -> llvm.FuncOp:
        name = f.sym_name.data
        ft = f.function_type
        if len(ft.outputs.data) > 1:
            raise LoopToLLVMError(f"@{name}: functions with several results are not supported")
        ret = llvm_type(ft.outputs.data[0]) if ft.outputs.data else llvm.LLVMVoidType()
        params = [llvm_type(t) for t in ft.inputs.data]
        info = infos.get(name)
        n_hidden = len(info.hidden_constants) if info else 0
        params += [PTR] * n_hidden
        is_private = f.sym_visibility is not None and f.sym_visibility.data == "private"
        linkage = "internal" if (is_private and f.body.blocks) else "external"
        fn_type = llvm.LLVMFunctionType(params, ret)
        if not f.body.blocks:
            return llvm.FuncOp(name, fn_type, linkage=llvm.LinkageAttr("external"))
        n_args = len(ft.inputs.data)
        hidden_syms = [hc.symbol for hc in info.hidden_constants] if info else []
        region = FuncLowering(self, f).lower(hidden_syms)
        arg_attrs = None
        if n_hidden:
            empty = DictionaryAttr({})
            noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
            arg_attrs = ArrayAttr([empty] * n_args + [noalias] * n_hidden)
        return llvm.FuncOp(
            name,
            fn_type,
            linkage=llvm.LinkageAttr(linkage),
            body=region,
            other_props={"arg_attrs": arg_attrs} if arg_attrs is not None else None,
        )


def lower_loop_to_llvm(
    module: ModuleOp, max_inline_constant_bytes: int = 4096
) -> LLVMLoweringResult:
    """Lower a loop-level ``module`` to the llvm dialect, IN PLACE.

    Returns the module and, per driver, its signature and hidden constants."""
    return _ModuleLowering(module, max_inline_constant_bytes).run()


@dataclass(frozen=True)
class LowerLoopToLLVMPass(ModulePass):
    """Lower ``loop``/``arith``/``math``/``memref``/``func`` to ``llvm``."""

    name = "lower-loop-to-llvm"

    max_inline_constant_bytes: int = 4096

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from graphopt.transforms.levels import LOOP, require_level

        require_level(op, self.name, LOOP)
        lower_loop_to_llvm(op, self.max_inline_constant_bytes)


# ---------------------------------------------------------------------------
# llvm dialect -> LLVM IR text
# ---------------------------------------------------------------------------


def to_llvmlite_module(module: ModuleOp, target_triple: str | None = None):
    """xDSL's ``convert_module`` plus the function linkage it drops."""
    from xdsl.backend.llvm.convert import convert_module

    ir_mod = convert_module(module, fallback_target_triple=target_triple)
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            linkage = op.linkage.linkage.data
            if linkage != "external":
                ir_mod.get_global(op.sym_name.data).linkage = linkage
    return ir_mod


def emit_llvm_ir(module: ModuleOp, target_triple: str | None = None) -> str:
    """LLVM IR text of a lowered module."""
    return str(to_llvmlite_module(module, target_triple))

