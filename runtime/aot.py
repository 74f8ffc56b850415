"""Ahead-of-time output: object files, shared libraries and their C header.

The module goes through the same pipeline as ``graphopt.compile``, except that
every constant stays in the module (``lower-loop-to-llvm{max-inline-
constant-bytes=-1}``), so the object needs nothing from the runtime.  A driver
is then an ordinary C function::

    void mlp(const float *x, float *p, void *workspace);

``write_header`` declares every driver of a lowered module from its
``#loop.abi``: the argument shapes and dtypes in comments, the workspace size
as a constant.  Each argument is named by a valid C identifier made from its
name; where that differs from the model's own name (an ONNX input such as
``gpu_0/data_0`` becomes ``gpu_0_data_0``), the comment gives the original::

    *   gpu_0_data_0: input "gpu_0/data_0", 1 x 3 x 224 x 224 f32, dense row-major

The caller allocates the workspace, 64-byte aligned, and may reuse it between
calls but not share it between threads running at once.

A module with parallel loops calls libgomp, so the library links ``-lgomp``
(an object file needs it at link time), and the header declares the exported
thread count ``extern int32_t graphopt_num_threads;`` (0, the default, is
libgomp's default: ``OMP_NUM_THREADS`` or every core).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32

from graphopt.diagnostics import UserError
from graphopt.errors import OutputError
from graphopt.output_files import write_output, write_outputs
from graphopt.dialects.graph import type_str
from graphopt.dialects.loop import module_target
from graphopt.lowering.to_llvm import emit_llvm_ir
from graphopt.lowering.to_llvm.parallel import NUM_THREADS_GLOBAL
from graphopt.runtime.abi import DriverInfo, numpy_dtype, read_drivers
from graphopt.runtime.compile import TargetSpec, lowered_module
from graphopt.runtime.executable import check_num_threads
from graphopt.runtime.jit import compile_object
from graphopt.target import Target

__all__ = [
    "c_header",
    "compile_library",
    "library_bytes",
    "object_code",
    "set_num_threads",
    "uses_threads",
    "write_library",
]

_C_TYPES = {
    "float32": "float", "float64": "double", "float16": "uint16_t", "bool": "uint8_t",
    "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
    "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
}  # fmt: skip


def object_code(module: ModuleOp, opt_level: int = 3) -> bytes:
    """The native object file of an llvm-level module (constants embedded)."""
    for info in read_drivers(module).values():
        if info.hidden_constants:
            raise UserError(
                f"driver @{info.name} takes its large constants as arguments; an object file "
                "needs them embedded: lower with lower-loop-to-llvm{max-inline-constant-bytes=-1}"
            )
    return compile_object(emit_llvm_ir(module), opt_level, module_target(module))


def _identifier(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UserError(f"driver @{name} has no valid C name; rename the function")
    return name


#: Words a parameter may not be called: C's keywords, and the names the
#: header itself uses (the workspace parameter, the types of <stdint.h>).
_RESERVED = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef "
    "union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic "
    "_Generic _Noreturn _Static_assert _Thread_local bool true false workspace "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t".split()
)


def c_parameter_name(name: str, taken: set[str]) -> str:
    """A valid C identifier for an argument called ``name`` (a source name such
    as an ONNX input's ``gpu_0/data_0``): other characters become ``_``, a
    leading digit or a reserved word gets a ``_`` added, and a name already
    ``taken`` a ``_1``, ``_2``... suffix."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if ident[:1].isdigit():
        ident = "_" + ident
    if ident in _RESERVED:
        ident += "_"
    base, n = ident, 1
    while ident in taken:
        ident, n = f"{base}_{n}", n + 1
    return ident


def c_comment_text(name: str) -> str:
    """``name`` as a C string literal (octal escapes for bytes outside
    printable ASCII), safe inside a ``/* */`` comment: ``*/`` and ``/*`` are
    broken up by a backslash."""
    out = []
    for ch in name:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(f"\\{b:03o}" for b in ch.encode("utf-8"))
    return '"' + "".join(out).replace("*/", "*\\/").replace("/*", "/\\*") + '"'


def _declaration(info: DriverInfo) -> str:
    name = _identifier(info.name)
    lines = [f"/* @{name}: {len(info.input_types)} input(s), {len(info.output_types)} output(s)."]
    params: list[str] = []
    kinds = [("input", t, n, "const ") for t, n in zip(info.input_types, info.input_names)]
    kinds += [("output", t, n, "") for t, n in zip(info.output_types, info.output_names)]
    # Names that are C identifiers already keep them; the others are made
    # from their names, distinct from those.
    wanted = [n or f"{kind}{i}" for i, (kind, _, n, _) in enumerate(kinds)]
    pnames: list[str | None] = [None] * len(kinds)
    taken: set[str] = set()
    for i, want in enumerate(wanted):
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", want) and want not in _RESERVED | taken:
            pnames[i] = want
            taken.add(want)
    for i, want in enumerate(wanted):
        if pnames[i] is None:
            pnames[i] = c_parameter_name(want, taken)
            taken.add(pnames[i])
    for i, (kind, t, n, qual) in enumerate(kinds):
        ctype = _C_TYPES[numpy_dtype(t.element_type).name]
        pname = pnames[i]
        params.append(f"{qual}{ctype} *{pname}")
        shape = " x ".join(map(str, t.get_shape())) or "scalar"
        # The model's own name, when the C name differs from it (an ONNX name).
        source = f" {c_comment_text(n)}" if n and n != pname else ""
        lines.append(f" *   {pname}: {kind}{source}, {shape} {type_str(t.element_type)}, dense row-major")
    params.append("void *workspace")
    macro = f"{name.upper()}_WORKSPACE_BYTES"
    lines.append(f" *   workspace: {macro} bytes, 64-byte aligned, owned by the caller */")
    lines.append(f"#define {macro} {info.workspace_bytes}")
    lines.append(f"void {name}({', '.join(params)});")
    return "\n".join(lines)


def uses_threads(module: ModuleOp) -> bool:
    """Whether the lowered module has parallel loops (and so needs libgomp)."""
    return _threads_global(module) is not None


def _threads_global(module: ModuleOp) -> llvm.GlobalOp | None:
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp) and op.sym_name.data == NUM_THREADS_GLOBAL:
            return op
    return None


