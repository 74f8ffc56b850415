"""Register tiles of the NCHWc conv micro-kernel, A/B on single convs: each
conv (bias and relu fused, its input already blocked) compiled for one
target with each tile variant, checked against a float64 conv, and timed
interleaved in one process (CPU time per call at one thread, medians).

A variant names the tiles of the target's register file (graphopt.lowering.nchwc_tiles.TILES)
as ``WIDE/NARROW``: ``4x3/2x6`` is a wide tile of 4 blocks x 3 pixels and a
narrow one of 2 blocks x 6 pixels (``2x7,8``: 7 pixels where they divide
the row, else 8); a third part of flags: ``c`` runs a tap's channels
innermost (``taps_straight`` off), ``q`` keeps a strip of one tile from
prefetching (``prefetch_alone`` off): ``4x3/4x3/cq``.  ``--depthwise 4,6,8`` times depthwise 3x3 convs with
those pixels a tile instead.

    python benchmarks/nchwc_tiles.py --target-cpu haswell --variants 4x3/2x6 2x6/2x6 3x4/3x4
    python benchmarks/nchwc_tiles.py --target-cpu haswell --depthwise 4,6,8
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402  (first: it unsets the OpenBLAS overrides before numpy loads)

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import graphopt  # noqa: E402
from graphopt.frontends.builder import GraphBuilder  # noqa: E402
from graphopt.lowering import depthwise_nchwc  # noqa: E402
from graphopt.lowering import nchwc_tiles as tiles  # noqa: E402
from graphopt.target import Target  # noqa: E402

RNG = np.random.default_rng(0)
#: (input channels, output channels, size, kernel, stride, pad)
SHAPES = {
    "resnet": [
        (64, 64, 56, 1, 1, 0), (64, 256, 56, 1, 1, 0), (256, 64, 56, 1, 1, 0), (64, 64, 56, 3, 1, 1),
        (128, 128, 56, 3, 2, 1), (128, 512, 28, 1, 1, 0), (512, 128, 28, 1, 1, 0), (128, 128, 28, 3, 1, 1),
        (256, 512, 56, 1, 2, 0), (256, 256, 14, 3, 1, 1), (1024, 256, 14, 1, 1, 0), (256, 1024, 14, 1, 1, 0),
        (512, 512, 7, 3, 1, 1), (2048, 512, 7, 1, 1, 0), (512, 2048, 7, 1, 1, 0), (3, 64, 224, 7, 2, 3),
    ],
    "vgg": [(3, 64, 224, 3, 1, 1), (64, 64, 224, 3, 1, 1), (128, 128, 112, 3, 1, 1), (256, 256, 56, 3, 1, 1),
            (512, 512, 28, 3, 1, 1), (512, 512, 14, 3, 1, 1)],
    "depthwise": [(32, 32, 112, 3, 1, 1), (96, 96, 112, 3, 2, 1), (144, 144, 56, 3, 1, 1), (192, 192, 28, 3, 1, 1),
                  (384, 384, 14, 3, 1, 1), (960, 960, 7, 3, 1, 1)],
}  # fmt: skip


def parse_variant(text: str) -> tiles.RegisterTiles:
    wide, narrow, *order = text.split("/")
    wb, wp = (int(v) for v in wide.split("x"))
    nb, npx = narrow.split("x")
    flags = "".join(order)
    pixels = tuple(int(p) for p in npx.split(","))
    return tiles.RegisterTiles((wb, wp), int(nb), pixels, taps_straight="c" not in flags, prefetch_alone="q" not in flags)


def conv_model(c, o, size, k, s, p, lanes, depthwise):
    cl = lanes if c % lanes == 0 else 1
    shape = (1, c // cl, size, size, cl) if cl > 1 else (1, c, size, size)
    b = GraphBuilder("f")
    x = b.input(shape)
    oh = (size + 2 * p - k) // s + 1
    if depthwise:
        w = (RNG.standard_normal((c // lanes, k, k, lanes)) / k).astype(np.float32)
        y = b.depthwise_conv2d_nchwc(x, b.constant(w), (s, s), (p,) * 4, (1, 1))
    else:
        w = (RNG.standard_normal((o, c, k, k)) * np.sqrt(2 / (c * k * k))).astype(np.float32)
        y = b.conv2d_nchwc(x, b.constant(w), (s, s), (p,) * 4, (1, 1), lanes)
    bias = (RNG.standard_normal((o // lanes, 1, 1, lanes)) * 0.1).astype(np.float32)
    m = b.build(b.relu(b.add(y, b.constant(bias))))
    macs = o * oh * oh * (k * k if depthwise else c * k * k)
    return m, RNG.standard_normal(shape).astype(np.float32), 2.0 * macs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target-cpu", default=None)
    parser.add_argument("--target-features", default=None)
    parser.add_argument("--variants", nargs="*", default=[], help="WIDE/NARROW tiles, e.g. 4x3/2x6")
    parser.add_argument("--depthwise", default=None, help="pixels per depthwise tile, e.g. 4,6,8")
    parser.add_argument("--shapes", default="resnet", help=f"one of {sorted(SHAPES)}, or c,o,size,k,s,p;...")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sample-s", type=float, default=0.03)
    args = parser.parse_args()
    target = Target.from_options(cpu=args.target_cpu, features=args.target_features)
    lanes = target.f32_lanes
    regs = target.vector_registers
    depthwise = args.depthwise is not None
    shapes = SHAPES["depthwise" if depthwise and args.shapes == "resnet" else args.shapes] if args.shapes in SHAPES else [
        tuple(int(v) for v in s.split(",")) for s in args.shapes.split(";")]  # fmt: skip
    print(f"host: {Target.host().describe()}\ntarget: {target.describe()}")
    variants = args.depthwise.split(",") if depthwise else (args.variants or ["current"])
    print(f"{'conv':28}" + "".join(f"{v:>16}" for v in variants) + "   (CPU ms per call, GFLOP/s)")
    for shape in shapes:
        m, x, flops = conv_model(*shape, lanes, depthwise)
        fns, outs = [], []
        for v in variants:
            saved = (dict(tiles.TILES), depthwise_nchwc.TILE_PIXELS, depthwise_nchwc.MIN_TILE_PIXELS)
            try:
                if depthwise:
                    depthwise_nchwc.TILE_PIXELS, depthwise_nchwc.MIN_TILE_PIXELS = int(v), 1
                elif v != "current":
                    tiles.TILES[regs] = parse_variant(v)
                fn = graphopt.compile(m, opt_level=2, num_threads=1, target=target)["f"]
            finally:
                tiles.TILES.clear()
                tiles.TILES.update(saved[0])
                depthwise_nchwc.TILE_PIXELS, depthwise_nchwc.MIN_TILE_PIXELS = saved[1:]
            fns.append(fn)
            outs.append(fn(x))
        for out in outs[1:]:
            np.testing.assert_allclose(out, outs[0], rtol=1e-4, atol=1e-4)
        contenders = [harness.Contender(v, 1, lambda fn=fn: fn(x)) for v, fn in zip(variants, fns)]
        harness.measure(contenders, args.repeats, min_sample_s=args.sample_s)
        c, o, size, k, s, p = shape
        name = f"{'dw ' if depthwise else ''}{k}x{k}/{s} {c}->{o} @{size}"
        cells = "".join(f"{1e3 * c.cpu_s:8.3f} {flops / c.cpu_s / 1e9:6.1f} " for c in contenders)
        print(f"{name:28}{cells}", flush=True)


if __name__ == "__main__":
    main()
