"""lower-loop-to-llvm: structure of the output and the lowering result."""

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, math, memref, scf
from xdsl.parser import Parser

from graphopt.dialects.loop import Loop
from graphopt.runtime.abi import read_drivers
from graphopt.lowering.to_llvm import (
    LoopToLLVMError,
    LowerLoopToLLVMPass,
    emit_llvm_ir,
    lower_loop_to_llvm,
)


def parse(text):
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, math.Math, memref.MemRef, scf.Scf, llvm.LLVM, Loop):
        ctx.load_dialect(d)
    m = Parser(ctx, text).parse_module()
    m.verify()
    return m, ctx


PROGRAM = """
builtin.module {
  "memref.global"() <{sym_name = "big", sym_visibility = "private", type = memref<2x2xf32>, initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, constant}> : () -> ()
  "memref.global"() <{sym_name = "tiny", sym_visibility = "private", type = memref<1xi1>, initial_value = dense<true> : tensor<1xi1>, constant}> : () -> ()
  func.func private @k(%a: memref<2x2xf32>, %o: memref<2x2xf32>) {
    func.return
  }
  func.func @main(%x: memref<2x2xf32>, %y: memref<2x2xf32>, %z: memref<3xi1>, %ws: memref<16xi8>) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<2x2xf32>], outputs = ["y" : tensor<2x2xf32>, "z" : tensor<3xi1>], workspace = 16>} {
    %t = memref.get_global @tiny : memref<1xi1>
    %b = memref.get_global @big : memref<2x2xf32>
    func.call @k(%b, %y) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
    func.return
  }
}
"""


def test_lowering_result_describes_drivers():
    m, _ = parse(PROGRAM)
    lower_loop_to_llvm(m, max_inline_constant_bytes=8)
    m.verify()
    assert all(isinstance(op, llvm.FuncOp | llvm.GlobalOp) for op in m.ops)
    info = read_drivers(m)["main"]
    assert [t.get_shape() for t in info.input_types] == [(2, 2)]
    assert [t.get_shape() for t in info.output_types] == [(2, 2), (3,)]
    assert info.workspace_bytes == 16
    assert info.input_names == ["x"] and info.output_names == ["y", "z"]
    assert len(info.hidden_constants) == 1
    np.testing.assert_array_equal(info.hidden_constants[0].array, [[1, 2], [3, 4]])
    assert info.num_params == 5
    main = next(op for op in m.ops if isinstance(op, llvm.FuncOp) and op.sym_name.data == "main")
    assert len(main.function_type.inputs) == 5
    assert main.linkage.linkage.data == "external"
    ir = emit_llvm_ir(m)
    assert '@"tiny" = internal constant [1 x i8] c"\\01", align 64' in ir
    assert 'define internal void @"k"' in ir


def test_pass_option_and_default_inlines_small_constants():
    m, ctx = parse(PROGRAM)
    LowerLoopToLLVMPass().apply(ctx, m)
    names = {op.sym_name.data for op in m.ops if isinstance(op, llvm.GlobalOp)}
    assert names == {"big", "tiny"}


def test_bad_driver_abi_is_reported():
    m, _ = parse(
        """
func.func @main(%x: memref<2xf32>, %ws: memref<8xi8>) attributes {loop.abi = #loop.abi<inputs = ["x" : tensor<2xf32>], outputs = ["ws" : tensor<8xi8>], workspace = 8>} {
  func.return
}
"""
    )
    with pytest.raises(LoopToLLVMError, match="#loop.abi says 1 inputs \\+ 1 outputs"):
        lower_loop_to_llvm(m)


def test_unsupported_op_is_reported():
    m, _ = parse(
        """
func.func private @k(%a: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<2xi32>
  %y = math.ctpop %x : i32
  memref.store %y, %a[%c0] : memref<2xi32>
  func.return
}
"""
    )
    with pytest.raises(LoopToLLVMError, match="'math.ctpop' is not supported"):
        lower_loop_to_llvm(m)


def test_fastmath_flags_reach_llvm_ir():
    m, _ = parse(
        """
func.func private @k(%a: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<2xf32>
  %y = arith.mulf %x, %x fastmath<contract> : f32
  %z = arith.addf %y, %x fastmath<reassoc,contract> : f32
  memref.store %z, %a[%c0] : memref<2xf32>
  func.return
}
"""
    )
    lower_loop_to_llvm(m)
    ir = emit_llvm_ir(m)
    assert "fmul contract float" in ir
    assert "fadd reassoc contract float" in ir  # LLVM's order, in every process
