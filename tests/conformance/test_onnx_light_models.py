"""The onnx package's light models through graph-opt at -O0 and -O2.

1. As onnx's runner runs them: its dummy input, the uniform 0.02 weights,
   compared with ``light_<name>_output_0.pb`` at the ``data/real`` tolerance.
2. With seeded random weights (uniform weights cannot catch layout bugs),
   compared with onnx's reference evaluator on the logits.

The graph-level levels are what is tested; to keep CI time down most models
are compiled with LLVM's optimizer off (``llvm_opt_level=0``), which does
not change what graph-opt generates.  Models whose reference evaluation is
slow run their random-weight check only with ``GRAPHOPT_SLOW_TESTS=1``.
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
import onnx
import pytest

sys.path.insert(0, os.path.dirname(__file__))

import graphopt  # noqa: E402
from graphopt.frontends.onnx import import_model  # noqa: E402
from light_models import (  # noqa: E402
    NAMES,
    graph_inputs,
    model_path,
    reference_evaluator,
    reference_output,
    runner_input,
    tolerance,
    with_logits_output,
    with_random_weights,
)

#: Models whose generated code runs slowly without LLVM's optimizer.
LLVM_OPTIMIZED = {"vgg19", "zfnet512", "bvlc_alexnet"}
#: Random-weight checks left to GRAPHOPT_SLOW_TESTS=1 (CI time): the three
#: kept in CI cover LRN, Gemm with transB, grouped convolution and Concat.
SLOW_REFERENCE = {"densenet121", "inception_v1", "inception_v2", "vgg19", "resnet50", "zfnet512"}
slow = pytest.mark.skipif(not os.environ.get("GRAPHOPT_SLOW_TESTS"), reason="set GRAPHOPT_SLOW_TESTS=1")


@functools.cache
def imported(name: str):
    return import_model(model_path(name))


def compiled(module, name: str, level: int) -> graphopt.CompiledModule:
    llvm = 3 if name in LLVM_OPTIMIZED else 0
    return graphopt.compile(module, opt_level=level, llvm_opt_level=llvm)


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("name", NAMES)
def test_light_model_matches_reference_output(name: str, level: int):
    """Fed and read as onnxruntime's session is: by the ONNX names
    (``gpu_0/data_0`` for resnet50, shufflenet and zfnet512)."""
    model = onnx.load(model_path(name))
    (vi,) = graph_inputs(model)
    (out,) = model.graph.output
    cm = compiled(imported(name), name, level)
    shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    assert [(i.name, i.shape, i.type) for i in cm.get_inputs()] == [(vi.name, shape, "tensor(float)")]
    assert [o.name for o in cm.get_outputs()] == [out.name]
    (got,) = cm.run([out.name], {vi.name: runner_input(vi)})
    assert cm.get_outputs()[0].shape == list(got.shape)
    rtol, atol = tolerance(name)
    np.testing.assert_allclose(got, reference_output(name), rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=slow) if n in SLOW_REFERENCE else n for n in NAMES]
)
def test_light_model_random_weights(name: str):
    model, logits = with_logits_output(with_random_weights(onnx.load(model_path(name)), seed=7))
    (vi,) = graph_inputs(model)
    x = np.random.default_rng(1).standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim])
    x = x.astype(np.float32)
    want = reference_evaluator(model).run(None, {vi.name: x})[0]
    (got,) = compiled(import_model(model), name, 2).run([logits], {vi.name: x})
    assert np.std(want) > 1e-3 * np.abs(want).max()  # not uniform
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * float(np.abs(want).max()))
