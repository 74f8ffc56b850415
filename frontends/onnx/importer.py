"""ONNX ``ModelProto`` -> one ``func.func`` of graph ops, through the builder.

The onnx package parses the file, checks the opset and infers shapes; this
module walks the nodes in order and asks each op's converter (the
``ops_*`` modules) for graph values.  Values known at import -- initializers,
``Constant``, shape arithmetic -- stay numpy arrays (:func:`NodeContext.static`)
until an op needs them as a graph value, where they become one dense or
splat ``graph.constant`` named after the initializer.  Every op built for a
node gets the location ``loc("<node name>")`` and its results the node's
output names as SSA name hints, so a later diagnostic names the ONNX node.
SSA name hints are sanitised (:func:`name_hint`), but the function's inputs
and outputs keep their ONNX names exactly as written, as ``graph.name``
argument and result attributes (``graphopt.dialects.graph.names``): the
compiled model is fed and read by those names, as onnxruntime's session is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, NameLoc, NoneAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects import graph
from graphopt.dialects.graph import element_type_of, f32, f64, i1, i32, i64, numpy_dtype, shape_str
from graphopt.frontends.builder import GraphBuilder
from graphopt.frontends.onnx.registry import CONVERTERS, is_foldable
from graphopt.diagnostics import UserError

#: The oldest default-domain opset the importer accepts.
MIN_OPSET = 7

#: Static values up to this many elements are folded through shape arithmetic.
FOLD_MAX_ELEMENTS = 1 << 16

ONNX_ELEMENT_TYPES: dict[int, Attribute] = {
    TensorProto.FLOAT: f32,
    TensorProto.DOUBLE: f64,
    TensorProto.INT64: i64,
    TensorProto.INT32: i32,
    TensorProto.BOOL: i1,
}


class OnnxImportError(UserError):
    """A model the importer cannot translate: one line naming the place."""

    def __init__(self, message: str, static_input: str | None = None):
        super().__init__(message)
        #: The graph input that must be known at import, when that is the problem.
        self.static_input = static_input


class ConvertError(Exception):
    """Raised by a converter; the importer prefixes the node, op and opset."""


class StaticInputRequired(ConvertError):
    """A graph input is used where graph-opt needs a value known at import
    (a shape, axes, pads...): bind it with ``static_inputs=``."""

    def __init__(self, message: str, input_name: str):
        super().__init__(message)
        self.input_name = input_name


def name_hint(name: str) -> str | None:
    """An ONNX value name as an SSA name hint: characters outside
    ``[A-Za-z0-9_$.-]`` become ``_``; a leading digit gets a ``_`` prefix."""
    hint = re.sub(r"[^A-Za-z0-9_$.\-]", "_", name)
    if not hint:
        return None
    return "_" + hint if hint[0].isdigit() else hint


def onnx_type_name(elem: int) -> str:
    return TensorProto.DataType.Name(elem).lower()


# --------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------


def load_model(path: str | os.PathLike[str], data: bytes | None = None) -> onnx.ModelProto:
    """Parse an ONNX file (or its bytes ``data``) and its external data,
    found next to ``path``; one clear error otherwise."""
    path = Path(path)
    if data is None:
        data = path.read_bytes()  # FileNotFoundError is reported by the tools
    try:
        model = onnx.load_model_from_string(data)
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise OnnxImportError(
            f"{path}: not a valid ONNX model (corrupt or truncated file: {err})"
        ) from None
    if not model.HasField("graph"):
        raise OnnxImportError(f"{path}: not a valid ONNX model (no graph; corrupt or truncated file)")
    base = path.parent
    for tensor in _all_tensors(model.graph):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        info = {e.key: e.value for e in tensor.external_data}
        location = info.get("location", "")
        where = base / location
        if not location or not where.is_file():
            raise OnnxImportError(
                f"{path}: initializer '{tensor.name}' stores its data in external file "
                f"'{location}', which cannot be found (looked in {base or '.'})"
            )
        size = int(info.get("length", 0) or 0) + int(info.get("offset", 0) or 0)
        if size and where.stat().st_size < size:
            raise OnnxImportError(
                f"{path}: external data file '{location}' of initializer '{tensor.name}' is "
                f"truncated ({where.stat().st_size} bytes, needs {size})"
            )
    try:
        onnx.external_data_helper.load_external_data_for_model(model, str(base))
    except Exception as err:  # noqa: BLE001
        raise OnnxImportError(f"{path}: cannot load external data: {err}") from None
    return model


def _all_tensors(g: onnx.GraphProto):
    yield from g.initializer
    for node in g.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                yield a.t


def default_opset(model: onnx.ModelProto) -> int:
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return 1 if model.ir_version < 3 else 0


def parse_input_shapes(specs: Sequence[str]) -> dict[str, list[int]]:
    """``["data=1x3x224x224", ...]`` -> ``{"data": [1, 3, 224, 224]}``."""
    shapes: dict[str, list[int]] = {}
    for spec in specs:
        name, sep, dims = spec.rpartition("=")
        try:
            if not sep or not name:
                raise ValueError
            shape = [int(d) for d in dims.split("x")] if dims else []
            if any(d < 0 for d in shape):
                raise ValueError
        except ValueError:
            raise OnnxImportError(
                f"invalid --input-shape '{spec}': expected NAME=D0xD1x... (e.g. data=1x3x224x224)"
            ) from None
        shapes[name] = shape
    return shapes


# --------------------------------------------------------------------------
# the per-node context handed to converters
# --------------------------------------------------------------------------


class NodeContext:
    """One node being converted: its attributes, inputs and the builder."""

    def __init__(self, importer: Importer, node: onnx.NodeProto, opset: int):
        self.importer = importer
        self.node = node
        self.opset = opset
        self.b = importer.builder
        self.attrs: dict[str, Any] = {}
        for a in node.attribute:
            v = helper.get_attribute_value(a)
            if isinstance(v, bytes):
                v = v.decode("utf-8", errors="replace")
            elif isinstance(v, list) and v and isinstance(v[0], bytes):
                v = [s.decode("utf-8", errors="replace") for s in v]
            self.attrs[a.name] = v

    # -- attributes -------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)

    def ints(self, name: str, default: Sequence[int] | None = None) -> list[int] | None:
        v = self.attrs.get(name)
        return [int(x) for x in v] if v is not None else (list(default) if default is not None else None)

    # -- inputs -----------------------------------------------------------

    @property
    def num_inputs(self) -> int:
        return len(self.node.input)

    def has_input(self, i: int) -> bool:
        return i < len(self.node.input) and self.node.input[i] != ""

    def input_name(self, i: int) -> str:
        return self.node.input[i]

    def raw(self, i: int) -> SSAValue | np.ndarray:
        return self.importer.lookup(self.node.input[i])

    def static(self, i: int) -> np.ndarray | None:
        """The input's value when it is known at import, else None."""
        if not self.has_input(i):
            return None
        v = self.raw(i)
        return v if isinstance(v, np.ndarray) else None

    def require_static(self, i: int, what: str) -> np.ndarray:
        v = self.static(i)
        if v is None and self.input_name(i) in self.importer.graph_inputs:
            raise StaticInputRequired(
                f"input '{self.input_name(i)}' ({what}) is a graph input, but graph-opt needs its value "
                "at import; make it an initializer (or bind it with static_inputs=)",
                self.input_name(i),
            )
        if v is None:
            raise ConvertError(
                f"input '{self.input_name(i)}' ({what}) must be a constant known at import "
                "(an initializer or computed from constants)"
            )
        return v

    def static_ints(self, i: int, what: str) -> list[int]:
        return [int(x) for x in self.require_static(i, what).reshape(-1)]

    def value(self, i: int) -> SSAValue:
        """The input as a graph value (a constant is materialized once)."""
        return self.importer.materialize(self.node.input[i])

    def values(self) -> list[SSAValue]:
        return [self.value(i) for i in range(self.num_inputs) if self.has_input(i)]

    def shape(self, i: int) -> tuple[int, ...]:
        v = self.raw(i)
        if isinstance(v, np.ndarray):
            return tuple(v.shape)
        assert isinstance(v.type, TensorType)
        return tuple(v.type.get_shape())

    def elem(self, i: int) -> Attribute:
        v = self.raw(i)
        if isinstance(v, np.ndarray):
            return element_type_of(v.dtype)
        assert isinstance(v.type, TensorType)
        return v.type.element_type

    def rank(self, i: int) -> int:
        return len(self.shape(i))

    # -- building ---------------------------------------------------------

    def emit(self, op: Operation) -> Any:
        return self.b.apply(op)  # type: ignore[arg-type]

    def const(
        self, array: np.ndarray | float | int, like: Attribute | None = None, name: str | None = None
    ) -> SSAValue:
        """A constant of the given element type (default: as the array's)."""
        a = np.asarray(array)
        if like is not None and a.dtype != numpy_dtype(like):
            a = a.astype(numpy_dtype(like))
        return self.importer.constant_value(a, name)

    def fail(self, message: str) -> ConvertError:
        return ConvertError(message)