def set_num_threads(module: ModuleOp, num_threads: int) -> None:
    """Make ``num_threads`` the initial value of the exported thread count."""
    g = _threads_global(module)
    if g is not None:
        g.value = IntegerAttr(num_threads, i32)
        g.linkage = llvm.LinkageAttr("weak")  # a common symbol must be zero


def c_header(module: ModuleOp, guard: str = "GRAPHOPT_MODEL_H") -> str:
    """The C header declaring every driver of an llvm-level module."""
    drivers = read_drivers(module)
    if not drivers:
        raise UserError("the module has no driver to export")
    body = "\n\n".join(_declaration(info) for info in drivers.values())
    if uses_threads(module):
        body = (
            "/* Threads of the parallel loops (libgomp; link with -lgomp); 0: OpenMP's default.\n"
            " * Set it before calling, not while a call runs. */\n"
            f"extern int32_t {NUM_THREADS_GLOBAL};\n\n{body}"
        )
    return (
        f"/* Generated by graph-compile. */\n#ifndef {guard}\n#define {guard}\n\n"
        f"#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n{body}\n\n"
        f"#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {guard} */\n"
    )


def c_compiler() -> str | None:
    """The system C compiler, if there is one."""
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def library_bytes(module: ModuleOp, opt_level: int = 3, name: str = "the shared library") -> bytes:
    """The module's object code linked into a shared library (in a
    temporary folder), as bytes; ``name`` is the library in messages.
    Only for this machine's architecture: the system C compiler links it."""
    target = module_target(module)
    if target.arch != Target.host().arch:
        raise UserError(
            f"cannot link a shared library for {target.triple} on this {Target.host().arch} machine; "
            "write an object file instead (an output ending in .o)"
        )
    cc = c_compiler()
    if cc is None:
        raise UserError("no C compiler found (set CC) to link a shared library")
    obj = object_code(module, opt_level)
    with tempfile.TemporaryDirectory() as tmp:
        obj_path = Path(tmp) / "model.o"
        lib_path = Path(tmp) / "model.so"
        try:
            obj_path.write_bytes(obj)
        except OSError as err:
            raise OutputError(f"cannot write the object file in '{tmp}': {err.strerror or err}") from None
        done = subprocess.run(
            [cc, "-shared", "-o", os.fspath(lib_path), os.fspath(obj_path), "-lm",
             *(["-lgomp"] if uses_threads(module) else [])],
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            raise UserError(f"linking {name} failed: {done.stderr.strip()}")
        return lib_path.read_bytes()


def write_library(module: ModuleOp, path: str | os.PathLike[str], opt_level: int = 3) -> None:
    """Link the module's object code into the shared library ``path``
    (written atomically: a failure leaves an existing file as it was)."""
    write_output(os.fspath(path), library_bytes(module, opt_level, os.fspath(path)))


def compile_library(
    source: ModuleOp | str | os.PathLike[str],
    library: str | os.PathLike[str],
    header: str | os.PathLike[str] | None = None,
    *,
    pipeline: str = "",
    opt_level: int | str | None = 2,
    llvm_opt_level: int = 3,
    num_threads: int | None = None,
    target: TargetSpec = None,
) -> None:
    """``graphopt.compile``'s pipeline for ``target``, ending in a shared
    library, or an object file when ``library`` ends in ``.o``, and a header;
    ``num_threads`` is the initial thread count (default 0, libgomp's)."""
    if num_threads is not None:
        check_num_threads(num_threads)
    module = lowered_module(source, pipeline, opt_level=opt_level, max_inline_constant_bytes=-1, target=target)
    if num_threads is not None:
        set_num_threads(module, num_threads)
    lib = os.fspath(library)
    if lib.endswith(".o"):
        outputs: list[tuple[str, str | bytes]] = [(lib, object_code(module, llvm_opt_level))]
    else:
        outputs = [(lib, library_bytes(module, llvm_opt_level, lib))]
    if header is not None:
        guard = re.sub(r"[^A-Za-z0-9]", "_", Path(header).name).upper()
        outputs.append((os.fspath(header), c_header(module, guard)))
    write_outputs(outputs)  # both or neither: a failure leaves the old files as they were
