"""Register tiles and loop shapes of the NCHWc conv micro-kernel
(``conv_nchwc``): which tile a target's vector registers hold, how a row
splits into tiles, how many tiles a strip runs, how many channels a
straight step and how many products an accumulation block takes.  Pure
functions of the target and the conv's shape, tuned by
``benchmarks/nchwc_tiles.py``."""

from __future__ import annotations

from dataclasses import dataclass

from graphopt.lowering.conv_gemm import BLOCK_PRODUCTS
from graphopt.target import Target

#: Register tiles (output blocks x pixels), by the target's vector registers
#: (:func:`register_tiles`).  A tile's accumulators, the vectors one step
#: keeps live beside them (its weight vectors, one per block, and a
#: broadcast pixel; or, with fewer pixels than blocks, its pixels'
#: broadcasts and a weight) and one more must fit the registers, or LLVM
#: spills accumulators on every step.
#:
#: 32 registers (AVX-512): WIDE for a pointwise conv whose output blocks come
#: in fours (24 accumulators: 4 weight and 6 broadcast loads per 24 FMAs),
#: else NARROW (two blocks, 7 pixels when they divide the row, else 8 and a
#: shorter last tile).  Rows of at most NARROW_ROWS pixels that are not
#: flattened (a pointwise conv runs over the plane's pixels as one row) take
#: the narrow tile.  Measured, one thread, warm, interleaved: wide 1x1
#: 256->64 @56 0.78 -> 0.74 ms, 1024->256 @14 0.78 -> 0.72; narrow 3x3 256
#: @14 2.20 -> 1.66 (6 + 6 + 2 pixels), 128 @28 1.53 -> 1.51.  A conv with
#: more taps is narrow: its wide block of weights (9 x 16 x 64 floats, 36 KB)
#: crowds L1 (in one process: 3x3 64 @56 1.41 -> 1.11 ms, 64 @48 1.00 ->
#: 0.80, the 7x7 stem 1.35 -> 1.14; ResNet-50 40.5 -> 39.8 ms).
WIDE = (4, 6)
NARROW = (2, 7)
NARROW_ROWS = 28


@dataclass(frozen=True)
class RegisterTiles:
    """The register tiles of one register file: ``wide`` (blocks, pixels),
    the narrow tile's blocks with its pixel counts in order of preference
    (the first that divides the row, else the last); ``taps_straight``: a
    kernel row's taps straight in the inner step (else each tap's channels,
    and an NCHW input's taps in a loop); ``prefetch_alone``: a strip of one
    tile prefetches the next block's weights too."""

    wide: tuple[int, int]
    narrow_blocks: int
    narrow_pixels: tuple[int, ...]
    taps_straight: bool = True
    prefetch_alone: bool = True

    def narrow(self, width: int) -> tuple[int, int]:
        return self.narrow_blocks, next((r for r in self.narrow_pixels if width % r == 0), self.narrow_pixels[-1])


#: By vector registers (in vectors of one block).  32 (AVX-512; AArch64):
#: the tiles above.  16 (AVX2, measured with the AVX2 build on Zen 4, warm,
#: one thread, interleaved; ``benchmarks/nchwc_tiles.py``): 4 x 3 for every
#: conv, 12 accumulators + 3 broadcasts + 1 weight.  A row's taps straight
#: (the AVX-512 order) spilled: 3x3 64 @56 with 2 x 6 tiles 4.68 -> 2.53 ms
#: with each tap's channels inner, 256 @14 5.49 -> 2.63, 512 @7 5.77 ->
#: 2.98; 4 x 3 with the 4 weights live spilled too (1x1 64->64 @56 0.66 ms
#: against 0.26 a weight at a time).  4 x 3 against 2 x 6: 3x3 512 @7 2.57
#: -> 2.26 ms, 1x1 256->512 /2 @56 2.56 -> 2.36, the others within 3%;
#: ResNet-50 84.2 -> 82.8 ms.  The 3-channel stem's taps in a loop: 3x3
#: 3->64 @224 3.35 -> 1.86 ms.  Tiles that are strips of their own (rows
#: longer than a strip) prefetching nothing: 3x3 64 @224 39.9 -> 36.8 ms
#: (AVX-512: unchanged).  Fewer registers: a tile that fits by the rule.
TILES = {
    32: RegisterTiles(WIDE, NARROW[0], (NARROW[1], 8)),
    16: RegisterTiles((4, 3), 4, (3,), taps_straight=False, prefetch_alone=False),
}