# --------------------------------------------------------------------------
# the importer
# --------------------------------------------------------------------------


class Importer:
    def __init__(self, model: onnx.ModelProto, source: str, name: str = "main"):
        self.model = model
        self.source = source
        self.opset = default_opset(model)
        self.builder = GraphBuilder(name)
        self.values: dict[str, SSAValue | np.ndarray] = {}
        self.materialized: dict[str, SSAValue] = {}
        self.inferred: dict[str, tuple[int, tuple[int, ...] | None]] = {}
        self.current_loc: Attribute | None = None
        self.graph_inputs: set[str] = set()
        self.folded: list[str] = []
        self.static_inputs: dict[str, np.ndarray] = {}

    # -- values -------------------------------------------------------------

    def lookup(self, name: str) -> SSAValue | np.ndarray:
        try:
            return self.values[name]
        except KeyError:
            raise ConvertError(f"input '{name}' is not defined by any earlier node, input or initializer") from None

    def constant_value(self, array: np.ndarray, name: str | None) -> SSAValue:
        if array.dtype not in (np.float32, np.float64, np.int64, np.int32, np.bool_):
            raise ConvertError(
                f"constant '{name or '?'}' has element type {array.dtype}, which graph-opt does not support "
                "(f32, f64, i64, i32, bool)"
            )
        ty = graph.tensor(array.shape, element_type_of(array.dtype))
        if array.size and all(s == 0 for s in array.strides):  # a broadcast scalar
            op = graph.ConstantOp.splat_of(ty, array.reshape(-1)[0].item())
        else:
            op = graph.ConstantOp.from_array(np.ascontiguousarray(array))
        self.builder.apply(op)
        if self.current_loc is not None:
            op.location = self.current_loc
        if name:
            op.result.name_hint = name_hint(name)
        return op.result

    def materialize(self, name: str) -> SSAValue:
        v = self.lookup(name)
        if not isinstance(v, np.ndarray):
            return v
        if name not in self.materialized:
            self.materialized[name] = self.constant_value(v, name)
        return self.materialized[name]

    # -- the model ----------------------------------------------------------

    def error(self, message: str) -> OnnxImportError:
        return OnnxImportError(f"{self.source}: {message}")

    def run(self, input_shapes: Mapping[str, Sequence[int]]) -> ModuleOp:
        if self.opset < MIN_OPSET:
            self._check_old_opset()
        g = self.model.graph
        init_names = {t.name for t in g.initializer}
        real_inputs = [i for i in g.input if i.name not in init_names]
        known = {i.name for i in real_inputs}
        for name in input_shapes:
            if name not in known:
                raise self.error(
                    f"--input-shape names '{name}', which is not an input of the model "
                    f"(inputs: {', '.join(sorted(known)) or 'none'})"
                )
        for name in self.static_inputs:
            if name not in known:
                raise self.error(f"static_inputs names '{name}', which is not an input of the model")
        real_inputs = [i for i in real_inputs if i.name not in self.static_inputs]
        for name, array in self.static_inputs.items():
            self.values[name] = np.asarray(array)
        self.graph_inputs = {i.name for i in real_inputs}
        for inp in real_inputs:
            self._add_input(inp, input_shapes.get(inp.name))
        self._infer_shapes()
        for t in g.initializer:
            self.values[t.name] = self._tensor_array(t, f"initializer '{t.name}'")
        for node in g.node:
            self._convert(node)
        outputs = []
        for out in g.output:
            if out.name not in self.values:
                raise self.error(f"graph output '{out.name}' is not produced by any node")
            self.current_loc = None
            outputs.append(self.materialize(out.name))
        if not outputs:
            raise self.error("the model has no outputs")
        try:
            module = self.builder.build(*outputs)
        except VerifyException as err:
            raise self.error(f"the imported graph does not verify: {err}") from None
        for fn in module.ops:
            if isinstance(fn, func.FuncOp):
                for arg, inp in zip(fn.body.block.args, real_inputs):
                    arg.name_hint = name_hint(inp.name)
                # The interface keeps the ONNX names exactly as written.
                graph.set_arg_source_names(fn, [inp.name for inp in real_inputs])
                graph.set_result_source_names(fn, [out.name for out in g.output])
        return module

    def _check_old_opset(self) -> None:
        """A model below opset 7 imports only when every op it uses is
        defined there exactly as in opset 7 (same schema version)."""
        for node in self.model.graph.node:
            if node.domain not in ("", "ai.onnx"):
                continue
            try:
                old = onnx.defs.get_schema(node.op_type, self.opset).since_version
                new = onnx.defs.get_schema(node.op_type, MIN_OPSET).since_version
            except onnx.defs.SchemaError:  # an op opset 7 does not define
                old, new = -1, -2
            if old != new:
                raise self.error(
                    f"opset {self.opset} of the default domain is not supported for "
                    f"{self._describe(node, self.opset)} (graph-opt imports opset {MIN_OPSET} and later)"
                )

    def _tensor_array(self, t: onnx.TensorProto, what: str) -> np.ndarray:
        if t.data_type not in ONNX_ELEMENT_TYPES and t.data_type not in (
            TensorProto.INT8, TensorProto.UINT8, TensorProto.INT16, TensorProto.UINT16,
            TensorProto.UINT32, TensorProto.UINT64, TensorProto.FLOAT16,
        ):
            raise self.error(f"{what} has element type {onnx_type_name(t.data_type)}, which graph-opt does not support")
        try:
            a = numpy_helper.to_array(t)
        except Exception as err:  # noqa: BLE001 - malformed raw data
            raise self.error(f"{what} is malformed: {err}") from None
        return a

    def _add_input(self, inp: onnx.ValueInfoProto, override: Sequence[int] | None) -> None:
        tt = inp.type.tensor_type
        if not inp.type.HasField("tensor_type"):
            raise self.error(f"input '{inp.name}' is not a tensor (sequences, maps and optionals are not supported)")
        if tt.elem_type not in ONNX_ELEMENT_TYPES:
            raise self.error(
                f"input '{inp.name}' has element type {onnx_type_name(tt.elem_type)}, which graph-opt "
                "does not support (float, double, int64, int32, bool)"
            )
        dims = list(tt.shape.dim) if tt.HasField("shape") else None
        if override is not None:
            if dims is not None and len(dims) != len(override):
                raise self.error(
                    f"--input-shape {inp.name}={'x'.join(map(str, override))} has rank {len(override)}, "
                    f"the input has rank {len(dims)}"
                )
            for d, (dim, want) in enumerate(zip(dims or [], override)):
                if dim.HasField("dim_value") and dim.dim_value != want:
                    raise self.error(
                        f"--input-shape {inp.name}: axis {d} is fixed to {dim.dim_value} by the model, not {want}"
                    )
            shape = list(override)
        else:
            if dims is None:
                raise self.error(
                    f"input '{inp.name}' has no shape; give one with --input-shape {inp.name}=D0xD1x..."
                )
            shape = []
            for d, dim in enumerate(dims):
                if not dim.HasField("dim_value"):
                    what = f"'{dim.dim_param}'" if dim.dim_param else "unknown"
                    raise self.error(
                        f"input '{inp.name}' has a dynamic dimension {what} on axis {d}; set it with "
                        f"--input-shape {inp.name}=D0xD1x... (input_shapes= in Python)"
                    )
                shape.append(dim.dim_value)
        # Record the static shape in the model, so shape inference uses it.
        del tt.shape.dim[:]
        for v in shape:
            tt.shape.dim.add().dim_value = v
        arg = self.builder.input(shape, ONNX_ELEMENT_TYPES[tt.elem_type], name=name_hint(inp.name))
        self.values[inp.name] = arg

    def _infer_shapes(self) -> None:
        """Shapes from ONNX inference, to cross-check every converted value."""
        try:
            inferred = onnx.shape_inference.infer_shapes(self.model, data_prop=True)
        except Exception:  # noqa: BLE001 - a model onnx cannot infer is still importable
            return
        for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
            if not vi.type.HasField("tensor_type"):
                continue
            tt = vi.type.tensor_type
            shape = None
            if tt.HasField("shape") and all(d.HasField("dim_value") for d in tt.shape.dim):
                shape = tuple(d.dim_value for d in tt.shape.dim)
            self.inferred[vi.name] = (tt.elem_type, shape)

    def _node_opset(self, node: onnx.NodeProto) -> int:
        if node.domain in ("", "ai.onnx"):
            return self.opset
        for imp in self.model.opset_import:
            if imp.domain == node.domain:
                return imp.version
        return 0

    def _describe(self, node: onnx.NodeProto, opset: int) -> str:
        op = f"{node.domain}.{node.op_type}" if node.domain not in ("", "ai.onnx") else node.op_type
        name = node.name or (node.output[0] if node.output else "?")
        return f"node '{name}' ({op}, opset {opset})"

    def _convert(self, node: onnx.NodeProto) -> None:
        opset = self._node_opset(node)
        domain = "" if node.domain == "ai.onnx" else node.domain
        conv = CONVERTERS.get((domain, node.op_type))
        where = self._describe(node, opset)
        if conv is None:
            raise self.error(f"{where}: unsupported op '{node.op_type}'" + (
                f" of domain '{node.domain}'" if domain else ""))
        self.current_loc = NameLoc(StringAttr(node.name or node.output[0]), NoneAttr())
        ctx = NodeContext(self, node, opset)
        first = len(list(self.builder.block.ops))
        try:
            if is_foldable(node.op_type) and self._foldable(ctx):
                outs = self._fold(node)
            else:
                outs = conv(ctx)
        except StaticInputRequired as err:
            raise OnnxImportError(f"{self.source}: {where}: {err}", static_input=err.input_name) from None
        except ConvertError as err:
            raise self.error(f"{where}: {err}") from None
        except (VerifyException, ValueError, IndexError, TypeError, KeyError) as err:
            raise self.error(f"{where}: {err}") from None
        for op in list(self.builder.block.ops)[first:]:
            op.location = self.current_loc
        if len(outs) < len([o for o in node.output if o]):
            raise self.error(f"{where}: produces {len(outs)} outputs, the model uses {len(node.output)}")
        for name, v in zip(node.output, outs):
            if not name or v is None:
                continue
            if isinstance(v, SSAValue):
                self._check_inferred(where, name, v)
                v.name_hint = name_hint(name)
            self.values[name] = v

    def _check_inferred(self, where: str, name: str, v: SSAValue) -> None:
        info = self.inferred.get(name)
        if info is None or info[1] is None:
            return
        assert isinstance(v.type, TensorType)
        got = tuple(v.type.get_shape())
        if got != info[1]:
            raise self.error(
                f"{where}: output '{name}' has shape {shape_str(got)} here but "
                f"{shape_str(info[1])} by ONNX shape inference"
            )

    def _foldable(self, ctx: NodeContext) -> bool:
        present = [i for i in range(ctx.num_inputs) if ctx.has_input(i)]
        if not present:
            return False
        arrays = [ctx.static(i) for i in present]
        return all(a is not None for a in arrays) and sum(a.size for a in arrays) <= FOLD_MAX_ELEMENTS  # type: ignore[union-attr]

    def _fold(self, node: onnx.NodeProto) -> list[Any]:
        """Evaluate a node on static inputs with onnx's reference evaluator."""
        from onnx.reference import ReferenceEvaluator

        ins = [self.values[n] if n else None for n in node.input]
        feeds = {n: a for n, a in zip(node.input, ins) if n}
        g = helper.make_graph(
            [node], "fold",
            [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)  # type: ignore[union-attr]
             for n, a in feeds.items()],
            [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in node.output if o],
        )
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        outs = ReferenceEvaluator(m).run(None, feeds)
        self.folded.append(node.name or node.output[0])
        it = iter(outs)
        return [np.asarray(next(it)) if o else None for o in node.output]


