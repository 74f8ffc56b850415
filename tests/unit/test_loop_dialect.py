"""The loop dialect: the driver ABI attribute and the loop-level safety rules."""

import pytest
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    MemRefType,
    TensorType,
    f32,
    i1,
    i8,
)
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.loop import (
    DriverABIAttr,
    check_loop_level_op,
    get_driver_abi,
    memref_num_bytes,
    set_driver_abi,
)
from graphopt.runtime.abi import DriverInfo


def test_driver_abi_helpers_and_runtime_view():
    fn = func.FuncOp("f", ([], []), Region(Block([func.ReturnOp()])))
    assert get_driver_abi(fn) is None
    t, b = TensorType(f32, [4]), TensorType(i1, [2, 3])
    k = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2]), [1.0, 2.0])
    set_driver_abi(fn, DriverABIAttr([("x", t), ("", b)], [("y", t)], 4096, [k]))
    abi = get_driver_abi(fn)
    assert abi is not None
    assert (abi.num_inputs, abi.num_outputs, abi.workspace_bytes.data) == (2, 1, 4096)
    text = '#loop.abi<inputs = ["x" : tensor<4xf32>, "" : tensor<2x3xi1>], outputs = ["y" : tensor<4xf32>], workspace = 4096, constants = ['
    assert text in str(fn)
    info = DriverInfo.from_abi("f", abi)
    assert info.input_names == ["x", None] and info.output_names == ["y"]
    assert [m.get_shape() for m in info.input_types] == [(4,), (2, 3)]
    assert info.num_params == 5
    assert info.hidden_constants[0].array.tolist() == [1.0, 2.0]


def index(v: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(v, IndexType())


@pytest.mark.parametrize("step", [0, -2])
def test_constant_step_must_be_positive(step):
    c = index(step)
    loop = scf.ForOp(c, c, c, [], Block([scf.YieldOp()], arg_types=[IndexType()]))
    with pytest.raises(VerifyException, match=f"step must be positive, got the constant {step}"):
        check_loop_level_op(loop)
    check_loop_level_op(scf.ForOp(c, c, index(1), [], Block([scf.YieldOp()], arg_types=[IndexType()])))


def test_constant_indices_must_be_in_bounds():
    m = Block(arg_types=[MemRefType(f32, [4, 3])]).args[0]
    ok = memref.LoadOp.get(m, [index(3), index(2)])
    check_loop_level_op(ok)
    bad = memref.LoadOp.get(m, [index(0), index(3)])
    with pytest.raises(VerifyException, match="index 3 is out of bounds for dimension 1"):
        check_loop_level_op(bad)
    # An index known only at run time is not rejected here.
    iv = Block(arg_types=[IndexType()]).args[0]
    check_loop_level_op(memref.StoreOp.get(ok.res, m, [iv, iv]))


def test_view_must_fit_in_the_workspace():
    ws = Block(arg_types=[MemRefType(i8, [64])]).args[0]
    check_loop_level_op(memref.ViewOp(ws, index(48), [], MemRefType(f32, [4])))
    with pytest.raises(VerifyException, match="does not fit"):
        check_loop_level_op(memref.ViewOp(ws, index(52), [], MemRefType(f32, [4])))


def test_memref_num_bytes_stores_i1_as_a_byte():
    assert memref_num_bytes(MemRefType(f32, [2, 3])) == 24
    assert memref_num_bytes(MemRefType(i1, [5])) == 5
