"""Writes the small ONNX models (and broken files) the lit tests import.

    python make_model.py KIND OUT
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv_model(dynamic: bool = False) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv1.weight")
    b = numpy_helper.from_array(np.full(4, 0.5, np.float32), "conv1.bias")
    fc = numpy_helper.from_array(rng.standard_normal((10, 36)).astype(np.float32), "fc.weight")
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [1, 36])
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["c"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c"], ["r"], name="relu1"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool1", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("Constant", [], ["shape"], name="shape_const", value=shape),
        helper.make_node("Reshape", ["p", "shape"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc.weight"], ["logits"], name="fc", transB=1),
    ]
    dims = ["batch", 3, 9, 9] if dynamic else [1, 3, 9, 9]
    g = helper.make_graph(
        nodes, "convnet",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
        [w, b, fc],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def unsupported_model() -> onnx.ModelProto:
    g = helper.make_graph(
        [helper.make_node("Hardmax", ["x"], ["y"], name="head")], "bad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


#: Input names that are not SSA names: a colon, a leading digit, and two
#: names that sanitise to the same one.
ESCAPED_INPUTS = ["input:0", "1x", "a/b", "a_b"]


def names_model() -> onnx.ModelProto:
    """out.0 = (input:0 + 1x) * a/b - a_b, out/1 = relu(a/b): inputs and
    outputs whose ONNX names need escaping, as exporters write them."""
    nodes = [
        helper.make_node("Add", ["input:0", "1x"], ["s"], name="add"),
        helper.make_node("Mul", ["s", "a/b"], ["m"], name="mul"),
        helper.make_node("Sub", ["m", "a_b"], ["out.0"], name="sub"),
        helper.make_node("Relu", ["a/b"], ["out/1"], name="relu"),
    ]
    g = helper.make_graph(
        nodes, "names",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ESCAPED_INPUTS],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ["out.0", "out/1"]],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def write_names_inputs(out_dir: str) -> None:
    """names.npz keyed by the ONNX names, and one .npy (and .pb) per input,
    in_<i>.npy; a/b is all twos and a_b all ones, so out.0 = 2 * (input:0 + 1x) - 1."""
    rng = np.random.default_rng(2)
    arrays = {
        "input:0": rng.standard_normal((2, 3)).astype(np.float32),
        "1x": rng.standard_normal((2, 3)).astype(np.float32),
        "a/b": np.full((2, 3), 2.0, np.float32),
        "a_b": np.ones((2, 3), np.float32),
    }
    np.savez(os.path.join(out_dir, "names.npz"), **arrays)
    for i, (name, a) in enumerate(arrays.items()):
        np.save(os.path.join(out_dir, f"in_{i}.npy"), a)
        onnx.save_tensor(numpy_helper.from_array(a, name), os.path.join(out_dir, f"in_{i}.pb"))


def write_test_data(model: onnx.ModelProto, out_dir: str) -> None:
    """A test_data_set directory whose output is computed by onnx's reference."""
    from onnx.reference import ReferenceEvaluator

    os.makedirs(out_dir, exist_ok=True)
    x = np.random.default_rng(1).standard_normal((1, 3, 9, 9)).astype(np.float32)
    (y,) = ReferenceEvaluator(model).run(None, {"input": x})
    onnx.save_tensor(numpy_helper.from_array(x, "input"), os.path.join(out_dir, "input_0.pb"))
    onnx.save_tensor(numpy_helper.from_array(y, "logits"), os.path.join(out_dir, "output_0.pb"))
    np.savez(out_dir + ".npz", input=x)


def main(kind: str, out: str) -> None:
    if kind == "conv":
        onnx.save(conv_model(), out)
    elif kind == "dynamic":
        onnx.save(conv_model(dynamic=True), out)
    elif kind == "names":
        onnx.save(names_model(), out)
        write_names_inputs(os.path.dirname(out))
    elif kind == "unsupported":
        onnx.save(unsupported_model(), out)
    elif kind == "corrupt":
        open(out, "wb").write(b"\x0a\xff\xff\xff\xff this is not a protobuf")
    elif kind == "truncated":
        data = conv_model().SerializeToString()
        open(out, "wb").write(data[: len(data) // 2])
    elif kind == "external":
        model = conv_model()
        onnx.save(model, out, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(out) + ".data", size_threshold=0)
        os.remove(out + ".data")
    elif kind == "testdata":
        model = conv_model()
        onnx.save(model, out)
        write_test_data(model, os.path.join(os.path.dirname(out), "test_data_set_0"))
    elif kind == "wrong-output":
        model = conv_model()
        onnx.save(model, out)
        d = os.path.join(os.path.dirname(out), "wrong_set")
        write_test_data(model, d)
        y = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "output_0.pb"))) + 1.0
        onnx.save_tensor(numpy_helper.from_array(y, "logits"), os.path.join(d, "output_0.pb"))
    elif kind.startswith("light_"):  # copy a light model the onnx package ships
        import shutil

        light = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
        shutil.copy(os.path.join(light, kind + ".onnx"), out)
    else:
        sys.exit(f"unknown kind {kind}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