def import_model_bytes(data: bytes, path: str, input_shapes: Mapping[str, Sequence[int]] | None = None) -> ModuleOp:
    """``import_model`` of a file already read (external data is found next to ``path``)."""
    return import_model(load_model(path, data), input_shapes, source=path)


def import_model(
    model: onnx.ModelProto | str | os.PathLike[str],
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    name: str = "main",
    static_inputs: Mapping[str, np.ndarray] | None = None,
    folded: list[str] | None = None,
    source: str | None = None,
) -> ModuleOp:
    """An ONNX model (a ``ModelProto`` or a file path) as a verified module
    with one function ``@name``; ``input_shapes`` fixes dynamic input dims;
    ``static_inputs`` gives graph inputs fixed values (they become constants
    and are no longer arguments); ``folded``, when given, receives the names
    of the nodes evaluated at import by onnx's reference evaluator."""
    if isinstance(model, onnx.ModelProto):
        source = source or model.graph.name or "<model>"
        proto = onnx.ModelProto()
        proto.CopyFrom(model)
    else:
        source = str(model)
        proto = load_model(model)
    importer = Importer(proto, source, name)
    importer.static_inputs = {k: np.asarray(v) for k, v in (static_inputs or {}).items()}
    module = importer.run(dict(input_shapes or {}))
    if folded is not None:
        folded.extend(importer.folded)
    return module


__all__ = ["import_model", "load_model", "parse_input_shapes", "OnnxImportError", "ConvertError"]
