"""Image-classification models built with the builder API (NCHW, f32).

ResNet-50, MobileNetV2, GoogLeNet (Inception v1) and DenseNet-121 with the
torchvision layer shapes.  Weights are splat constants: the graphs are meant
for shape-driven work (memory planning, fusion statistics), not for accuracy.
MobileNetV2's ReLU6 is a ReLU (the op set has no clip; shapes are the same).

    from benchmarks.models import MODELS
    module = MODELS["resnet50"]()          # batch 1, 224x224
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from graphopt.dialects.graph import tensor_of
from graphopt.frontends.builder import GraphBuilder


class Net:
    """A builder with the usual conv/bn/relu helpers."""

    def __init__(self, name: str, batch: int = 1, size: int = 224):
        self.b = GraphBuilder(name)
        self.x = self.b.input((batch, 3, size, size), name="image")

    @staticmethod
    def channels(x: SSAValue) -> int:
        return tensor_of(x).get_shape()[1]

    def conv(
        self, x: SSAValue, out: int, k: int, stride: int = 1, pad: int | None = None, groups: int = 1
    ) -> SSAValue:
        pad = k // 2 if pad is None else pad
        w = self.b.splat((out, self.channels(x) // groups, k, k), 0.01)
        return self.b.conv2d(x, w, strides=(stride, stride), padding=(pad,) * 4, groups=groups)

    def bn(self, x: SSAValue) -> SSAValue:
        c = self.channels(x)
        b = self.b
        return b.batch_norm(x, b.splat((c,), 1.0), b.splat((c,), 0.0), b.splat((c,), 0.0), b.splat((c,), 1.0))

    def cbr(self, x: SSAValue, out: int, k: int, stride: int = 1, pad: int | None = None, groups: int = 1, relu: bool = True) -> SSAValue:
        y = self.bn(self.conv(x, out, k, stride, pad, groups))
        return self.b.relu(y) if relu else y

    def max_pool(self, x: SSAValue, k: int, stride: int, pad: int) -> SSAValue:
        return self.b.max_pool2d(x, (k, k), strides=(stride, stride), padding=(pad,) * 4)

    def avg_pool(self, x: SSAValue, k: int, stride: int) -> SSAValue:
        return self.b.avg_pool2d(x, (k, k), strides=(stride, stride))

    def classifier(self, x: SSAValue, classes: int = 1000) -> ModuleOp:
        b = self.b
        c = self.channels(x)
        pooled = b.reshape(b.global_avg_pool(x), (tensor_of(x).get_shape()[0], c))
        logits = b.add(b.matmul(pooled, b.splat((c, classes), 0.01)), b.splat((classes,), 0.0))
        return b.build(logits)


def resnet50(batch: int = 1, size: int = 224) -> ModuleOp:
    n = Net("resnet50", batch, size)
    x = n.max_pool(n.cbr(n.x, 64, 7, 2, 3), 3, 2, 1)
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            s = stride if i == 0 else 1
            y = n.cbr(x, width, 1)
            y = n.cbr(y, width, 3, s)
            y = n.cbr(y, width * 4, 1, relu=False)
            identity = n.cbr(x, width * 4, 1, s, relu=False) if i == 0 else x
            x = n.b.relu(n.b.add(y, identity))
    return n.classifier(x)


def mobilenet_v2(batch: int = 1, size: int = 224) -> ModuleOp:
    n = Net("mobilenet_v2", batch, size)
    x = n.cbr(n.x, 32, 3, 2)
    settings = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))
    for t, c, reps, stride in settings:
        for i in range(reps):
            s = stride if i == 0 else 1
            cin = n.channels(x)
            hidden = cin * t
            y = n.cbr(x, hidden, 1) if t != 1 else x
            y = n.cbr(y, hidden, 3, s, groups=hidden)
            y = n.cbr(y, c, 1, relu=False)
            x = n.b.add(x, y) if s == 1 and cin == c else y
    return n.classifier(n.cbr(x, 1280, 1))


def _inception(n: Net, x: SSAValue, c1: int, c3r: int, c3: int, c5r: int, c5: int, pp: int) -> SSAValue:
    b1 = n.cbr(x, c1, 1)
    b2 = n.cbr(n.cbr(x, c3r, 1), c3, 3)
    b3 = n.cbr(n.cbr(x, c5r, 1), c5, 3)
    b4 = n.cbr(n.max_pool(x, 3, 1, 1), pp, 1)
    return n.b.concat([b1, b2, b3, b4], axis=1)


def googlenet(batch: int = 1, size: int = 224) -> ModuleOp:
    n = Net("googlenet", batch, size)
    x = n.max_pool(n.cbr(n.x, 64, 7, 2, 3), 3, 2, 1)
    x = n.max_pool(n.cbr(n.cbr(x, 64, 1), 192, 3), 3, 2, 1)
    x = _inception(n, x, 64, 96, 128, 16, 32, 32)
    x = _inception(n, x, 128, 128, 192, 32, 96, 64)
    x = n.max_pool(x, 3, 2, 1)
    for cfg in ((192, 96, 208, 16, 48, 64), (160, 112, 224, 24, 64, 64), (128, 128, 256, 24, 64, 64),
                (112, 144, 288, 32, 64, 64), (256, 160, 320, 32, 128, 128)):
        x = _inception(n, x, *cfg)
    x = n.max_pool(x, 3, 2, 1)
    x = _inception(n, x, 256, 160, 320, 32, 128, 128)
    x = _inception(n, x, 384, 192, 384, 48, 128, 128)
    return n.classifier(x)


def densenet121(batch: int = 1, size: int = 224, growth: int = 32, bn_size: int = 4) -> ModuleOp:
    n = Net("densenet121", batch, size)
    x = n.max_pool(n.cbr(n.x, 64, 7, 2, 3), 3, 2, 1)
    blocks = (6, 12, 24, 16)
    for bi, layers in enumerate(blocks):
        features: list[SSAValue] = [x]
        for _ in range(layers):
            cat = features[0] if len(features) == 1 else n.b.concat(features, axis=1)
            y = n.b.relu(n.bn(cat))
            y = n.cbr(y, bn_size * growth, 1)
            features.append(n.conv(y, growth, 3))
        x = n.b.concat(features, axis=1)
        if bi != len(blocks) - 1:
            x = n.b.relu(n.bn(x))
            x = n.avg_pool(n.conv(x, n.channels(x) // 2, 1), 2, 2)
    return n.classifier(n.b.relu(n.bn(x)))


MODELS: dict[str, Callable[..., ModuleOp]] = {
    "resnet50": resnet50,
    "mobilenet_v2": mobilenet_v2,
    "googlenet": googlenet,
    "densenet121": densenet121,
}


def build(name: str, **kwargs) -> ModuleOp:
    return MODELS[name](**kwargs)


__all__: Sequence[str] = ["MODELS", "build", "densenet121", "googlenet", "mobilenet_v2", "resnet50"]
