"""Ahead-of-time output: graph-compile writes a shared library and a C header;
a C program built with the system compiler against the header runs the
examples and agrees with the reference interpreter."""

import subprocess
from pathlib import Path

import numpy as np
import pytest

from graphopt.runtime.aot import c_compiler
from graphopt.runtime.compile import parse_file
from graphopt.runtime.reference import interpret
from graphopt.tools.graph_compile import main as graph_compile
from graphopt.tools.graph_opt import main as graph_opt

ROOT = Path(__file__).parents[2]
CC = c_compiler()
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc, gcc, clang) on this machine")


def build(tmp: Path, model: str, source: Path) -> Path:
    lib = tmp / f"lib{model}.so"
    assert graph_compile([str(ROOT / "examples" / f"{model}.mlir"), "-O2", "-o", str(lib)]) == 0
    exe = tmp / f"{model}_main"
    cmd = [CC, "-O1", f"-I{tmp}", str(source), f"-L{tmp}", f"-l{model}", f"-Wl,-rpath,{tmp}", "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True)
    return exe


@needs_cc
def test_readme_c_example_runs_the_mlp(tmp_path):
    exe = build(tmp_path, "mlp", ROOT / "examples" / "aot" / "mlp_main.c")
    x = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
    out = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
    got = np.array(out.split(), dtype=np.float32).reshape(4, 10)
    (expected,) = interpret(parse_file(ROOT / "examples" / "mlp.mlir"), x, entry="mlp")
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


HARNESS = """
#include <stdio.h>
#include <stdlib.h>
#include "lib{model}.h"
int main(int argc, char **argv) {{
    static float x[{n_in}], y[{n_out}];
    FILE *f = fopen(argv[1], "rb");
    if (!f || fread(x, sizeof x, 1, f) != 1) return 2;
    fclose(f);
    void *ws = aligned_alloc(64, ({ws} + 64) / 64 * 64);
    {model}(x, y, ws);
    {model}(x, y, ws); /* a second call on the same workspace gives the same */
    f = fopen(argv[2], "wb");
    fwrite(y, sizeof y, 1, f);
    fclose(f);
    free(ws);
    return 0;
}}
"""


@needs_cc
def test_resnet_block_library_matches_the_reference(tmp_path):
    model = "resnet_block"
    module = parse_file(ROOT / "examples" / f"{model}.mlir")
    x = np.random.default_rng(2).standard_normal((1, 8, 16, 16)).astype(np.float32)
    (expected,) = interpret(module, x, entry=model)
    source = tmp_path / "harness.c"
    graph_compile([str(ROOT / "examples" / f"{model}.mlir"), "-O2", "-o", str(tmp_path / f"lib{model}.so")])
    header = (tmp_path / f"lib{model}.h").read_text()
    ws = int(header.split("#define RESNET_BLOCK_WORKSPACE_BYTES ")[1].split()[0])
    assert "void resnet_block(const float *x, float *" in header and "1 x 8 x 16 x 16 f32" in header
    source.write_text(HARNESS.format(model=model, n_in=x.size, n_out=expected.size, ws=ws))
    exe = build(tmp_path, model, source)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    subprocess.run([str(exe), str(tmp_path / "x.bin"), str(tmp_path / "y.bin")], check=True)
    got = np.frombuffer((tmp_path / "y.bin").read_bytes(), dtype=np.float32).reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_graph_opt_writes_an_object_file_with_its_constants(tmp_path):
    values = ", ".join(f"{i}.5" for i in range(1024))  # 4 KiB: the JIT would pass it as an argument
    src = tmp_path / "big.mlir"
    src.write_text(
        "func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {\n"
        f"  %w = graph.constant dense<[{values}]> : tensor<1024xf32>\n"
        "  %y = graph.mul %x, %w : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>\n"
        "  func.return %y : tensor<1024xf32>\n}\n"
    )
    obj = tmp_path / "model.o"
    assert graph_opt([str(src), "-O2", "-t", "obj", "-o", str(obj)]) == 0
    data = obj.read_bytes()
    assert data[:4] == b"\x7fELF"
    assert np.arange(1024, dtype=np.float32).__add__(0.5).tobytes() in data