def register_tiles(target: Target, block: int) -> RegisterTiles:
    """The tiles for vectors of ``block`` f32 on ``target``: a vector wider
    than the target's takes several of its registers."""
    regs = target.vector_registers // max(1, -(-block // target.f32_lanes))
    for size in sorted(TILES, reverse=True):
        if regs >= size:
            return TILES[size]
    # A small register file: accumulators + live vectors + 1 <= regs.
    return RegisterTiles((2, max(1, (regs - 3) // 2)), 1, (max(1, regs - 2),), taps_straight=False)


#: Pixels per strip: the register tiles of a strip (a run of a flat
#: plane, or whole rows, as many as divide the plane) take each
#: accumulation block of the weights in turn, all of them while it is in
#: L1, where each tile used to stream its whole panel (up to 512 KB) from L2.
#: Measured warm, one thread, in one process (a tile a strip -> strips):
#: 3x3 512 @7 1.78 -> 1.61 ms, 256 @14 1.48 -> 1.26, 64 @56 1.47 -> 1.33;
#: 1x1 2048->512 @7 0.89 -> 0.80, 1024->256 @14 0.72 -> 0.67.
STRIP_PIXELS = 100
#: FMAs per straight-line step of the channel loop: a step runs the largest
#: divisor of a block's channels whose FMAs (channels x the tile's vectors)
#: fit (:func:`channels_per_step`), loop overhead against code size.  4 x 6
#: (AVX-512) and 2 x 7 tiles: 4 channels a step, as before; 4 x 3 (AVX2): a
#: whole 8-channel block, no 2-trip loop around it.  Measured, AVX2 build on
#: Zen 4, warm, one thread, interleaved (4 -> 8 channels): 3x3 64 @56 2.28 ->
#: 2.19 ms, 128 /2 @56 2.50 -> 2.31, 512 @7 2.34 -> 2.21, 1x1 2048->512 @7
#: 1.02 -> 0.96; the 16 ResNet-50 convs 24.09 -> 23.31 ms.
STEP_FMAS = 96
#: Balance the last tiles of a row (:func:`row_tiles`).  Measured, AVX2
#: build, 4 x 3 tiles, warm, one thread: 3x3 512 @7 (3 + 2 + 2 pixels, not
#: 3 + 3 + 1) 2.54 -> 2.28 ms, 256 /2 @14 0.66 -> 0.59, 128 @28 2.39 -> 2.31.
BALANCED_TAIL = True


def strip_rows(oh: int, ow: int) -> int:
    """Whole output rows per strip: as many as divide the plane within
    STRIP_PIXELS (rows of more pixels run a tile a strip)."""
    return max(d for d in range(1, oh + 1) if oh % d == 0 and d * ow <= max(STRIP_PIXELS, ow))


def strip_tile_count(full_tiles: int, mr: int) -> int:
    """Tiles per strip of a flat plane: about STRIP_PIXELS, a divisor of
    the plane's full tiles when one is within a half of that (the strips
    then run in one loop)."""
    want = max(1, STRIP_PIXELS // mr)
    near = [d for d in range(max(1, want * 2 // 3), want * 3 // 2 + 1) if full_tiles % d == 0]
    return min(near, key=lambda d: abs(d - want)) if near else want


def row_tiles(width: int, mr: int) -> tuple[int, tuple[int, ...]]:
    """A row of ``width`` pixels as full tiles of ``mr`` and the last tiles:
    a remainder of fewer than half a tile shares the last full tile's pixels
    (56 in tiles of 6: 8 x 6 + 4 + 4, not 9 x 6 + 2: a tile of 2 pixels
    leaves the FMA units waiting on its few accumulators)."""
    full, rem = divmod(width, mr)
    if not rem:
        return full, ()
    if BALANCED_TAIL and full and 2 * rem < mr:
        both = mr + rem
        return full - 1, (both - both // 2, both // 2)
    return full, (rem,)


def accumulation_products(taps: int) -> int:
    """Products per accumulation block, for ``taps`` products an input
    block: whole input blocks of at least BLOCK_PRODUCTS.  A 3x3 conv's
    8-channel block (AVX2) is 72 products: two of them, 144, as one
    16-channel block (AVX-512), so both ISAs sum alike and the 4 x 3 tile's
    864 FMAs a block no longer pay its add into the tile buffer (AVX2 build
    on Zen 4, warm, one thread: 3x3 64 @56 2.16 -> 2.09 ms, 512 @7 2.26 ->
    2.23; the 7x7 stem's three NCHW channels one block, 2.26 -> 2.20;
    ResNet-50 77.0 -> 76.4 ms)."""
    return -(-BLOCK_PRODUCTS // taps) * taps


def channels_per_step(channels: int, fmas_per_channel: int) -> int:
    """Channels of a block per straight-line step of the inner loop: the
    most that divide the block within STEP_FMAS FMAs (at least one)."""
    return max(d for d in range(1, channels + 1) if channels % d == 0 and (d == 1 or d * fmas_per_channel <= STEP_FMAS))


__all__ = [
    "RegisterTiles", "TILES", "accumulation_products", "channels_per_step", "register_tiles", "row_tiles",
    "strip_rows", "strip_tile_count",
]  # fmt: skip
