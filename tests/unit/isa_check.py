"""The x86 targets the micro-kernel tests cover, and how a test checks a
kernel for one: run it against the reference where this machine can run
the target's code, else compile it to an object file (so a tile wrong for
one ISA fails on any host, if only at code generation)."""

from __future__ import annotations

import functools

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import graphopt
from graphopt.lowering.graph_to_loop import lower_graph_to_loop
from graphopt.runtime.aot import object_code
from graphopt.runtime.compile import lowered_module, run_pipeline, set_target
from graphopt.target import Target

X86 = "x86_64-unknown-linux-gnu"
#: AVX2 + FMA (16 ymm registers: 8 f32 lanes) and AVX-512 (32 zmm: 16 lanes).
CPUS = ("haswell", "skylake-avx512")


@functools.cache
def target(cpu: str) -> Target:
    return Target.from_options(cpu=cpu, triple=X86)


def lanes(cpu: str) -> int:
    """The NCHWc block of the target: its f32 lanes."""
    return target(cpu).f32_lanes


def with_target(module: ModuleOp, cpu: str) -> ModuleOp:
    """``module`` (itself) recorded as compiled for ``cpu``: the graph passes
    (layout-nchwc's block) and the lowering read it."""
    set_target(module, target(cpu))
    return module


def lowered(module: ModuleOp, cpu: str, pipeline: str = "O2") -> ModuleOp:
    """A copy of ``module`` at the loop level, scheduled for ``cpu``."""
    out = with_target(module.clone(), cpu)
    run_pipeline(out, pipeline)
    lower_graph_to_loop(out)
    return out


def check_compiled(
    module: ModuleOp, cpu: str, inputs: list[np.ndarray], want, *, threads: int | tuple[int, ...] = 1,
    bounds_check: bool = False,
    rtol: float = 1e-4, atol: float = 1e-4, opt_level: int = 2, pipeline: str = "",
) -> bool:  # fmt: skip
    """``module``'s function ``f`` compiled for ``cpu`` matches ``want`` (an
    array or a tuple of them) where this machine runs the target's code;
    elsewhere it compiles to an object file.  ``threads``: a count, or
    counts to run the one compiled module at.  Whether it ran."""
    t = target(cpu)
    if not t.runs_on_host():
        llvm_module = lowered_module(
            module.clone(), pipeline, opt_level=opt_level, target=t, bounds_check=bounds_check,
            max_inline_constant_bytes=-1,
        )  # fmt: skip
        assert object_code(llvm_module)[:4] == b"\x7fELF"
        return False
    counts = threads if isinstance(threads, tuple) else (threads,)
    compiled = graphopt.compile(
        module, pipeline, opt_level=opt_level, num_threads=counts[0], bounds_check=bounds_check, target=t
    )
    for count in counts:
        compiled.num_threads = count
        got = compiled["f"](*inputs)
        for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return True
