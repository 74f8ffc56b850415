"""The ``graph`` dialect: tensor-level ops with value semantics.

This package is the dialect's one import surface: every op, op family and
helper is importable from ``graphopt.dialects.graph``.  Its modules follow op
families:

* ``base``: the op interface (:class:`GraphOp`), the element types and the
  shape helpers;
* ``families``: what the ops of one signature or kind share (unary
  elementwise, binary broadcasting, reductions, axis normalizations...);
* ``constant``, ``fill`` (values made, not moved), ``elementwise``,
  ``linalg`` (matmul), ``layout`` (re-indexing), ``indexing`` (select and move
  elements), ``reduce``, ``normalization``, ``window`` (conv and pools) and
  ``window_grad`` (their backward ops), ``blocked`` (the NCHWc layout);
* ``properties``: reading and building op properties one way;
* ``dominance`` and ``module_verify``: module-level checks per-op verifiers
  cannot make;
* ``names``: the source names of a function's inputs and outputs
  (``graph.name`` argument and result attributes).

    %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %y = graph.relu %x : tensor<8x16xf32>
    %s = graph.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %m = graph.matmul %a, %w : (tensor<8x784xf32>, tensor<784x128xf32>) -> tensor<8x128xf32>
"""

from __future__ import annotations

from types import ModuleType as _ModuleType

from xdsl.dialects.builtin import i64
from xdsl.ir import Dialect as _Dialect

from .base import (
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
    check_tensor_size,
    tensor_of,
    tensor_of_type,
)
from .families import (
    PureOp,
    SameTypeOp,
    UnaryElementwiseOp,
    UnaryTensorOp,
    BinaryTensorOp,
    BinaryBroadcastOp,
    ReduceOp,
    AxisNormalizationOp,
    AxisOp,
)
from .properties import (
    dense_i64_array,
    int_values,
    int_value,
    float_value,
    f64_attr,
    property_attribute,
    PropertyValue,
)
from .dominance import ModuleVerifyError, verify_dominance
from .names import (
    NAME_ATTR,
    arg_source_names,
    result_source_names,
    set_arg_source_names,
    set_result_source_names,
    input_names,
    output_names,
    unique_name,
    text_of,
    describe_argument,
    name_list,
    known_names,
    check_interface_names,
)
from .module_verify import verify_graph_module
from .constant import (
    ConstantOp,
)
from .elementwise import (
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
from .linalg import (
    MatmulOp,
)
from .layout import (
    shape_of,
    LayoutOp,
    UnaryLayoutOp,
    TransposeOp,
    ReshapeOp,
    BroadcastToOp,
    ExpandDimsOp,
    SqueezeOp,
    FlattenOp,
)
from .indexing import (
    ConcatOp,
    SplitOp,
    onnx_slice_range,
    SliceOp,
    PadOp,
    GatherOp,
    ScatterGradOp,
    SliceGradOp,
    GatherGradOp,
)
from .reduce import (
    ReduceSumOp,
    ReduceMeanOp,
    ExtremumReduceOp,
    ReduceMaxOp,
    ReduceMinOp,
    ReduceProdOp,
    ArgmaxOp,
)
from .normalization import (
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
from .window import (
    check_window_props,
    window_output_size,
    pad_nchw,
    window_props,
    WindowOp,
    GroupedOp,
    DilatedWindowOp,
    Conv2dOp,
    Pool2dOp,
    MaxPool2dOp,
    AvgPool2dOp,
    GlobalAvgPoolOp,
)
from .window_grad import (
    WindowGradOp,
    Conv2dGradInputOp,
    Conv2dGradFilterOp,
    MaxPool2dGradOp,
    AvgPool2dGradOp,
)
from .blocked import (
    ReorderNchwcOp,
    ReorderNchwOp,
    Conv2dNchwcOp,
    DepthwiseConv2dNchwcOp,
    MaxPool2dNchwcOp,
    to_blocked,
    to_blocked_depthwise_weight,
    from_blocked,
)
from .fill import (
    check_scalar_value,
    scalar_of,
    FillOp,
    FillLikeOp,
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

Graph = _Dialect("graph", list(GRAPH_OPS), [])


def op_class_by_name(name: str) -> type[GraphOp] | None:
    """The graph op class called ``graph.<name>`` (or ``name``), if any."""
    full = name if name.startswith("graph.") else f"graph.{name}"
    return next((op for op in GRAPH_OPS if op.name == full), None)


#: The ops the first models (MLP, softmax classifier) are built from; the
#: builder and reference tests check this set end to end.
CORE_OPS: tuple[type[GraphOp], ...] = tuple(
    op_class_by_name(name)  # type: ignore[misc]
    for name in (
        "constant neg exp log sqrt tanh sigmoid relu add sub mul div maximum matmul transpose "
        "reshape reduce_sum reduce_mean reduce_max softmax"
    ).split()
)


#: The package's surface: every public name above (the family modules'
#: exports, the op tables and ``Graph``), not the modules themselves.
__all__ = [
    name
    for name, value in dict(globals()).items()
    if not name.startswith("_") and name != "annotations" and not isinstance(value, _ModuleType)
]
