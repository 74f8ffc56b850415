"""``graph-run``: compile a graph-level ``.mlir`` file and run it on numpy data.

    graph-run FILE [--entry NAME] [--inputs in.npz | --random-inputs --seed N]
              [--output out.npz] [--check] [--bench N] [-O LEVEL] [-p PIPELINE]

It prints a one-line summary of each output.  ``--check`` compares with the
reference interpreter (f32: rtol 1e-4, atol 1e-5; f64: rtol 1e-9, atol 1e-12;
integers and booleans exactly) and exits 1 on a mismatch.  ``--bench N``
prints the median latency of the compiled code and of the interpreter.
``-O0`` .. ``-O3`` run a named optimization pipeline before the ``-p`` passes
(``-p`` also accepts pipeline names such as ``default``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from graphopt import __version__
from graphopt.dialects.graph_base import numpy_dtype
from graphopt.runtime.reference import InputError, ReferenceInterpreter, find_function
from graphopt.lowering.graph_to_loop import check_signature
from graphopt.lowering.kernel_emitter import LoweringError
from graphopt.tools.diagnostics import UserError, report

TOLERANCES = {np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.float64): (1e-9, 1e-12)}


def random_inputs(fn: func.FuncOp, seed: int) -> list[np.ndarray]:
    """Standard-normal floats, small integers and fair booleans, per argument."""
    rng = np.random.default_rng(seed)
    arrays: list[np.ndarray] = []
    for t in fn.function_type.inputs.data:
        assert isinstance(t, TensorType)
        shape = tuple(t.get_shape())
        dtype = numpy_dtype(t.element_type)
        if dtype.kind == "f":
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            arrays.append(rng.random(shape) < 0.5)
        else:
            arrays.append(rng.integers(-8, 8, size=shape).astype(dtype))
    return arrays


def load_inputs(path: str, fn: func.FuncOp) -> list[np.ndarray]:
    """Inputs from an ``.npz``: keyed by argument name, or ``arg0``, ``arg1``..."""
    try:
        data = np.load(path)
    except FileNotFoundError:
        raise UserError(f"cannot open '{path}': no such file") from None
    except Exception as err:  # not an npz
        raise UserError(f"cannot read inputs from '{path}': {err}") from None
    arrays: list[np.ndarray] = []
    for i, arg in enumerate(fn.body.block.args):
        keys = [k for k in (arg.name_hint, f"arg{i}") if k]
        found = next((k for k in keys if k in data.files), None)
        if found is None:
            raise UserError(
                f"'{path}' has no array for argument {i} (tried {', '.join(keys)}; "
                f"it holds {', '.join(data.files) or 'nothing'})"
            )
        arrays.append(data[found])
    return arrays


def summary(index: int, a: np.ndarray) -> str:
    head = f"output {index}: {tuple(a.shape)} {a.dtype}"
    if a.size == 0:
        return head + " (empty)"
    if a.dtype.kind == "b":
        return head + f" true={int(a.sum())}/{a.size}"
    return head + f" min={a.min():.6g} max={a.max():.6g} mean={a.mean(dtype=np.float64):.6g}"


def compare(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> list[str]:
    problems: list[str] = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            problems.append(
                f"output {i}: compiled {tuple(g.shape)} {g.dtype}, reference {tuple(w.shape)} {w.dtype}"
            )
            continue
        if w.dtype in TOLERANCES:
            rtol, atol = TOLERANCES[w.dtype]
            ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = g == w
        if not ok.all():
            bad = int((~ok).sum())
            where = tuple(int(c) for c in np.argwhere(~ok)[0])
            problems.append(
                f"output {i}: {bad} of {w.size} elements differ; first at {where}: "
                f"compiled {g[where]!r}, reference {w[where]!r}"
            )
    return problems


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    call()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="graph-run", description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("file", help="a graph-level .mlir file or an .onnx model")
    p.add_argument("--entry", help="the function to run (default: the only public one)")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--inputs", metavar="NPZ|DIR",
        help="inputs by argument (or ONNX input) name or arg0, arg1, ...; for .onnx also a "
        "test_data_set directory of input_N.pb (compared with its output_N.pb)",
    )
    src.add_argument("--random-inputs", action="store_true", help="random inputs (default)")
    p.add_argument("--seed", type=int, default=0, help="seed for --random-inputs")
    p.add_argument("--output", metavar="NPZ", help="save the outputs as out0, out1, ...")
    p.add_argument("--check", action="store_true", help="compare with the reference interpreter")
    p.add_argument("--bench", type=int, metavar="N", default=0, help="time N calls of each")
    p.add_argument("-p", "--passes", default="", help="graph-level pass pipeline to run first")
    p.add_argument(
        "-O", dest="opt_level", metavar="LEVEL", default=None,
        help="optimization level 0-3 (-O0 .. -O3), applied before -p",
    )
    p.add_argument("--version", action="version", version=f"graph-run {__version__}")
    return p


def run(argv: Sequence[str] | None) -> int:
    from graphopt.runtime.compile import compile as compile_module
    from graphopt.frontends.onnx import is_onnx_path, load_source
    from graphopt.runtime.compile import run_pipeline

    args = build_parser().parse_args(argv)
    original = load_source(args.file)
    # The -p passes run first (they may create the entry, e.g. autodiff's
    # @f_grad), then the -O level's pipeline and the lowering.
    module = original.clone()
    run_pipeline(module, args.passes)
    fn = find_function(module, args.entry)
    name = fn.sym_name.data
    try:
        check_signature(fn)
    except LoweringError as err:
        raise UserError(str(err)) from None
    expected_files = None
    if args.inputs and is_onnx_path(args.file):  # .npz by ONNX names, or test_data_set_N/
        from graphopt.frontends.onnx.testdata import load_onnx_inputs

        inputs, expected_files = load_onnx_inputs(args.inputs, args.file, fn)
    else:
        inputs = load_inputs(args.inputs, fn) if args.inputs else random_inputs(fn, args.seed)
    # The reference runs the function as written when it exists there, so
    # --check also checks the -p passes; otherwise the function they made.
    in_original = any(
        isinstance(op, func.FuncOp) and op.sym_name.data == name for op in original.ops
    )
    interpreter = ReferenceInterpreter(original if in_original else module)
    level = f"-O{args.opt_level}" if args.opt_level is not None else None
    for op in list(module.ops):  # compile the entry alone
        if isinstance(op, func.FuncOp) and op is not fn:
            module.body.block.erase_op(op, safe_erase=False)
    compiled = compile_module(module, "", opt_level=level)[name]
    try:
        outputs = compiled(*inputs)
    except ValueError as err:
        raise InputError(str(err)) from None
    if outputs is None:
        outputs = []
    outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    for i, a in enumerate(outputs):
        print(summary(i, a))
    if args.output:
        np.savez(args.output, **{f"out{i}": a for i, a in enumerate(outputs)})
    status = 0
    if expected_files is not None:
        problems = compare(outputs, expected_files)
        for line in problems:
            print(f"graph-run: error: output_N.pb check failed: {line}", file=sys.stderr)
        status = 1 if problems else 0
        if not problems:
            print(f"check: OK ({len(outputs)} outputs match output_N.pb)")
    if args.check:
        expected = interpreter.run(name, *inputs)
        problems = compare(outputs, expected)
        for line in problems:
            print(f"graph-run: error: check failed: {line}", file=sys.stderr)
        if problems:
            status = 1
        else:
            print(f"check: OK ({len(outputs)} outputs match the reference)")
    if args.bench > 0:
        t_comp = median_seconds(lambda: compiled(*inputs), args.bench)
        t_ref = median_seconds(lambda: interpreter.run(name, *inputs), args.bench)
        print(f"{'':12}{'median':>14}{'vs reference':>16}")
        print(f"{'compiled':12}{t_comp * 1e3:>11.4f} ms{t_ref / t_comp:>15.2f}x")
        print(f"{'reference':12}{t_ref * 1e3:>11.4f} ms{1.0:>15.2f}x")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except (InputError, NotImplementedError) as err:
        # NotImplementedError: an op without reference semantics under --check.
        return report("graph-run", UserError(str(err)))
    except BaseException as err:  # noqa: BLE001 - one diagnostic, never a traceback
        return report("graph-run", err)


if __name__ == "__main__":
    sys.exit(main())
