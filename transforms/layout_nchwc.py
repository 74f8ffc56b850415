"""``layout-nchwc``: chains of inference convs in the blocked NCHWc layout.

The block is one vector register of f32 on the module's target (16
channels with AVX-512, 8 with AVX2: :func:`block_size`).  A ``graph.conv2d``
with one group, a constant weight, unit dilations and input and output
channels that are multiples of the block (or an input of fewer channels
than a block, read as it is: a network's stem) becomes a
``graph.conv2d_nchwc`` (``dialects/graph/blocked.py``), a depthwise one
with a constant weight over a multiple of the block a
``graph.depthwise_conv2d_nchwc`` (its weight blocked at compile time), a max-pool of a
blocked value a ``graph.max_pool2d_nchwc``, a concat along the channels of
whole blocks a concat along the blocks (DenseNet's and Inception's), and so
do the elementwise ops after them (bias add, scale and shift, relu, clip,
the residual add...): their blocked operands are used as they are, a
constant is re-laid out at compile time (a per-channel ``[C, 1, 1]`` bias
becomes ``[C/16, 1, 1, 16]`` with blocks of 16), a per-channel value the
graph computes (a batch norm's scale before a conv, which fold-batch-norm
cannot fold into it) by a reshape and transpose (which fold-constants then
folds), another NCHW operand of the full shape is reordered.
Where a blocked value meets an op that stays NCHW (a pool, a reshape, the
function's return), a ``graph.reorder_nchw`` brings it back.  A strided 1x1
conv reads its pixels through a ``graph.slice`` and runs at stride 1
(:func:`_subsampled`).

Only chains worth their reorders are rewritten: at least ``min-convs`` convs
(default 2) doing at least ``min-macs-per-reordered`` multiply-adds (default
1000) per element their reorders move.  A reorder is a strided copy, about
a nanosecond per element; the blocked layout saves a fraction of a conv's
time (ResNet-50: 4 G multiply-adds against 0.3 M reordered elements, kept;
MobileNetV2's one long chain, its depthwise multiply-adds counted 50 times,
kept; without that weight, 600 per element, it was not).  Every op keeps its
meaning (each rewritten op is the old one under the layout map), so the
pass is semantics-preserving on any graph; what it does not know stays NCHW.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from graphopt.dialects import graph
from graphopt.dialects.graph import tensor, tensor_of
from graphopt.dialects.loop import module_target
from graphopt.target import Target
from graphopt.transforms.levels import GRAPH, require_level
from graphopt.transforms.pass_statistics import StatisticsPass

#: A depthwise multiply-add counts as this many in a chain's worth: in NCHW
#: it runs along rows of 7 to 112 pixels in 16-lane vectors, in NCHWc on
#: whole vectors of 16 channels (depthwise_nchwc), several times faster, where
#: a dense conv gains a fraction.  Measured, MobileNetV2 at one thread, in one
#: process: 4.29 -> 3.46 ms with its chains blocked; GoogLeNet and
#: DenseNet-121, which have no depthwise convs, slower with more of their
#: chains blocked (a threshold of 100: 16.0 -> 16.3 and 39 -> 92 ms), when
#: their concats still broke the chains.
DEPTHWISE_MAC_WEIGHT = 50
#: Concats along whole blocks of channels stay blocked (off only to
#: measure).  Measured, the onnx light models with dense weights at one
#: thread, in one process, off -> on: AVX-512 build DenseNet-121 61.3 ->
#: 57.7 ms, Inception v1 41.8 -> 39.1, v2 43.1 -> 40.9, SqueezeNet 8.5 ->
#: 7.5; AVX2 build 102 -> 69, 58.7 -> 44.7, 59.1 -> 42.9, 14.3 -> 7.9 (the
#: NCHW convs' GEMM tiles are AVX-512's).  (DenseNet also needs its batch
#: norms' computed per-channel operands blocked: :func:`_per_channel`.)
BLOCKED_CONCAT = True


def _nchw_blockable(v: SSAValue, block: int) -> bool:
    t = tensor_of(v)
    shape = t.get_shape()
    return t.element_type == f32 and len(shape) == 4 and shape[1] % block == 0 and shape[1] > 0


def _few_channels(v: SSAValue, block: int) -> bool:
    """An f32 NCHW input of fewer channels than a block (a network's image),
    which ``conv2d_nchwc`` reads as it is."""
    t = tensor_of(v)
    shape = t.get_shape()
    return t.element_type == f32 and len(shape) == 4 and 0 < shape[1] < block


def _seed_conv(op: Operation, block: int) -> bool:
    """A conv the micro-kernel takes: one group, constant weight, unit
    dilations, a blockable output and a blockable (or few-channel) input."""
    return (
        isinstance(op, graph.Conv2dOp) and op.group_count == 1 and op.dilation_values == (1, 1)
        and isinstance(op.weight.owner, graph.ConstantOp)
        and (_nchw_blockable(op.input, block) or _few_channels(op.input, block)) and _nchw_blockable(op.result, block)
    )  # fmt: skip


def _seed_depthwise(op: Operation, block: int) -> bool:
    """A depthwise conv (one channel a group) with a constant weight over
    blockable channels: ``depthwise_conv2d_nchwc``."""
    if not (isinstance(op, graph.Conv2dOp) and isinstance(op.weight.owner, graph.ConstantOp)):
        return False
    c = tensor_of(op.input).get_shape()[1]
    return op.group_count == c > 1 and tensor_of(op.weight).get_shape()[:2] == (c, 1) and _nchw_blockable(op.input, block)


def _blocked_pool(op: Operation, blocked: set[SSAValue]) -> bool:
    """A max-pool of a blocked value that ``max_pool2d_nchwc`` computes."""
    return (
        isinstance(op, graph.MaxPool2dOp) and op.input in blocked and op.dilation_values == (1, 1)
        and not op.is_ceil_mode
    )  # fmt: skip


def _blocked_constant(const: graph.ConstantOp, out_shape: tuple[int, ...], block: int) -> np.ndarray | None:
    """The constant operand of an elementwise op with NCHW result
    ``out_shape``, laid out to broadcast against the blocked result; None
    when it varies along N (then the op stays NCHW: rare, and not worth it)."""
    arr = const.reference()[0]
    if arr.ndim > 4:
        return None
    a4 = arr.reshape((1,) * (4 - arr.ndim) + arr.shape)
    n, c, h, w = a4.shape
    if n != 1:
        return None
    if c == 1:
        out = a4.reshape(1, 1, h, w, 1)
    else:
        out = a4.reshape(1, c // block, block, h, w).transpose(0, 1, 3, 4, 2)
    while out.ndim > 4 and out.shape[0] == 1:
        out = out[0]
    return np.ascontiguousarray(out)


def _per_channel(shape: tuple[int, ...], out_shape: tuple[int, ...]) -> bool:
    """An operand of one value per channel (``[C, 1, 1]``, leading 1s
    allowed) against an NCHW result of ``out_shape``: in the blocked layout
    ``[C/b, 1, 1, b]``, a reshape and a transpose (of a few values, which
    ``fold-constants`` folds when the operand is computed from constants:
    a batch norm before a conv, decomposed, as DenseNet's)."""
    core = shape[next((i for i, d in enumerate(shape) if d != 1), len(shape)):]
    return len(out_shape) == 4 and len(shape) <= 4 and core == (out_shape[1],) + (1,) * (len(core) - 1) and len(core) == 3


@dataclass
class _Layout:
    """The blocked decision and rewrite of one function."""

    fn: func.FuncOp
    min_convs: int
    min_macs_per_reordered: int
    block: int  # channels per block: the target's f32 lanes
    rewrites: int = 0

    def _operand_ok(self, v: SSAValue, out_shape: tuple[int, ...], blocked: set[SSAValue]) -> bool:
        shape = tuple(tensor_of(v).get_shape())
        if tensor_of(v).element_type != f32:
            return False
        if v in blocked:
            return shape == out_shape
        if all(d == 1 for d in shape):
            return True  # a scalar broadcast: any layout
        if isinstance(v.owner, graph.ConstantOp) and _blocked_constant(v.owner, out_shape, self.block) is not None:
            return True
        if _per_channel(shape, out_shape):
            return True  # re-laid out in the graph (folded when it is computed from constants)
        return shape == out_shape  # reordered

    def _elementwise(self, op: Operation, blocked: set[SSAValue]) -> bool:
        if isinstance(op, graph.UnaryElementwiseOp):
            return op.input in blocked
        if not isinstance(op, graph.BinaryBroadcastOp) or tensor_of(op.result).element_type != f32:
            return False
        out = tuple(tensor_of(op.result).get_shape())
        if not any(v in blocked for v in op.operands) or len(out) != 4:
            return False
        return all(self._operand_ok(v, out, blocked) for v in op.operands)

    def _concat(self, op: Operation, blocked: set[SSAValue]) -> bool:
        """A concat of blocked (or blockable) values along the channels,
        each a whole number of blocks: the blocked concat along the blocks."""
        if not (BLOCKED_CONCAT and isinstance(op, graph.ConcatOp)) or tensor_of(op.result).element_type != f32:
            return False
        shape = tensor_of(op.result).get_shape()
        if len(shape) != 4 or op.normalized_axis != 1 or not any(v in blocked for v in op.operands):
            return False
        return all(v in blocked or _nchw_blockable(v, self.block) for v in op.operands)

    def decide(self) -> list[Operation]:
        """The ops to rewrite, in order: greedy forward, then chains of fewer
        than ``min_convs`` convs dropped."""
        blocked: set[SSAValue] = set()
        chosen: list[Operation] = []
        for op in self.fn.body.block.ops:
            if (
                _seed_conv(op, self.block) or _seed_depthwise(op, self.block)
                or self._elementwise(op, blocked) or _blocked_pool(op, blocked) or self._concat(op, blocked)
            ):  # fmt: skip
                chosen.append(op)
                blocked.add(op.results[0])
        # Connected chains (through blocked values), union-find.
        parent = {op: op for op in chosen}

        def find(x: Operation) -> Operation:
            while parent[x] is not x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for op in chosen:
            for v in op.operands:
                if v in blocked and isinstance(v.owner, Operation) and v.owner in parent:
                    parent[find(op)] = find(v.owner)
        convs: dict[Operation, int] = {}
        macs: dict[Operation, int] = {}
        moved: dict[Operation, set[SSAValue]] = {}  # the values each chain reorders
        for op in chosen:
            root = find(op)
            if isinstance(op, graph.Conv2dOp):
                convs[root] = convs.get(root, 0) + 1
                weight = DEPTHWISE_MAC_WEIGHT if op.group_count > 1 else 1
                macs[root] = macs.get(root, 0) + weight * prod(tensor_of(op.result).get_shape()) * prod(tensor_of(op.weight).get_shape()[1:])
            ins = [op.input] if isinstance(op, graph.Conv2dOp) else op.operands
            for v in ins:
                if v not in blocked and _nchw_blockable(v, self.block) and not isinstance(v.owner, graph.ConstantOp):
                    moved.setdefault(root, set()).add(v)
            if any(u.operation not in parent for u in op.results[0].uses):
                moved.setdefault(root, set()).add(op.results[0])

        def worth(root: Operation) -> bool:
            reordered = sum(prod(tensor_of(v).get_shape()) for v in moved.get(root, ()))
            return convs.get(root, 0) >= self.min_convs and macs.get(root, 0) >= self.min_macs_per_reordered * reordered

        return [op for op in chosen if worth(find(op))]

    def rewrite(self, ops: list[Operation]) -> None:
        block_of: dict[SSAValue, SSAValue] = {}  # NCHW value -> its blocked form
        reordered: dict[SSAValue, SSAValue] = {}  # an NCHW operand reordered once
        chosen = set(ops)

        def insert(new: Operation, before: Operation) -> Operation:
            Rewriter.insert_op(new, InsertPoint.before(before))
            new.location = before.location
            return new

        def blocked_operand(v: SSAValue, user: Operation, out_shape: tuple[int, ...]) -> SSAValue:
            if v in block_of:
                return block_of[v]
            shape = tuple(tensor_of(v).get_shape())
            if all(d == 1 for d in shape):
                return v
            arr = _blocked_constant(v.owner, out_shape, self.block) if isinstance(v.owner, graph.ConstantOp) else None
            if arr is not None:
                if v.owner.is_splat:
                    c = graph.ConstantOp.splat_of(tensor(arr.shape, f32), float(arr.reshape(-1)[0]))
                else:
                    c = graph.ConstantOp.from_array(arr.astype(np.float32))
                return insert(c, user).results[0]
            if _per_channel(shape, out_shape) and v not in reordered:
                c = out_shape[1]
                grouped = insert(graph.ReshapeOp(v, (c // self.block, self.block, 1, 1)), user)
                reordered[v] = insert(graph.TransposeOp(grouped.results[0], (0, 2, 3, 1)), user).results[0]
            if v not in reordered:
                at = v.owner if isinstance(v.owner, Operation) else None
                r = graph.ReorderNchwcOp(v, self.block)
                if at is None:
                    Rewriter.insert_op(r, InsertPoint.at_start(self.fn.body.block))
                else:
                    Rewriter.insert_op(r, InsertPoint.after(at))
                reordered[v] = r.result
            return reordered[v]

        for op in ops:
            out_shape = tuple(tensor_of(op.results[0]).get_shape())
            if isinstance(op, graph.Conv2dOp) and op.group_count > 1:
                x = blocked_operand(op.input, op, tuple(tensor_of(op.input).get_shape()))
                wc = op.weight.owner
                assert isinstance(wc, graph.ConstantOp)
                c, _, kh, kw = tensor_of(op.weight).get_shape()
                shape = (c // self.block, kh, kw, self.block)
                if wc.is_splat:
                    w = graph.ConstantOp.splat_of(tensor(shape, f32), float(wc.reference()[0].reshape(-1)[0]))
                else:
                    w = graph.ConstantOp.from_array(graph.to_blocked_depthwise_weight(wc.reference()[0], self.block))
                w = insert(w, op).results[0]
                new = graph.DepthwiseConv2dNchwcOp(x, w, op.stride_values, op.pad_values, op.dilation_values)
            elif isinstance(op, graph.Conv2dOp):
                few = _few_channels(op.input, self.block)
                x = op.input if few else blocked_operand(op.input, op, tuple(tensor_of(op.input).get_shape()))
                stride = op.stride_values
                if not few and _strided_pointwise(op):
                    x, stride = _subsampled(x, stride, op), (1, 1)
                new = graph.Conv2dNchwcOp(x, op.weight, stride, op.pad_values, op.dilation_values, self.block)
            elif isinstance(op, graph.MaxPool2dOp):
                new = graph.MaxPool2dNchwcOp(block_of[op.input], op.kernel_values, op.stride_values, op.pad_values)
            elif isinstance(op, graph.ConcatOp):
                operands = [blocked_operand(v, op, tuple(tensor_of(v).get_shape())) for v in op.operands]
                new = graph.ConcatOp(operands, 1)
            else:
                operands = [blocked_operand(v, op, out_shape) for v in op.operands]
                shape = np.broadcast_shapes(*[tuple(tensor_of(v).get_shape()) for v in operands])
                new_type = tensor(shape, tensor_of(op.results[0]).element_type)
                new = type(op).create(
                    operands=operands, result_types=[new_type],
                    properties=dict(op.properties), attributes=dict(op.attributes),
                )  # fmt: skip
            insert(new, op)
            new.results[0].name_hint = op.results[0].name_hint
            block_of[op.results[0]] = new.results[0]
            self.rewrites += 1
        # Users that stay NCHW read the blocked value reordered back, once.
        for op in ops:
            old = op.results[0]
            outside = [u for u in list(old.uses) if u.operation not in chosen]
            if outside:
                back = graph.ReorderNchwOp(block_of[old])
                Rewriter.insert_op(back, InsertPoint.after(block_of[old].owner))
                back.result.name_hint = old.name_hint
                for use in outside:
                    use.operation.operands[use.index] = back.result
        for op in reversed(ops):
            Rewriter.erase_op(op)


def _strided_pointwise(op: graph.Conv2dOp) -> bool:
    """A 1x1 conv with a stride and no padding: it reads every s-th pixel."""
    kh, kw = tensor_of(op.weight).get_shape()[2:]
    return (kh, kw) == (1, 1) and op.stride_values != (1, 1) and not any(op.pad_values) and op.dilation_values == (1, 1)


def _subsampled(x: SSAValue, stride: tuple[int, int], conv: Operation) -> SSAValue:
    """The pixels a strided 1x1 conv reads, as a blocked tensor of their own
    (``graph.slice`` with the stride as its steps), which the conv then reads
    at stride 1: its micro-kernel runs over a dense plane, every output panel
    streaming a quarter of the input (ResNet's 256->512 /2 @56: 3.2 MB of
    lines from L3 per panel, half of each line unused with 8-channel
    blocks) instead of the whole.  Measured, Zen 4, one thread, ResNet-50
    (interleaved, two pairs each): the model 74.8 -> 74.5 ms (AVX-512 build),
    75.8 -> 75.5 (AVX2 build; its three projection convs chained 6.2 -> 5.7
    ms, their slices 0.3)."""
    h, w = tensor_of(x).get_shape()[2:4]
    sliced = graph.SliceOp(x, (0, 0), (h, w), (2, 3), stride)
    Rewriter.insert_op(sliced, InsertPoint.before(conv))
    sliced.location = conv.location
    return sliced.results[0]


def block_size(target: Target) -> int:
    """Channels per NCHWc block: one vector register of f32 (16 with
    AVX-512, 8 with AVX2, 4 with NEON or SSE), as MLAS blocks; 0 (no
    blocking) where the target has no micro-kernels to run the blocked convs."""
    return target.f32_lanes if target.has_micro_kernels else 0


@dataclass(frozen=True)
class LayoutNchwcPass(StatisticsPass):
    """Chains of inference convs in NCHWc, blocks of the target's vector width."""

    name = "layout-nchwc"
    min_convs: int = 2
    min_macs_per_reordered: int = 1000

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_level(op, self.name, GRAPH)
        block = block_size(module_target(op))
        total = 0
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks and block]:
            layout = _Layout(fn, self.min_convs, self.min_macs_per_reordered, block)
            layout.rewrite(layout.decide())
            total += layout.rewrites
        self.record(ops_blocked=total)


__all__ = ["LayoutNchwcPass"]
