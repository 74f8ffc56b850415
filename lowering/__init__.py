"""Level-to-level conversions: graph -> loop, loop -> llvm."""
