"""ONNX models keep their names: a compiled model takes its inputs and gives
its outputs by the names written in the .onnx file (``input:0``, ``1x``,
``a/b`` next to ``a_b``, ``out.0``), in ``run()``, keyword calls,
``get_inputs()``/``get_outputs()``, the textual IR (``graph.name``), the
driver ABI, graph-run and the C header; passes that make functions keep or
derive them."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func

import graphopt
from graphopt.dialects import graph
from graphopt.frontends.onnx import import_model
from graphopt.runtime.aot import c_comment_text, c_compiler, c_parameter_name
from graphopt.runtime.compile import parse_text
from graphopt.runtime.executable import onnx_type_name
from graphopt.tools.graph_compile import main as graph_compile
from graphopt.tools.graph_run import main as graph_run
from graphopt.tools.printing import printer_for

#: Input names an SSA name cannot hold: a colon, a leading digit, an "=",
#: and two names that sanitise to the same SSA name.
INPUTS = ["input:0", "1x", "a/b", "a_b", "k=v"]
OUTPUTS = ["out.0", "out/1"]


def names_model(inputs: list[str] = INPUTS, outputs: list[str] = OUTPUTS) -> onnx.ModelProto:
    """out.0 = (input:0 + 1x) * a/b - a_b + k=v, out/1 = relu(a/b)."""
    i0, i1, ab, a_b, kv = inputs
    nodes = [
        helper.make_node("Add", [i0, i1], ["s"]),
        helper.make_node("Mul", ["s", ab], ["m"]),
        helper.make_node("Sub", ["m", a_b], ["d"]),
        helper.make_node("Add", ["d", kv], [outputs[0]]),
        helper.make_node("Relu", [ab], [outputs[1]]),
    ]
    g = helper.make_graph(
        nodes, "names",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in outputs],
    )  # fmt: skip
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def feeds(names: list[str] = INPUTS) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    return {n: rng.standard_normal((2, 3)).astype(np.float32) for n in names}


def expected(model: onnx.ModelProto, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
    return ReferenceEvaluator(model).run(None, feed)


def main_of(module) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")


def text_of(module) -> str:
    out = io.StringIO()
    printer_for(out, None).print_op(module)
    return out.getvalue()


@pytest.fixture(scope="module")
def model() -> onnx.ModelProto:
    return names_model()


@pytest.fixture(scope="module")
def cm(model) -> graphopt.CompiledModule:
    return graphopt.compile(import_model(model), opt_level=1)


# -- the imported function ------------------------------------------------------------


def test_import_keeps_the_onnx_names_as_graph_name(model) -> None:
    fn = main_of(import_model(model))
    assert graph.arg_source_names(fn) == INPUTS
    assert graph.result_source_names(fn) == OUTPUTS
    assert graph.input_names(fn) == INPUTS and graph.output_names(fn) == OUTPUTS
    hints = [a.name_hint for a in fn.body.block.args]
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.\-]*", h) for h in hints), hints
    assert hints[2] == hints[3] == "a_b"  # the SSA hints collide; the interface does not
    text = text_of(import_model(model))
    assert '{graph.name = "a/b"}' in text and '{graph.name = "k=v"}' in text
    assert '-> (tensor<2x3xf32> {graph.name = "out.0"}, tensor<2x3xf32> {graph.name = "out/1"})' in text


# -- running by name -------------------------------------------------------------------


def test_run_takes_and_gives_the_onnx_names(model, cm) -> None:
    feed = feeds()
    want = expected(model, feed)
    got = cm.run(None, feed)
    assert len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    (relu,) = cm.run(["out/1"], feed)
    np.testing.assert_array_equal(relu, want[1])
    backwards = cm.run(["out/1", "out.0"], feed)
    np.testing.assert_array_equal(backwards[0], got[1])
    np.testing.assert_array_equal(backwards[1], got[0])
    # a/b and a_b are two inputs: swapping their arrays changes out.0
    swapped = dict(feed, **{"a/b": feed["a_b"], "a_b": feed["a/b"]})
    assert not np.allclose(cm.run(["out.0"], swapped)[0], got[0])
    np.testing.assert_allclose(cm.run(["out.0"], swapped)[0], expected(model, swapped)[0], rtol=1e-6, atol=1e-6)


def test_keyword_calls_take_the_onnx_names(model, cm) -> None:
    feed = feeds()
    f = cm["main"]
    assert f.input_names == INPUTS and f.output_names == OUTPUTS
    out0, out1 = f(**feed)
    np.testing.assert_array_equal(out0, cm.run(["out.0"], feed)[0])
    # a name that is a Python identifier is an ordinary keyword
    by_keyword = f(feed["input:0"], feed["1x"], feed["a/b"], a_b=feed["a_b"], **{"k=v": feed["k=v"]})
    np.testing.assert_array_equal(by_keyword[0], out0)
    np.testing.assert_array_equal(out1, np.maximum(feed["a/b"], 0))


def test_get_inputs_and_outputs_as_onnxruntime(cm) -> None:
    for ins, outs in ((cm.get_inputs(), cm.get_outputs()), (cm["main"].get_inputs(), cm["main"].get_outputs())):
        assert [i.name for i in ins] == INPUTS
        assert [o.name for o in outs] == OUTPUTS
        assert all(a.shape == [2, 3] and a.type == "tensor(float)" for a in ins + outs)
    feed = feeds()
    # onnxruntime-style code: the feed built from get_inputs()
    got = cm.run([o.name for o in cm.get_outputs()], {i.name: feed[i.name] for i in cm.get_inputs()})
    np.testing.assert_array_equal(got[0], cm.run(None, feed)[0])
    assert repr(cm.get_inputs()[0]) == "NodeArg(name='input:0', type='tensor(float)', shape=[2, 3])"


@pytest.mark.parametrize(
    "dtype, name",
    [(np.float32, "tensor(float)"), (np.float64, "tensor(double)"), (np.int64, "tensor(int64)"),
     (np.int32, "tensor(int32)"), (np.bool_, "tensor(bool)"), (np.uint8, "tensor(uint8)")],
)  # fmt: skip
def test_type_names_are_onnxruntime_spellings(dtype, name) -> None:
    assert onnx_type_name(np.dtype(dtype)) == name


def test_the_same_code_runs_on_onnxruntime(model, cm) -> None:
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = feeds()

    def infer(session) -> list[np.ndarray]:
        inputs = {i.name: feed[i.name] for i in session.get_inputs()}
        return session.run([o.name for o in session.get_outputs()], inputs)

    for a, b in zip(infer(sess), infer(cm)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    for mine, theirs in zip(cm.get_inputs() + cm.get_outputs(), sess.get_inputs() + sess.get_outputs()):
        assert (mine.name, mine.shape, mine.type) == (theirs.name, theirs.shape, theirs.type)


def test_an_int64_input_is_typed_as_onnxruntime_types_it() -> None:
    nodes = [helper.make_node("Cast", ["steps/count"], ["c"], to=TensorProto.FLOAT),
             helper.make_node("Add", ["c", "x:0"], ["y:0"])]
    g = helper.make_graph(
        nodes, "cast",
        [helper.make_tensor_value_info("steps/count", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("x:0", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y:0", TensorProto.FLOAT, [3])],
    )  # fmt: skip
    cm = graphopt.compile(import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])), opt_level=0)
    assert [(i.name, i.type) for i in cm.get_inputs()] == [("steps/count", "tensor(int64)"), ("x:0", "tensor(float)")]
    (y,) = cm.run(["y:0"], {"x:0": np.ones(3, np.float32), "steps/count": np.arange(3, dtype=np.int64)})
    np.testing.assert_array_equal(y, [1, 2, 3])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda f, d: f.run(None, {**{k: v for k, v in d.items() if k != "a/b"}, "a_b_": d["a/b"]}),
         r"main: no input named 'a_b_' \(it has input:0, 1x, a/b, a_b, k=v\); did you mean 'a_b'\?"),
        (lambda f, d: f.run(None, {**{k: v for k, v in d.items() if k != "input:0"}, "input_0": d["input:0"]}),
         r"main: no input named 'input_0' .*; did you mean 'input:0'\?"),
        (lambda f, d: f.run(None, {k: v for k, v in d.items() if k != "1x"}), r"main: missing input\(s\): 1x"),
        (lambda f, d: f.run(["out_1"], d), r"main: no output named 'out_1' \(it has out.0, out/1\); did you mean"),
        (lambda f, d: f.run("out.0", d), r"takes the output names as a list"),
        (lambda f, d: f.run(None, {**d, "a/b": d["a/b"][0]}),
         r"main: argument 2 \('a/b'\): expected shape \(2, 3\) float32, got \(3,\)"),
    ],
)  # fmt: skip
def test_misspelt_names_are_one_argument_error(cm, call, message) -> None:
    with pytest.raises(graphopt.ArgumentError, match=message):
        call(cm["main"], feeds())


# -- the textual IR and the ABI ------------------------------------------------------


def test_a_printed_and_parsed_model_keeps_its_interface(model, cm) -> None:
    text = text_of(import_model(model))
    again = graphopt.compile(text, opt_level=2)
    assert [i.name for i in again.get_inputs()] == INPUTS
    assert [o.name for o in again.get_outputs()] == OUTPUTS
    feed = feeds()
    for a, b in zip(again.run(None, feed), cm.run(None, feed)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_names_that_need_escaping_survive_the_textual_ir() -> None:
    # A quote, a backslash, a newline, non-ASCII text: xDSL prints escaped
    # bytes, and reads back the non-ASCII ones as bytes.
    inputs = ['q"uote', "back\\slash", "new\nline", "é/ü", "k=v"]
    outputs = ["naïve:0", "*/"]
    m = names_model(inputs, outputs)
    module = import_model(m)
    text = text_of(module)
    fn = main_of(parse_text(text))
    assert graph.input_names(fn) == inputs and graph.output_names(fn) == outputs
    cm = graphopt.compile(text, opt_level=0)
    assert cm["main"].input_names == inputs and cm["main"].output_names == outputs
    feed = feeds(inputs)
    np.testing.assert_allclose(cm.run([outputs[0]], feed)[0], expected(m, feed)[0], rtol=1e-6, atol=1e-6)
    # the loop-level IR (the #loop.abi) prints and parses too
    from graphopt.runtime.compile import lowered_module
    from graphopt.runtime.executable import compile_llvm_module

    lowered = text_of(lowered_module(text, opt_level=0))
    assert '#loop.abi<inputs = ["q\\22uote"' in lowered
    again = compile_llvm_module(parse_text(lowered), opt_level=0)
    assert again["main"].input_names == inputs and again["main"].output_names == outputs


def test_mlir_without_graph_name_keeps_its_ssa_names() -> None:
    cm = graphopt.compile(Path(__file__).parents[2] / "examples" / "mlp.mlir", opt_level=0)
    assert [i.name for i in cm.get_inputs()] == ["x"] and [o.name for o in cm.get_outputs()] == ["p"]


def test_colliding_ssa_names_are_ambiguous_not_shadowed() -> None:
    text = """
    func.func @f(%a_b: tensor<2xf32>, %a_b_1: tensor<2xf32>) -> tensor<2xf32> {
      %d = graph.sub %a_b, %a_b_1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return %d : tensor<2xf32>
    }
    """
    f = graphopt.compile(text)["f"]
    x, y = np.ones(2, np.float32), np.full(2, 3.0, np.float32)
    np.testing.assert_array_equal(f(x, y), [-2, -2])
    with pytest.raises(graphopt.ArgumentError, match="inputs 0 and 1 are both called 'a_b'; pass them by position"):
        f(a_b=x)
    # with graph.name they are two names
    named = text.replace("%a_b: tensor<2xf32>", '%a_b: tensor<2xf32> {graph.name = "a/b"}').replace(
        "%a_b_1: tensor<2xf32>", '%a_b_1: tensor<2xf32> {graph.name = "a_b"}'
    )
    f = graphopt.compile(named)["f"]
    np.testing.assert_array_equal(f(**{"a/b": x, "a_b": y}), [-2, -2])


@pytest.mark.parametrize(
    "attrs, message",
    [
        ('{graph.name = "x"}, %b: tensor<2xf32> {graph.name = "x"}', r"arguments #0 and #1 have the same graph.name 'x'"),
        ('{graph.name = ""}, %b: tensor<2xf32>', r"argument #0: graph.name must be a non-empty string"),
        ("{graph.name = 3 : i32}, %b: tensor<2xf32>", r"argument #0: graph.name must be a non-empty string"),
    ],
)  # fmt: skip
def test_the_verifier_checks_graph_names(attrs, message) -> None:
    text = f"""
    func.func @f(%a: tensor<2xf32> {attrs}) -> tensor<2xf32> {{
      %s = graph.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return %s : tensor<2xf32>
    }}
    """
    with pytest.raises(graphopt.VerifyError, match=message):
        parse_text(text)


def test_duplicate_result_names_are_rejected() -> None:
    text = """
    func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32> {graph.name = "y"}, tensor<2xf32> {graph.name = "y"}) {
      func.return %a, %a : tensor<2xf32>, tensor<2xf32>
    }
    """
    with pytest.raises(graphopt.VerifyError, match=r"results #0 and #1 have the same graph.name 'y'"):
        parse_text(text)


# -- passes that make functions ------------------------------------------------------------


def test_autodiff_keeps_and_derives_names(model) -> None:
    cm = graphopt.compile(import_model(model), "autodiff{func=main}", opt_level=0)
    grad = cm["main_grad"]
    assert grad.input_names == INPUTS + ["out.0_grad", "out/1_grad"]
    assert grad.output_names == OUTPUTS + [f"{n}_grad" for n in INPUTS]
    # several functions: the module's run, get_inputs and get_outputs are main's
    assert [i.name for i in cm.get_inputs()] == INPUTS
    feed = feeds()
    heads = {"out.0_grad": np.ones((2, 3), np.float32), "out/1_grad": np.zeros((2, 3), np.float32)}
    outs = grad.run(["a_b_grad", "1x_grad"], {**feed, **heads})
    np.testing.assert_allclose(outs[0], -np.ones((2, 3)), rtol=1e-6)  # d out.0 / d a_b = -1
    np.testing.assert_allclose(outs[1], feed["a/b"], rtol=1e-6)  # d out.0 / d 1x = a/b
    np.testing.assert_array_equal(cm.run(["out/1"], feed)[0], np.maximum(feed["a/b"], 0))


def test_derived_names_stay_distinct() -> None:
    # The head of output "y" would be "y_grad", an input's name; the gradient
    # of input "x" would be "x_grad", an output's name.
    from graphopt.transforms.autodiff.reverse import differentiate

    m = names_model(["x", "y_grad", "a/b", "a_b", "k=v"], ["y", "x_grad"])
    g = differentiate(main_of(import_model(m)), [0, 1], seed="head")
    assert graph.arg_source_names(g) == ["x", "y_grad", "a/b", "a_b", "k=v", "y_grad_1", "x_grad_grad"]
    assert graph.result_source_names(g) == ["y", "x_grad", "x_grad_1", "y_grad_grad"]


def test_training_step_names_its_new_parameters() -> None:
    nodes = [helper.make_node("Mul", ["w/0", "x:0"], ["p"]), helper.make_node("ReduceSum", ["p"], ["loss:0"], keepdims=0)]
    g = helper.make_graph(
        nodes, "loss",
        [helper.make_tensor_value_info("w/0", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("x:0", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("loss:0", TensorProto.FLOAT, [])],
    )  # fmt: skip
    module = import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]))
    cm = graphopt.compile(module, 'autodiff{func=main wrt="w/0" train=true lr=0.5}', opt_level=0)
    step = cm["main_train"]
    assert step.input_names == ["w/0", "x:0"] and step.output_names == ["loss:0", "w/0_new"]
    w, x = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    loss, new_w = step.run(None, {"w/0": w, "x:0": x})
    np.testing.assert_allclose(loss, 3.0)
    np.testing.assert_allclose(new_w, w - 0.5 * x)


def test_plan_devices_keeps_names(model) -> None:
    cm = graphopt.compile(import_model(model), "plan-devices", opt_level=0)
    assert cm["main"].input_names == INPUTS and cm["main"].output_names == OUTPUTS


# -- graph-run and the C header ---------------------------------------------------------


def test_graph_run_input_names_may_hold_an_equals_sign(model, tmp_path, capsys) -> None:
    onnx.save(model, str(tmp_path / "m.onnx"))
    feed = feeds()
    args = [str(tmp_path / "m.onnx"), "--output", str(tmp_path / "out.npz")]
    for i, (name, a) in enumerate(feed.items()):
        np.save(tmp_path / f"in{i}.npy", a)
        args += ["--input", f"{name}={tmp_path / f'in{i}.npy'}"]
    assert graph_run(args) == 0
    want = expected(model, feed)
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_allclose(out["out0"], want[0], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(out["out1"], want[1], rtol=1e-6, atol=1e-6)
    # and an .npz keyed by the ONNX names
    np.savez(tmp_path / "in.npz", **feed)
    assert graph_run([str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "in.npz"), "--check"]) == 0
    assert graph_run([str(tmp_path / "m.onnx"), "--input", f"k=w={tmp_path / 'in0.npy'}"]) == 1
    assert "@main has no input named 'k' (it has input:0, 1x, a/b, a_b, k=v)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name, taken, ident",
    [("gpu_0/data_0", set(), "gpu_0_data_0"), ("1x", set(), "_1x"), ("input:0", set(), "input_0"),
     ("a/b", {"a_b"}, "a_b_1"), ("float", set(), "float_"), ("workspace", set(), "workspace_"),
     ("é", set(), "_")],
)  # fmt: skip
def test_c_parameter_names(name, taken, ident) -> None:
    assert c_parameter_name(name, taken) == ident


def test_c_comment_text_cannot_end_the_comment() -> None:
    assert c_comment_text("gpu_0/data_0") == '"gpu_0/data_0"'
    assert c_comment_text('a*/b"\\') == '"a*\\/b\\"\\\\"'
    assert c_comment_text("/*é") == '"/\\*\\303\\251"'


@pytest.mark.skipif(c_compiler() is None, reason="no C compiler (cc, gcc, clang) on this machine")
def test_c_header_names_are_c_identifiers_and_the_library_runs(model, tmp_path) -> None:
    # The function is called "names" here: a C program has its own main.
    module = import_model(model, name="names")
    (tmp_path / "names.mlir").write_text(text_of(module))
    lib = tmp_path / "libnames.so"
    assert graph_compile([str(tmp_path / "names.mlir"), "-O1", "-o", str(lib)]) == 0
    header = (tmp_path / "libnames.h").read_text()
    assert "void names(const float *input_0, const float *_1x, const float *a_b_1, const float *a_b, " \
        "const float *k_v, float *out_0, float *out_1, void *workspace);" in header
    assert ' *   a_b_1: input "a/b", 2 x 3 f32, dense row-major' in header
    assert " *   a_b: input, 2 x 3 f32, dense row-major" in header
    assert ' *   out_1: output "out/1", 2 x 3 f32, dense row-major' in header
    feed = feeds()
    values = ", ".join("{" + ",".join(f"{v:.9g}f" for v in a.ravel()) + "}" for a in feed.values())
    program = tmp_path / "run.c"
    program.write_text(f"""
#include <stdio.h>
#include <stdlib.h>
#include "libnames.h"
static const float in[5][6] = {{{values}}};
int main(void) {{
    float out0[6], out1[6];
    void *ws = aligned_alloc(64, (NAMES_WORKSPACE_BYTES + 64) / 64 * 64);
    names(in[0], in[1], in[2], in[3], in[4], out0, out1, ws);
    for (int i = 0; i < 6; i++) printf("%.9g %.9g\\n", out0[i], out1[i]);
    free(ws);
    return 0;
}}
""")
    exe = tmp_path / "run"
    subprocess.run([c_compiler(), "-Wall", "-Werror", f"-I{tmp_path}", str(program), f"-L{tmp_path}", "-lnames",
                    f"-Wl,-rpath,{tmp_path}", "-o", str(exe)], check=True, capture_output=True)  # fmt: skip
    got = np.array(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split(), np.float32)
    want = expected(model, feed)
    np.testing.assert_allclose(got.reshape(6, 2)[:, 0], want[0].ravel(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got.reshape(6, 2)[:, 1], want[1].ravel(), rtol=1e-6, atol=1e-6)
