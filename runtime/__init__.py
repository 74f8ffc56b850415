"""Compiling LLVM IR to machine code, calling it on numpy arrays, and the numpy reference interpreter."""
