"""The ``graph`` dialect: tensor-level ops with value semantics.

This package is the dialect's one import surface: every op, op family and
helper is importable from ``graphopt.dialects.graph``.  Its modules follow op
families:

* ``base``: the op interface (:class:`GraphOp`), the element types and the
  families that implement the interface once (unary elementwise, binary
  broadcasting, reductions, axis normalizations);
* ``constant``, ``fill`` (values made, not moved), ``elementwise``,
  ``linalg`` (matmul), ``layout`` (re-indexing), ``indexing`` (select and move
  elements), ``reduce``, ``normalization``, ``window`` (conv and pools) and
  ``window_grad`` (their backward ops);
* ``properties``: reading and building op properties one way;
* ``dominance`` and ``module_verify``: module-level checks per-op verifiers
  cannot make.

    %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %y = graph.relu %x : tensor<8x16xf32>
    %s = graph.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %m = graph.matmul %a, %w : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
"""

from __future__ import annotations

from xdsl.dialects.builtin import i64
from xdsl.ir import Dialect

from graphopt.dialects.graph.base import (
    f32,
    f64,
    i32,
    i1,
    FLOAT_TYPES,
    INT_TYPES,
    BOOL_TYPES,
    NUMERIC_TYPES,
    ALL_TYPES,
    numpy_dtype,
    element_type_of,
    shape_str,
    type_str,
    tensor,
    normalize_axis,
    normalize_axes,
    broadcast_shapes,
    GraphCanonicalization,
    GraphOp,
    check_static_tensor,
    I64_MAX,
    check_dims_fit_i64,
    tensor_of,
    UnaryElementwiseOp,
    BinaryBroadcastOp,
    ReduceOp,
    AxisNormalizationOp,
    tensor_of_type,
)
from graphopt.dialects.graph.properties import (
    dense_i64_array,
    int_values,
    f64_attr,
)
from graphopt.dialects.graph.dominance import ModuleVerifyError, verify_dominance
from graphopt.dialects.graph.module_verify import verify_graph_module
from graphopt.dialects.graph.constant import (
    ConstantOp,
)
from graphopt.dialects.graph.elementwise import (
    NegOp,
    ExpOp,
    LogOp,
    SqrtOp,
    TanhOp,
    SigmoidOp,
    ReluOp,
    erf,
    GELU_TANH_C,
    GELU_TANH_K,
    AbsOp,
    RsqrtOp,
    ErfOp,
    SinOp,
    CosOp,
    GeluOp,
    LeakyReluOp,
    ClipOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    PowOp,
    MinimumOp,
    CompareOp,
    GreaterOp,
    LessOp,
    EqualOp,
    WhereOp,
    cast_array,
    CastOp,
    AddNOp,
)
from graphopt.dialects.graph.linalg import (
    MatmulOp,
)
from graphopt.dialects.graph.layout import (
    shape_of,
    LayoutOp,
    TransposeOp,
    ReshapeOp,
    BroadcastToOp,
    ExpandDimsOp,
    SqueezeOp,
    FlattenOp,
)
from graphopt.dialects.graph.indexing import (
    ConcatOp,
    SplitOp,
    onnx_slice_range,
    SliceOp,
    PadOp,
    GatherOp,
    SliceGradOp,
    GatherGradOp,
)
from graphopt.dialects.graph.reduce import (
    ReduceSumOp,
    ReduceMeanOp,
    ReduceMaxOp,
    ReduceMinOp,
    ReduceProdOp,
    ArgmaxOp,
)
from graphopt.dialects.graph.normalization import (
    SoftmaxOp,
    LogSoftmaxOp,
    DEFAULT_EPS,
    NormOp,
    check_channel_params,
    channel_view,
    BatchNormOp,
    BatchNormTrainOp,
    LayerNormOp,
    lrn_window,
    LrnFamilyOp,
    LrnOp,
    LrnGradOp,
)
from graphopt.dialects.graph.window import (
    check_window_props,
    window_output_size,
    pad_nchw,
    WindowOp,
    Conv2dOp,
    Pool2dOp,
    MaxPool2dOp,
    AvgPool2dOp,
    GlobalAvgPoolOp,
)
from graphopt.dialects.graph.window_grad import (
    window_props,
    WindowGradOp,
    Conv2dGradInputOp,
    Conv2dGradFilterOp,
    MaxPool2dGradOp,
    AvgPool2dGradOp,
)
from graphopt.dialects.graph.fill import (
    check_scalar_value,
    scalar_of,
    FillOp,
    ZerosLikeOp,
    OnesLikeOp,
    HASH_GOLDEN,
    HASH_MUL1,
    HASH_MUL2,
    HASH_KEEP_BITS,
    dropout_hash,
    dropout_threshold,
    dropout_keep_mask,
    RandomEffect,
    DropoutOp,
    CopyOp,
)

