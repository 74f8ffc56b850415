"""Normalization ops: softmax and log_softmax, batch_norm in inference and
training form, layer_norm, and local response normalization (lrn, lrn_grad).

    %p = graph.softmax %x {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
    %l = graph.log_softmax %x {axis = -1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
    %y = graph.batch_norm %x, %scale, %bias, %mean, %var {eps = 1.0e-05 : f64} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    %y, %m, %v = graph.batch_norm_train %x, %scale, %bias {eps = 1.0e-05 : f64, momentum = 0.9 : f64} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
    %n = graph.layer_norm %x, %scale, %bias {axis = -1 : i64, eps = 1.0e-05 : f64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>

Softmax is ``exp(x - max) / sum(exp(x - max))`` (stable for large logits).
The channel axis of batch_norm is 1 (N, C, ...).  Variances are biased (divide
by the element count) and computed in two passes (no ``E[x²]-E[x]²``
cancellation).  The batch and layer norms are OutEWiseFusable (TVM treats
batch_norm so before ``SimplifyInference`` rewrites it).  ``lrn`` is
ONNX/AlexNet local response normalization across channels.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import Float64Type, FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from graphopt.dialects.fuse_pattern import FusePattern
from graphopt.dialects.graph.base import (
    FLOAT_TYPES, broadcast_shapes, check_static_tensor, normalize_axis, shape_str, tensor,
    tensor_of_type, type_str,
)
from graphopt.dialects.graph.families import AxisNormalizationOp, AxisOp, PureOp, UnaryTensorOp
from graphopt.dialects.graph.properties import PropertyValue, float_value


@irdl_op_definition
class SoftmaxOp(AxisNormalizationOp):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis`` (stable for large logits)."""

    name = "graph.softmax"

    def normalize(self, shifted: np.ndarray, axis: int) -> np.ndarray:
        e = np.exp(shifted)
        return e / np.sum(e, axis=axis, keepdims=True)


@irdl_op_definition
class LogSoftmaxOp(AxisNormalizationOp):
    """``x - max - log(sum(exp(x - max)))`` along ``axis`` (stable for large logits)."""

    name = "graph.log_softmax"

    def normalize(self, shifted: np.ndarray, axis: int) -> np.ndarray:
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


DEFAULT_EPS = 1e-5


class NormOp(PureOp):
    """Shared settings: float only, Pure, OutEWiseFusable, an ``eps`` > 0."""

    eps = prop_def(FloatAttr[Float64Type])

    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE
    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    epsilon = PropertyValue(eps)

    def verify_extra(self) -> None:
        if not self.epsilon >= 0.0:
            raise VerifyException(f"{self.name}: eps must be >= 0, got {self.epsilon}")


