"""graph-opt as an ``onnx.backend.base.Backend``: ``prepare`` imports and
compiles a model, ``run`` calls the compiled function on numpy inputs.

The optimization level comes from the ``GRAPHOPT_CONFORMANCE_O`` environment
variable (default 2) or ``prepare(..., opt_level=N)``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

import graphopt
from graphopt.frontends.onnx import OnnxImportError, import_model


class GraphOptRep(BackendRep):
    """Compiles at ``prepare``.  graph-opt needs shapes, axes and pads at
    compile time: when the model takes one of them as a graph input (as the
    node tests do), compiling waits for the first ``run`` and specializes on
    that input's value (recompiling if a later run passes another value)."""

    def __init__(self, model: onnx.ModelProto, opt_level: int):
        init_names = {t.name for t in model.graph.initializer}
        self.model = model
        self.opt_level = opt_level
        self.input_names = [i.name for i in model.graph.input if i.name not in init_names]
        self.static_names: list[str] = []
        self.compiled: dict[bytes, Any] = {}
        try:
            self._compile({})
        except OnnxImportError as err:
            small_ints = [i for i in model.graph.input if i.name not in init_names
                          and i.type.tensor_type.elem_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32)]
            if err.static_input is None and not small_ints:
                raise  # deferred otherwise: the first run binds the integer inputs

    def _compile(self, static: dict[str, np.ndarray]) -> Any:
        while True:
            folded: list[str] = []
            try:
                module = import_model(self.model, static_inputs=static, folded=folded)
                break
            except OnnxImportError as err:
                name = err.static_input
                if name is not None and name not in static and name in self.feeds:
                    self.static_names.append(name)
                    static[name] = self.feeds[name]
                    continue
                # a value derived from integer inputs (a size, a shape)
                ints = [n for n, a in self.feeds.items()
                        if n not in static and a.dtype.kind in "iu" and a.size <= 16]
                if not ints:
                    raise
                for n in ints:
                    self.static_names.append(n)
                    static[n] = self.feeds[n]
        if static and len(static) == len(self.input_names) and folded:
            # nothing left to compute at run time but what onnx's reference
            # evaluator folded: that would test onnx against itself
            raise OnnxImportError(
                f"every input ({', '.join(static)}) would have to be known at compile time"
            )
        fn = graphopt.compile(module, opt_level=self.opt_level)["main"]
        self.compiled[self._key(static)] = fn
        return fn

    feeds: dict[str, np.ndarray] = {}

    @staticmethod
    def _key(static: dict[str, np.ndarray]) -> bytes:
        return repr(sorted((k, v.dtype.str, v.shape, v.tobytes()) for k, v in static.items())).encode()

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        if isinstance(inputs, dict):
            inputs = [inputs[n] for n in self.input_names]
        elif isinstance(inputs, np.ndarray):
            inputs = [inputs]
        self.feeds = {n: np.asarray(a) for n, a in zip(self.input_names, inputs)}
        static = {n: self.feeds[n] for n in self.static_names}
        fn = self.compiled.get(self._key(static)) or self._compile(static)
        args = [np.require(self.feeds[n], requirements="C") for n in self.input_names if n not in self.static_names]
        out = fn(*args)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)


class GraphOptBackend(Backend):
    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> GraphOptRep:
        super().prepare(model, device, **kwargs)
        level = int(kwargs.get("opt_level", os.environ.get("GRAPHOPT_CONFORMANCE_O", "2")))
        return GraphOptRep(model, level)

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


prepare = GraphOptBackend.prepare
run_model = GraphOptBackend.run_model
supports_device = GraphOptBackend.supports_device
