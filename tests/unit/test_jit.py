"""Loop-level IR compiled with lower-loop-to-llvm + llvmlite, checked against numpy."""

import threading

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, math, memref, scf
from xdsl.parser import Parser

from graphopt.dialects.loop import Loop
from graphopt.runtime.executable import ArgumentError, compile_loop_module


def parse(text: str) -> builtin.ModuleOp:
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, math.Math, memref.MemRef, scf.Scf, llvm.LLVM, Loop):
        ctx.load_dialect(d)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def compile_text(text: str, **kw):
    return compile_loop_module(parse(text), **kw)


def abi(ins: list[str], outs: list[str], ws: int = 0) -> str:
    """The driver attribute for input and output tensor types."""
    def args(types):
        return ", ".join(f'"" : tensor<{t}>' for t in types)

    return f"attributes {{loop.abi = #loop.abi<inputs = [{args(ins)}], outputs = [{args(outs)}], workspace = {ws}>}}"


def index_constants(*values: int) -> str:
    """``%c<v> = arith.constant <v> : index`` for each of ``values``."""
    return "\n".join(f"    %c{v} = arith.constant {v} : index" for v in values)


def loop_2d(rows: int, cols: int, body: str) -> str:
    """``body`` (at 8 spaces, over ``%i``, ``%j``) in a rows x cols nest;
    ``%c0``, ``%c1``, ``%c<rows>`` and ``%c<cols>`` must be defined."""
    return f"""    scf.for %i = %c0 to %c{rows} step %c1 {{
      scf.for %j = %c0 to %c{cols} step %c1 {{
{body}
      }}
    }}"""


def per_row(rows: int, cols: int, body: str) -> str:
    """``body`` (at 6 spaces) once per row ``%i``; ``%c0``, ``%c1``,
    ``%c<rows>``, ``%c<cols>`` and an f32 zero ``%z`` are defined."""
    return index_constants(0, 1, rows, cols) + f"""
    %z = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c{rows} step %c1 {{
{body}
    }}"""


def one_kernel_module(kernel: str, args: list[tuple[str, str]], n_inputs: int, body: str) -> str:
    """``func.func private @<kernel>`` over memrefs ``args`` ((name, shape)
    pairs) with ``body``, and the ``@main`` driver calling it: the first
    ``n_inputs`` args are the inputs, the rest the outputs."""
    params = ", ".join(f"%{name}: memref<{shape}>" for name, shape in args)
    types = ", ".join(f"memref<{shape}>" for _, shape in args)
    names = ", ".join(f"%{name}" for name, _ in args)

    def abi_list(part):
        return ", ".join(f'"{name}" : tensor<{shape}>' for name, shape in part)

    return f"""
builtin.module {{
  func.func private @{kernel}({params}) {{
{body}
    func.return
  }}
  func.func @main({params}, %ws: memref<0xi8>) attributes {{loop.abi = #loop.abi<inputs = [{abi_list(args[:n_inputs])}], outputs = [{abi_list(args[n_inputs:])}], workspace = 0>}} {{
    func.call @{kernel}({names}) : ({types}) -> ()
    func.return
  }}
}}
"""


def elementwise(n: int, in_types: list[str], out_type: str, body: str) -> str:
    """A driver applying `body` (using %x0, %x1... ; defining %r) elementwise over n."""
    params = ", ".join(f"%a{i}: memref<{n}x{t}>" for i, t in enumerate(in_types))
    loads = "\n".join(
        f"      %x{i} = memref.load %a{i}[%i] : memref<{n}x{t}>" for i, t in enumerate(in_types)
    )
    return f"""
builtin.module {{
  func.func @main({params}, %out: memref<{n}x{out_type}>, %ws: memref<0xi8>) {abi([f"{n}x{t}" for t in in_types], [f"{n}x{out_type}"])} {{
    %c0 = arith.constant 0 : index
    %cn = arith.constant {n} : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %cn step %c1 {{
{loads}
{body}
      memref.store %r, %out[%i] : memref<{n}x{out_type}>
    }}
    func.return
  }}
}}
"""


rng = np.random.default_rng(0)


def test_elementwise_add():
    cm = compile_text(elementwise(37, ["f32", "f32"], "f32", "      %r = arith.addf %x0, %x1 : f32"))
    a, b = rng.random(37, dtype=np.float32), rng.random(37, dtype=np.float32)
    np.testing.assert_array_equal(cm.main(a, b), a + b)