class AffineNormOp(NormOp):
    """``batch_norm_train`` and ``layer_norm``: ``x`` standardized over some
    axes with its own mean and (biased) variance, then scaled and shifted:
    ``%y = graph.<op> %x, %scale, %bias {eps = ...} : (...) -> ...``."""

    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = operand_def(TensorType)

    assembly_format = "$input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)"

    def standardized(self, x: np.ndarray, axes: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``((x - mean) / sqrt(var + eps), mean, var)``, the statistics over
        ``axes`` kept as size-1 axes; the variance in two passes (no
        ``E[x²]-E[x]²`` cancellation)."""
        mean = np.mean(x, axis=tuple(axes), keepdims=True)
        centred = x - mean
        var = np.mean(centred * centred, axis=tuple(axes), keepdims=True)
        return centred / np.sqrt(var + np.asarray(self.epsilon, x.dtype)), mean, var


def check_same_element_type(op_name: str, types: Sequence[Attribute]) -> None:
    first = tensor_of_type(types[0]).element_type
    for i, t in enumerate(types[1:], start=1):
        if tensor_of_type(t).element_type != first:
            raise VerifyException(
                f"{op_name}: element types differ (operand #0 is {first}, "
                f"operand #{i} is {tensor_of_type(t).element_type})"
            )


def check_channel_params(op_name: str, x: Attribute, params: Sequence[tuple[str, Attribute]]) -> int:
    """``x`` is ``N x C x ...``; each parameter must be a ``C`` vector."""
    assert isinstance(x, TensorType)
    shape = x.get_shape()
    if len(shape) < 2:
        raise VerifyException(f"{op_name}: input must have rank >= 2 (N, C, ...), got {type_str(x)}")
    c = shape[1]
    for what, t in params:
        assert isinstance(t, TensorType)
        if list(t.get_shape()) != [c]:
            raise VerifyException(
                f"{op_name}: {what} must have shape {c} (the channels of {shape_str(shape)}), "
                f"got {shape_str(t.get_shape())}"
            )
    return c


def channel_view(v: np.ndarray, rank: int) -> np.ndarray:
    """A ``C`` vector shaped to broadcast along axis 1 of a rank-``rank`` array."""
    return v.reshape((1, -1) + (1,) * (rank - 2))


@irdl_op_definition
class BatchNormOp(NormOp):
    """Inference batch norm with given statistics:
    ``y = (x - mean) * (scale / sqrt(var + eps)) + bias`` per channel."""

    name = "graph.batch_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = operand_def(TensorType)
    mean = operand_def(TensorType)
    var = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = (
        "$input `,` $scale `,` $bias `,` $mean `,` $var attr-dict `:` functional-type(operands, results)"
    )

    def __init__(
        self,
        input: SSAValue,
        scale: SSAValue,
        bias: SSAValue,
        mean: SSAValue,
        var: SSAValue,
        eps: float = DEFAULT_EPS,
    ):
        super().__init__(operands=[input, scale, bias, mean, var], properties={"eps": eps})

    @classmethod
    def infer_type(
        cls, input: Attribute, scale: Attribute, bias: Attribute, mean: Attribute, var: Attribute
    ) -> Attribute:
        params = [("scale", scale), ("bias", bias), ("mean", mean), ("var", var)]
        check_channel_params(cls.name, input, params)
        check_same_element_type(cls.name, (input, scale, bias, mean, var))
        return input

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, scale, bias, mean, var = inputs
        r = x.ndim
        factor = scale / np.sqrt(var + np.asarray(self.epsilon, x.dtype))
        y = (x - channel_view(mean, r)) * channel_view(factor, r) + channel_view(bias, r)
        return [y.astype(x.dtype, copy=False)]


@irdl_op_definition
class BatchNormTrainOp(AffineNormOp):
    """Training batch norm: normalizes with the batch's own statistics.

    Results: ``y``, the batch mean and the biased batch variance per channel
    (over N and the spatial axes), as ONNX and PyTorch normalize with.

    The op keeps no state.  ``momentum`` is carried for the training step
    that updates the running statistics from the two extra results, with
    ONNX's convention ``running = running * momentum + batch * (1 -
    momentum)`` (PyTorch's ``momentum`` is ``1 -`` this; PyTorch also
    stores the unbiased variance, ``var * n / (n - 1)``).  Keeping the update
    outside keeps the op pure and its gradient free of state.
    """

    name = "graph.batch_norm_train"
    result = result_def(TensorType)
    batch_mean = result_def(TensorType)
    batch_var = result_def(TensorType)
    momentum = prop_def(FloatAttr[Float64Type])

    def __init__(
        self,
        input: SSAValue,
        scale: SSAValue,
        bias: SSAValue,
        eps: float = DEFAULT_EPS,
        momentum: float = 0.9,
    ):
        super().__init__(operands=[input, scale, bias], properties={"eps": eps, "momentum": momentum})

    momentum_value = PropertyValue(momentum)

    def verify_extra(self) -> None:
        super().verify_extra()
        if not 0.0 <= self.momentum_value <= 1.0:
            raise VerifyException(f"{self.name}: momentum must be in [0, 1], got {self.momentum_value}")

    @classmethod
    def infer_type(cls, input: Attribute, scale: Attribute, bias: Attribute) -> list[Attribute]:
        c = check_channel_params(cls.name, input, [("scale", scale), ("bias", bias)])
        check_same_element_type(cls.name, (input, scale, bias))
        shape = tensor_of_type(input).get_shape()
        if prod(shape) == 0:
            raise VerifyException(f"{cls.name}: empty batch ({shape_str(shape)})")
        stats = tensor((c,), tensor_of_type(input).element_type)
        return [input, stats, stats]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, scale, bias = inputs
        r = x.ndim
        xhat, mean, var = self.standardized(x, (0, *range(2, r)))
        y = xhat * channel_view(scale, r) + channel_view(bias, r)
        return [y.astype(x.dtype, copy=False), mean.reshape(-1), var.reshape(-1)]


@irdl_op_definition
class LayerNormOp(AffineNormOp, AxisOp):
    """ONNX LayerNormalization: normalize over the axes ``[axis, rank)``,
    ``y = (x - mean) / sqrt(var + eps) * scale + bias``.  ``scale`` and
    ``bias`` broadcast (numpy rules) to the normalized shape ``x.shape[axis:]``."""

    name = "graph.layer_norm"
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        scale: SSAValue,
        bias: SSAValue,
        axis: int = -1,
        eps: float = DEFAULT_EPS,
    ):
        super().__init__(operands=[input, scale, bias], properties={"axis": axis, "eps": eps})

    @classmethod
    def axis_in(cls, input: Attribute, axis: int) -> int:
        rank = len(tensor_of_type(input).get_shape())
        if rank == 0:
            raise VerifyException(f"{cls.name}: input must have rank >= 1, got {type_str(input)}")
        return normalize_axis(cls.name, axis, rank)

    @classmethod
    def infer_type(cls, input: Attribute, scale: Attribute, bias: Attribute, axis: int) -> Attribute:
        ax = cls.axis_in(input, axis)
        shape = tensor_of_type(input).get_shape()
        norm = tuple(shape[ax:])
        if prod(norm) == 0:
            raise VerifyException(f"{cls.name}: empty normalized axes ({shape_str(shape)}, axis {ax})")
        for what, t in (("scale", scale), ("bias", bias)):
            p = tensor_of_type(t).get_shape()
            ok = len(p) <= len(norm)
            if ok:
                try:
                    ok = broadcast_shapes(cls.name, p, norm) == norm
                except VerifyException:
                    ok = False
            if not ok:
                raise VerifyException(
                    f"{cls.name}: {what} {shape_str(p)} does not broadcast to the normalized "
                    f"shape {shape_str(norm)} of {shape_str(shape)}"
                )
        check_same_element_type(cls.name, (input, scale, bias))
        return input

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, scale, bias = inputs
        xhat, _, _ = self.standardized(x, range(self.normalized_axis, x.ndim))
        return [(xhat * scale + bias).astype(x.dtype, copy=False)]


def lrn_window(size: int) -> tuple[int, int]:
    """Channels ``c - before .. c + after`` (ONNX: floor and ceil of (size-1)/2)."""
    return (size - 1) // 2, size // 2


class LrnFamilyOp(PureOp):
    """``lrn`` and ``lrn_grad``: the window ``size`` over channels and the
    ``alpha``, ``beta``, ``bias`` of ``x / (bias + alpha/size * sum x^2)^beta``."""

    size = prop_def(IntegerAttr)
    alpha = prop_def(FloatAttr[Float64Type])
    beta = prop_def(FloatAttr[Float64Type])
    bias = prop_def(FloatAttr[Float64Type])

    ALLOWED_ELEMENT_TYPES: ClassVar[tuple[Attribute, ...]] = FLOAT_TYPES

    @staticmethod
    def lrn_properties(size: int, alpha: float, beta: float, bias: float) -> dict[str, object]:
        return {"size": size, "alpha": alpha, "beta": beta, "bias": bias}

    window_size = PropertyValue(size)

    @property
    def params(self) -> tuple[float, float, float]:
        """(alpha, beta, bias)."""
        return float_value(self.alpha), float_value(self.beta), float_value(self.bias)


@irdl_op_definition
class LrnOp(LrnFamilyOp, UnaryTensorOp):
    """ONNX LRN across channels (AlexNet, GoogLeNet):
    ``y = x / (bias + alpha/size * sum_{c' in window(c)} x[c']^2) ** beta``,
    the window clipped to the existing channels.

    OutEWiseFusable like the window ops: each output reads ``size`` inputs."""

    name = "graph.lrn"
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OUT_EWISE_FUSABLE

    def __init__(
        self, input: SSAValue, size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0
    ):
        super().__init__(operands=[input], properties=self.lrn_properties(size, alpha, beta, bias))

    @classmethod
    def infer_type(cls, input: Attribute, size: int) -> TensorType:
        check_static_tensor(cls.name, "input", input)
        t = tensor_of_type(input)
        if len(t.get_shape()) < 2:
            raise VerifyException(f"{cls.name}: input must have rank >= 2 (N, C, ...), got {type_str(t)}")
        if size < 1:
            raise VerifyException(f"{cls.name}: size must be positive, got {size}")
        return t

    def square_sums(self, x: np.ndarray) -> np.ndarray:
        """``sum x[c']^2`` over each channel's window (accumulated in f64)."""
        before, after = lrn_window(self.window_size)
        sq = np.square(x.astype(np.float64))
        c = x.shape[1]
        padded = np.pad(sq, [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2))
        return sum(padded[:, j:j + c] for j in range(self.window_size))  # type: ignore[return-value]

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        (x,) = inputs
        alpha, beta, bias = self.params
        scale = bias + alpha / self.window_size * self.square_sums(x)
        return [(x / scale**beta).astype(x.dtype)]


@irdl_op_definition
class LrnGradOp(LrnFamilyOp):
    """The input gradient of ``graph.lrn`` (same size, alpha, beta, bias):
    with ``s[c] = bias + alpha/size * sum_{window(c)} x^2``,
    ``dx[k] = g[k] s[k]^-beta - 2 alpha beta / size * x[k] *
    sum_{c : k in window(c)} g[c] x[c] s[c]^(-beta-1)``."""

    name = "graph.lrn_grad"
    input = operand_def(TensorType)
    grad = operand_def(TensorType)
    result = result_def(TensorType)
    FUSE_PATTERN: ClassVar[FusePattern] = FusePattern.OPAQUE
    assembly_format = "$input `,` $grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, grad: SSAValue, size: int, alpha: float, beta: float, bias: float):
        super().__init__(operands=[input, grad], properties=self.lrn_properties(size, alpha, beta, bias))

    @classmethod
    def infer_type(cls, input: Attribute, grad: Attribute, size: int) -> Attribute:
        if input != grad:
            raise VerifyException(
                f"graph.lrn_grad: input and gradient types differ ({type_str(input)} vs "
                f"{type_str(grad)})"
            )
        if len(tensor_of_type(input).get_shape()) < 2 or size < 1:
            raise VerifyException("graph.lrn_grad: input must have rank >= 2 and size must be positive")
        return input

    def reference(self, *inputs: np.ndarray) -> list[np.ndarray]:
        x, g = (a.astype(np.float64) for a in inputs)
        size = self.window_size
        alpha, beta, bias = self.params
        before, after = (size - 1) // 2, size // 2
        c = x.shape[1]
        rest = [(0, 0)] * (x.ndim - 2)
        sq = np.pad(x * x, [(0, 0), (before, after), *rest])
        s = bias + alpha / size * sum(sq[:, j:j + c] for j in range(size))
        t = np.pad(g * x * s ** (-beta - 1.0), [(0, 0), (after, before), *rest])
        back = sum(t[:, j:j + c] for j in range(size))
        dx = g * s**-beta - 2.0 * alpha * beta / size * x * back
        return [dx.astype(inputs[0].dtype)]
