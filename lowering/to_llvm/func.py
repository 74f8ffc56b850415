"""``convert-func-to-llvm``: functions, calls and returns.

``func.func`` becomes ``llvm.func`` with llvm-typed arguments; a private
function with a body (a kernel) gets ``internal`` linkage (and, when printed,
``noinline``: optimising each kernel on its own keeps LLVM's time linear in
the number of kernels), everything else is ``external``.  Discardable attributes
(the driver's ``#loop.abi``) and argument attributes (``llvm.noalias`` on
the constants a driver receives) are kept.  ``func.call`` and
``func.return`` become ``llvm.call`` and ``llvm.return``; several results are
not supported.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, llvm
from xdsl.ir import Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from graphopt.lowering.to_llvm.common import (
    ConversionPass,
    LoopToLLVMError,
    as_llvm,
    before,
    call,
    llvm_type,
    replace_with_llvm,
    retype_block_arguments,
)


def _single_result(types, what: str):
    if len(types) > 1:
        raise LoopToLLVMError(f"{what}: several results are not supported")
    return llvm_type(types[0]) if types else llvm.LLVMVoidType()


class FuncPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter, /) -> None:
        name = op.sym_name.data
        ft = op.function_type
        fn_type = llvm.LLVMFunctionType(
            [llvm_type(t) for t in ft.inputs.data], _single_result(ft.outputs.data, f"@{name}")
        )
        private = op.sym_visibility is not None and op.sym_visibility.data == "private"
        declaration = not op.body.blocks
        linkage = "internal" if private and not declaration else "external"
        body = Region()
        if op.body.blocks:
            retype_block_arguments(rewriter, op.body.blocks[0])
            body = op.detach_region(op.body)
        props = {"arg_attrs": op.arg_attrs} if op.arg_attrs is not None else None
        new = llvm.FuncOp(
            name, fn_type, linkage=llvm.LinkageAttr(linkage), body=body,
            other_props=props, extra_attrs=dict(op.attributes),
        )  # fmt: skip
        if declaration:  # an external symbol: diagnostics about it point at its source
            new.location = op.location
        rewriter.replace(op, [new], [])


class CallPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter, /) -> None:
        ret = _single_result(op.result_types, f"call of @{op.callee.string_value()}")
        at = before(op)
        new = call(
            op.callee.string_value(),
            [as_llvm(rewriter, a, at) for a in op.arguments],
            None if isinstance(ret, llvm.LLVMVoidType) else ret,
        )
        replace_with_llvm(rewriter, op, [new], new.results)


class ReturnPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter, /) -> None:
        if len(op.arguments) > 1:
            raise LoopToLLVMError("functions with several results are not supported")
        at = before(op)
        value = as_llvm(rewriter, op.arguments[0], at) if op.arguments else None
        rewriter.replace(op, [llvm.ReturnOp(value)], [])


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ConversionPass):
    name = "convert-func-to-llvm"

    def patterns(self):
        return {func.FuncOp: FuncPattern(), func.CallOp: CallPattern(), func.ReturnOp: ReturnPattern()}