BROADCAST = one_kernel_module(
    "k_badd",
    [("a", "4x8xf32"), ("b", "8xf32"), ("o", "4x8xf32")],
    2,
    index_constants(0, 1, 4, 8) + "\n" + loop_2d(4, 8, """\
        %x = memref.load %a[%i, %j] : memref<4x8xf32>
        %y = memref.load %b[%j] : memref<8xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %o[%i, %j] : memref<4x8xf32>"""),
)


def test_broadcast_add_and_module_access():
    cm = compile_text(BROADCAST)
    a, b = rng.random((4, 8), dtype=np.float32), rng.random(8, dtype=np.float32)
    np.testing.assert_array_equal(cm["main"](a, b), a + b)
    assert "main" in cm and list(cm) == ["main"]
    assert 'define void @"main"(ptr' in cm.llvm_ir
    assert 'define internal void @"k_badd"' in cm.llvm_ir


ROWSUM = one_kernel_module(
    "k_sum",
    [("a", "5x33xf32"), ("out", "5xf32")],
    1,
    per_row(5, 33, """\
      %r = scf.for %j = %c0 to %c33 step %c1 iter_args(%acc = %z) -> (f32) {
        %x = memref.load %a[%i, %j] : memref<5x33xf32>
        %s = arith.addf %acc, %x : f32
        scf.yield %s : f32
      }
      memref.store %r, %out[%i] : memref<5xf32>"""),
)


def test_row_sum_with_iter_args():
    cm = compile_text(ROWSUM)
    x = rng.random((5, 33), dtype=np.float32)
    np.testing.assert_allclose(cm.main(x), x.sum(axis=1), rtol=1e-5)