#: Every op of the dialect: each op class this package exports, in the order
#: of the family modules above.
GRAPH_OPS: tuple[type[GraphOp], ...] = tuple(
    cls
    for cls in dict(globals()).values()
    if isinstance(cls, type) and issubclass(cls, GraphOp) and "name" in vars(cls)
)

# The ops the first models (MLP, softmax classifier) are built from; the
# builder and reference tests check this set end to end.
CORE_OPS: tuple[type[GraphOp], ...] = (
    ConstantOp,
    NegOp,
    ExpOp,
    LogOp,
    SqrtOp,
    TanhOp,
    SigmoidOp,
    ReluOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    MatmulOp,
    TransposeOp,
    ReshapeOp,
    ReduceSumOp,
    ReduceMeanOp,
    ReduceMaxOp,
    SoftmaxOp,
)

Graph = Dialect("graph", list(GRAPH_OPS), [])


def op_class_by_name(name: str) -> type[GraphOp] | None:
    """The graph op class called ``graph.<name>`` (or ``name``), if any."""
    full = name if name.startswith("graph.") else f"graph.{name}"
    return next((op for op in GRAPH_OPS if op.name == full), None)


__all__ = [
    "i64",
    "f32",
    "f64",
    "i32",
    "i1",
    "FLOAT_TYPES",
    "INT_TYPES",
    "BOOL_TYPES",
    "NUMERIC_TYPES",
    "ALL_TYPES",
    "numpy_dtype",
    "element_type_of",
    "shape_str",
    "type_str",
    "tensor",
    "normalize_axis",
    "normalize_axes",
    "broadcast_shapes",
    "GraphCanonicalization",
    "GraphOp",
    "check_static_tensor",
    "I64_MAX",
    "check_dims_fit_i64",
    "tensor_of",
    "UnaryElementwiseOp",
    "BinaryBroadcastOp",
    "ReduceOp",
    "AxisNormalizationOp",
    "tensor_of_type",
    "dense_i64_array",
    "int_values",
    "f64_attr",
    "ModuleVerifyError",
    "verify_dominance",
    "verify_graph_module",
    "ConstantOp",
    "NegOp",
    "ExpOp",
    "LogOp",
    "SqrtOp",
    "TanhOp",
    "SigmoidOp",
    "ReluOp",
    "erf",
    "GELU_TANH_C",
    "GELU_TANH_K",
    "AbsOp",
    "RsqrtOp",
    "ErfOp",
    "SinOp",
    "CosOp",
    "GeluOp",
    "LeakyReluOp",
    "ClipOp",
    "AddOp",
    "SubOp",
    "MulOp",
    "DivOp",
    "MaximumOp",
    "PowOp",
    "MinimumOp",
    "CompareOp",
    "GreaterOp",
    "LessOp",
    "EqualOp",
    "WhereOp",
    "cast_array",
    "CastOp",
    "AddNOp",
    "MatmulOp",
    "shape_of",
    "LayoutOp",
    "TransposeOp",
    "ReshapeOp",
    "BroadcastToOp",
    "ExpandDimsOp",
    "SqueezeOp",
    "FlattenOp",
    "ConcatOp",
    "SplitOp",
    "onnx_slice_range",
    "SliceOp",
    "PadOp",
    "GatherOp",
    "SliceGradOp",
    "GatherGradOp",
    "ReduceSumOp",
    "ReduceMeanOp",
    "ReduceMaxOp",
    "ReduceMinOp",
    "ReduceProdOp",
    "ArgmaxOp",
    "SoftmaxOp",
    "LogSoftmaxOp",
    "DEFAULT_EPS",
    "NormOp",
    "check_channel_params",
    "channel_view",
    "BatchNormOp",
    "BatchNormTrainOp",
    "LayerNormOp",
    "lrn_window",
    "LrnFamilyOp",
    "LrnOp",
    "LrnGradOp",
    "check_window_props",
    "window_output_size",
    "pad_nchw",
    "WindowOp",
    "Conv2dOp",
    "Pool2dOp",
    "MaxPool2dOp",
    "AvgPool2dOp",
    "GlobalAvgPoolOp",
    "window_props",
    "WindowGradOp",
    "Conv2dGradInputOp",
    "Conv2dGradFilterOp",
    "MaxPool2dGradOp",
    "AvgPool2dGradOp",
    "check_scalar_value",
    "scalar_of",
    "FillOp",
    "ZerosLikeOp",
    "OnesLikeOp",
    "HASH_GOLDEN",
    "HASH_MUL1",
    "HASH_MUL2",
    "HASH_KEEP_BITS",
    "dropout_hash",
    "dropout_threshold",
    "dropout_keep_mask",
    "RandomEffect",
    "DropoutOp",
    "CopyOp",
    "GRAPH_OPS",
    "CORE_OPS",
    "Graph",
    "op_class_by_name",
]