def matmul_ir(m: int, k: int, n: int) -> str:
    return one_kernel_module(
        "k_matmul",
        [("a", f"{m}x{k}xf32"), ("b", f"{k}x{n}xf32"), ("c", f"{m}x{n}xf32")],
        2,
        f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cm = arith.constant {m} : index
    %ck = arith.constant {k} : index
    %cn = arith.constant {n} : index
    %z = arith.constant 0.0 : f32
    scf.for %i = %c0 to %cm step %c1 {{
      scf.for %j = %c0 to %cn step %c1 {{
        %r = scf.for %l = %c0 to %ck step %c1 iter_args(%acc = %z) -> (f32) {{
          %x = memref.load %a[%i, %l] : memref<{m}x{k}xf32>
          %y = memref.load %b[%l, %j] : memref<{k}x{n}xf32>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }}
        memref.store %r, %c[%i, %j] : memref<{m}x{n}xf32>
      }}
    }}""",
    )


def test_matmul():
    cm = compile_text(matmul_ir(7, 13, 9))
    a, b = rng.random((7, 13), dtype=np.float32), rng.random((13, 9), dtype=np.float32)
    np.testing.assert_allclose(cm.main(a, b), a @ b, rtol=1e-5)


@pytest.mark.parametrize("ty,dtype", [("f32", np.float32), ("f64", np.float64)])
def test_math_functions(ty, dtype):
    from math import erf

    ops = ["tanh", "exp", "log", "sqrt", "erf", "sin", "cos", "absf", "floor", "ceil", "rsqrt"]
    body = "\n".join(f"      %y{k} = math.{op} %x0 : {ty}" for k, op in enumerate(ops))
    # pack the results into one output by storing each into its own row
    n = 16
    stores = "\n".join(
        f"      %k{k} = arith.constant {k} : index\n"
        f"      memref.store %y{k}, %out[%k{k}, %i] : memref<{len(ops)}x{n}x{ty}>"
        for k in range(len(ops))
    )
    text = f"""
builtin.module {{
  func.func @main(%a: memref<{n}x{ty}>, %out: memref<{len(ops)}x{n}x{ty}>, %ws: memref<0xi8>) {abi([f"{n}x{ty}"], [f"{len(ops)}x{n}x{ty}"])} {{
    %c0 = arith.constant 0 : index
    %cn = arith.constant {n} : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %cn step %c1 {{
      %x0 = memref.load %a[%i] : memref<{n}x{ty}>
{body}
{stores}
    }}
    func.return
  }}
}}
"""
    cm = compile_text(text)
    x = (rng.random(n) * 3 + 0.1).astype(dtype)
    got = cm.main(x)
    expected = [
        np.tanh(x), np.exp(x), np.log(x), np.sqrt(x),
        np.array([erf(v) for v in x.astype(np.float64)]).astype(dtype),
        np.sin(x), np.cos(x), np.abs(x), np.floor(x), np.ceil(x), 1 / np.sqrt(x),
    ]  # fmt: skip
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for k, (op, e) in enumerate(zip(ops, expected)):
        np.testing.assert_allclose(got[k], e, rtol=rtol, err_msg=op)


def test_powf_fma_maximumf():
    body = """      %p = math.powf %x0, %x1 : f32
      %f = math.fma %x0, %x1, %p : f32
      %m = arith.maximumf %f, %x1 : f32
      %r = arith.minnumf %m, %x0 : f32"""
    cm = compile_text(elementwise(10, ["f32", "f32"], "f32", body))
    a = rng.random(10, dtype=np.float32) + 0.5
    b = rng.random(10, dtype=np.float32) * 2
    p = a**b
    np.testing.assert_allclose(cm.main(a, b), np.minimum(np.maximum(a * b + p, b), a), rtol=1e-5)


def test_f64_arithmetic():
    body = """      %s = arith.mulf %x0, %x1 : f64
      %d = arith.divf %s, %x1 : f64
      %n = arith.negf %d : f64
      %r = arith.subf %n, %x1 : f64"""
    cm = compile_text(elementwise(9, ["f64", "f64"], "f64", body))
    a, b = rng.random(9), rng.random(9) + 1
    np.testing.assert_allclose(cm.main(a, b), -((a * b) / b) - b, rtol=1e-14)


@pytest.mark.parametrize("ty,dtype", [("i32", np.int32), ("i64", np.int64)])
def test_integer_arithmetic(ty, dtype):
    body = f"""      %s = arith.addi %x0, %x1 : {ty}
      %m = arith.muli %s, %x1 : {ty}
      %q = arith.divsi %m, %x1 : {ty}
      %rm = arith.remsi %x0, %x1 : {ty}
      %fd = arith.floordivsi %x0, %x1 : {ty}
      %t = arith.addi %q, %rm : {ty}
      %u = arith.muli %fd, %x1 : {ty}
      %mx = arith.maxsi %t, %u : {ty}
      %r = arith.subi %mx, %x0 : {ty}"""
    cm = compile_text(elementwise(32, [ty, ty], ty, body))
    a = rng.integers(-50, 50, 32).astype(dtype)
    b = rng.integers(1, 7, 32).astype(dtype) * rng.choice([-1, 1], 32).astype(dtype)
    q = ((a + b) * b) // b  # exact
    rm = np.fmod(a, b)  # C remainder
    fd = np.floor_divide(a, b)
    expected = np.maximum(q + rm, fd * b) - a
    np.testing.assert_array_equal(cm.main(a, b), expected)


def test_bool_output_from_cmpf():
    body = "      %r = arith.cmpf olt, %x0, %x1 : f32"
    cm = compile_text(elementwise(20, ["f32", "f32"], "i1", body))
    a, b = rng.random(20, dtype=np.float32), rng.random(20, dtype=np.float32)
    got = cm.main(a, b)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, a < b)


def test_bool_input_select():
    body = "      %r = arith.select %x0, %x1, %x2 : f32"
    cm = compile_text(elementwise(12, ["i1", "f32", "f32"], "f32", body))
    c = rng.random(12) < 0.5
    a, b = rng.random(12, dtype=np.float32), rng.random(12, dtype=np.float32)
    np.testing.assert_array_equal(cm.main(c, a, b), np.where(c, a, b))


def test_casts():
    body = """      %f = arith.sitofp %x0 : i32 to f32
      %h = arith.mulf %f, %x1 : f32
      %fi = arith.fptosi %h : f32 to i64
      %e = arith.extf %h : f32 to f64
      %t = arith.truncf %e : f64 to f32
      %j = arith.fptosi %t : f32 to i64
      %ix = arith.index_cast %j : i64 to index
      %k = arith.index_cast %ix : index to i64
      %s = arith.addi %fi, %k : i64
      %b = arith.cmpi sgt, %s, %k : i64
      %z = arith.extui %b : i1 to i64
      %u = arith.uitofp %z : i64 to f64
      %uf = arith.fptosi %u : f64 to i64
      %r = arith.addi %s, %uf : i64"""
    cm = compile_text(elementwise(16, ["i32", "f32"], "i64", body))
    a = rng.integers(-100, 100, 16).astype(np.int32)
    b = (rng.random(16, dtype=np.float32) - 0.5) * 3
    h = a.astype(np.float32) * b
    i = np.trunc(h).astype(np.int64)
    s = i + i
    expected = s + (s > i).astype(np.int64)
    np.testing.assert_array_equal(cm.main(a, b), expected)


ALLOCA = one_kernel_module(
    "k_softmaxish",
    [("a", "3x6xf32"), ("o", "3x6xf32")],
    1,
    per_row(3, 6, """\
      %tmp = memref.alloca() : memref<6xf32>
      scf.for %j = %c0 to %c6 step %c1 {
        %x = memref.load %a[%i, %j] : memref<3x6xf32>
        %e = math.exp %x : f32
        memref.store %e, %tmp[%j] : memref<6xf32>
      }
      %sum = scf.for %j = %c0 to %c6 step %c1 iter_args(%acc = %z) -> (f32) {
        %e = memref.load %tmp[%j] : memref<6xf32>
        %s = arith.addf %acc, %e : f32
        scf.yield %s : f32
      }
      scf.for %j = %c0 to %c6 step %c1 {
        %e = memref.load %tmp[%j] : memref<6xf32>
        %d = arith.divf %e, %sum : f32
        memref.store %d, %o[%i, %j] : memref<3x6xf32>
      }"""),
)


def test_alloca_local_buffer():
    cm = compile_text(ALLOCA)
    x = rng.random((3, 6), dtype=np.float32)
    e = np.exp(x)
    np.testing.assert_allclose(cm.main(x), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


TWO_KERNELS = """
builtin.module {{
  func.func private @k_double(%a: memref<4x4xf32>, %o: memref<4x4xf32>) {{
{consts}
{double}
    func.return
  }}
  func.func private @k_addc(%a: memref<4x4xf32>, %c: memref<4x4xf32>, %o: memref<4x4xf32>) {{
{consts}
{addc}
    func.return
  }}
  "memref.global"() <{{sym_name = "small", sym_visibility = "private", type = memref<4x4xf32>, initial_value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>, constant}}> : () -> ()
  func.func @main(%a: memref<4x4xf32>, %o: memref<4x4xf32>, %ws: memref<128xi8>) attributes {{loop.abi = #loop.abi<inputs = ["a" : tensor<4x4xf32>], outputs = ["o" : tensor<4x4xf32>], workspace = 128>}} {{
    %c64 = arith.constant 64 : index
    %t = memref.view %ws[%c64][] : memref<128xi8> to memref<4x4xf32>
    %c = memref.get_global @small : memref<4x4xf32>
    func.call @k_double(%a, %t) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
    func.call @k_addc(%t, %c, %o) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
    func.return
  }}
}}
""".format(
    consts=index_constants(0, 1, 4),
    double=loop_2d(4, 4, """\
        %x = memref.load %a[%i, %j] : memref<4x4xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %o[%i, %j] : memref<4x4xf32>"""),
    addc=loop_2d(4, 4, """\
        %x = memref.load %a[%i, %j] : memref<4x4xf32>
        %y = memref.load %c[%i, %j] : memref<4x4xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %o[%i, %j] : memref<4x4xf32>"""),
)

SMALL = np.arange(1, 17, dtype=np.float32).reshape(4, 4)


def test_two_kernels_through_workspace_and_small_constant():
    cm = compile_text(TWO_KERNELS)
    assert '@"small" = internal constant [64 x i8] c"\\00\\00\\80\\3F' in cm.llvm_ir  # 1.0f
    x = rng.random((4, 4), dtype=np.float32)
    np.testing.assert_array_equal(cm.main(x), 2 * x + SMALL)


def test_large_constant_becomes_hidden_argument():
    cm = compile_text(TWO_KERNELS, max_inline_constant_bytes=16)
    assert "@small" not in cm.llvm_ir and '@"small"' not in cm.llvm_ir
    assert 'define void @"main"(ptr %a0, ptr %a1, ptr %a2, ptr noalias %a3)' in cm.llvm_ir
    fn = cm.main
    assert len(fn.hidden_constants) == 1
    np.testing.assert_array_equal(fn.hidden_constants[0], SMALL)
    x = rng.random((4, 4), dtype=np.float32)
    np.testing.assert_array_equal(fn(x), 2 * x + SMALL)


def test_big_weights_do_not_grow_ir():
    n = 4096
    text = f"""
builtin.module {{
  func.func @main(%a: memref<{n}xf32>, %o: memref<{n}xf32>, %ws: memref<0xi8>) {abi([f"{n}xf32"], [f"{n}xf32"])} {{
    %w = memref.get_global @w : memref<{n}xf32>
    %c0 = arith.constant 0 : index
    %cn = arith.constant {n} : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %cn step %c1 {{
      %x = memref.load %a[%i] : memref<{n}xf32>
      %y = memref.load %w[%i] : memref<{n}xf32>
      %s = arith.mulf %x, %y : f32
      memref.store %s, %o[%i] : memref<{n}xf32>
    }}
    func.return
  }}
}}
"""
    module = parse(text)
    weights = np.arange(n, dtype=np.float32)
    t = builtin.MemRefType(builtin.f32, [n])
    init = builtin.DenseIntOrFPElementsAttr(
        builtin.TensorType(builtin.f32, [n]), builtin.BytesAttr(weights.tobytes())
    )
    module.body.block.insert_op_before(
        memref.GlobalOp.get(builtin.StringAttr("w"), t, init, builtin.StringAttr("private"), constant=builtin.UnitAttr()),
        module.body.block.first_op,
    )
    module.verify()
    cm = compile_loop_module(module)
    assert len(cm.llvm_ir) < 4000
    x = rng.random(n, dtype=np.float32)
    np.testing.assert_array_equal(cm.main(x), x * weights)
    # the input module was cloned, not consumed
    assert any(op.name == "memref.global" for op in module.ops)


def test_wrong_inputs_name_the_argument():
    cm = compile_text(BROADCAST)
    good = np.zeros((4, 8), np.float32)
    with pytest.raises(ArgumentError, match=r"argument 1 \(%b\): expected shape \(8,\) float32, got \(7,\) float32"):
        cm.main(good, np.zeros(7, np.float32))
    with pytest.raises(ValueError, match=r"argument 0 \(%a\): expected shape \(4, 8\) float32, got \(4, 8\) float64"):
        cm.main(np.zeros((4, 8)), np.zeros(8, np.float32))
    with pytest.raises(ArgumentError, match="expected 2 input"):
        cm.main(good)
    with pytest.raises(ArgumentError, match="numpy array"):
        cm.main([[0.0] * 8] * 4, np.zeros(8, np.float32))


def test_non_contiguous_input_is_accepted():
    cm = compile_text(BROADCAST)
    a = rng.random((8, 4), dtype=np.float32).T  # Fortran order view
    b = rng.random(8, dtype=np.float32)
    np.testing.assert_array_equal(cm.main(a, b), a + b)


def test_multithreaded_calls():
    cm = compile_text(matmul_ir(16, 32, 8))
    fn = cm.main
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        r = np.random.default_rng(seed)
        try:
            for _ in range(50):
                a = r.random((16, 32), dtype=np.float32)
                b = r.random((32, 8), dtype=np.float32)
                np.testing.assert_allclose(fn(a, b), a @ b, rtol=1e-5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


VECTOR_AXPY = one_kernel_module(
    "k",
    [("x", "4x8xf32"), ("y", "4x8xf32"), ("o", "4x8xf32")],
    2,
    index_constants(0, 1, 4) + """
    %a = arith.constant 3.0 : f32
    %av = vector.broadcast %a : f32 to vector<8xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = vector.load %x[%i, %c0] : memref<4x8xf32>, vector<8xf32>
      %w = vector.load %y[%i, %c0] : memref<4x8xf32>, vector<8xf32>
      %r = vector.fma %av, %v, %w : vector<8xf32>
      %s = arith.subf %r, %v : vector<8xf32>
      vector.store %s, %o[%i, %c0] : memref<4x8xf32>, vector<8xf32>
    }""",
)


def test_vector_kernel():
    from xdsl.dialects import vector

    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, scf.Scf, vector.Vector, llvm.LLVM, Loop):
        ctx.load_dialect(d)
    module = Parser(ctx, VECTOR_AXPY).parse_module()
    cm = compile_loop_module(module)
    x, y = rng.random((4, 8), dtype=np.float32), rng.random((4, 8), dtype=np.float32)
    np.testing.assert_allclose(cm.main(x, y), 3 * x + y - x, rtol=1e-6)
