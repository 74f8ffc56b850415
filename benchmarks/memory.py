"""Static memory planning on four CNNs: naive vs NNVM vs greedy offset packing.

Builds ResNet-50, MobileNetV2, GoogLeNet and DenseNet-121 (``models.py``,
batch 1, 224x224, f32), prepares them as the default pipeline would
(inference batch norm folded into the convolutions, constants folded), fuses
them with ``fuse-ops`` when that pass is available, and plans the workspace.
Prints, per model, in MiB (2^20 bytes, 64-byte aligned tensors):

* naive   -- every intermediate in its own region;
* LB      -- the lower bound (largest total live at one step), with in-place;
* nnvm    -- NNVM's plan_memory (match range 16, its own in-place rule);
* greedy  -- best-fit offset packing with in-place (the default strategy);
* climb   -- greedy plus a hill climb (``--hill-climb`` steps);
* over %  -- greedy's overhead above LB;
* naive/greedy and 1 - greedy/nnvm.

Run: ``python benchmarks/memory.py [--models resnet50,densenet121] [--hill-climb 300] [--no-fuse]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from models import MODELS  # noqa: E402

from graphopt.runtime.compile import run_pipeline  # noqa: E402
from graphopt.transforms.memory.liveness import naive_bytes, program_of  # noqa: E402
from graphopt.transforms.memory.strategies import lower_bounds, plan  # noqa: E402

MiB = float(1 << 20)

TARGETS = {
    # model: (greedy must equal LB, greedy max overhead %)
    "resnet50": 0.0,
    "mobilenet_v2": 0.0,
    "googlenet": 0.0,
    "densenet121": 6.0,
}


def prepare(name: str, fuse: bool) -> tuple[object, str]:
    module = MODELS[name]()
    passes = ["fold-batch-norm", "fold-constants", "decompose{ops=batch_norm}"]
    passes += ["fold-constants", "canonicalize", "cse"]
    fused = fuse
    if fuse:
        passes.append("fuse-ops")
    passes.append("dce")
    run_pipeline(module, ",".join(passes))
    return module, "fused" if fused else "unfused"


def measure(name: str, fuse: bool, hill_climb: int) -> dict[str, float | str | int]:
    module, state = prepare(name, fuse)
    fn = next(op for op in module.body.block.ops if program_of(op).steps)  # type: ignore[attr-defined]
    program = program_of(fn)
    lb, lb_plain = lower_bounds(program)
    t0 = time.perf_counter()
    greedy = plan(program, "greedy", True)
    t_greedy = time.perf_counter() - t0
    nnvm = plan(program, "nnvm", True)
    climb = plan(program, "greedy", True, hill_climb) if hill_climb else greedy
    return {
        "model": name,
        "state": state,
        "kernels": len(program.steps),
        "naive": naive_bytes(program.intervals()),
        "lb": lb,
        "lb_plain": lb_plain,
        "nnvm": nnvm.workspace,
        "greedy": greedy.workspace,
        "greedy_plain": plan(program, "greedy", False).workspace,
        "climb": climb.workspace,
        "order": greedy.strategy,
        "ms": t_greedy * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--hill-climb", type=int, default=300)
    parser.add_argument("--no-fuse", action="store_true")
    args = parser.parse_args()
    rows = [measure(m, not args.no_fuse, args.hill_climb) for m in args.models.split(",")]
    print("workspace MiB, batch 1, 224x224, f32, 64-byte alignment")
    head = (
        f"{'model':<13}{'graph':>8}{'kernels':>8}{'naive':>8}{'LB':>7}{'LB w/o':>8}{'nnvm':>7}"
        f"{'greedy':>8}{'climb':>7}{'over%':>7}{'naive/gr':>9}{'1-gr/nnvm':>10}{'ms':>7}"
    )
    print(head)
    for r in rows:
        over = 100.0 * (r["greedy"] - r["lb"]) / r["lb"] if r["lb"] else 0.0
        print(
            f"{r['model']:<13}{r['state']:>8}{r['kernels']:>8}{r['naive'] / MiB:>8.2f}{r['lb'] / MiB:>7.2f}"
            f"{r['lb_plain'] / MiB:>8.2f}{r['nnvm'] / MiB:>7.2f}{r['greedy'] / MiB:>8.2f}"
            f"{r['climb'] / MiB:>7.2f}{over:>7.1f}{r['naive'] / r['greedy']:>9.2f}"
            f"{1 - r['greedy'] / r['nnvm']:>10.1%}{r['ms']:>7.1f}"
        )
    print()
    print("greedy without in-place (vs LB without in-place):")
    for r in rows:
        over = 100.0 * (r["greedy_plain"] - r["lb_plain"]) / r["lb_plain"] if r["lb_plain"] else 0.0
        print(f"  {r['model']:<13} {r['greedy_plain'] / MiB:6.2f} MiB  (+{over:.1f}%)")
    print()
    for r in rows:
        limit = TARGETS.get(str(r["model"]))
        if limit is None:
            continue
        over = 100.0 * (r["greedy"] - r["lb"]) / r["lb"] if r["lb"] else 0.0
        ok = over <= limit + 1e-9
        goal = "== LB" if limit == 0 else f"<= {limit:.0f}% over LB"
        print(f"target {r['model']}: greedy {goal}: {'met' if ok else 'NOT met'} ({over:.1f}%)")
    if any(r["model"] == "resnet50" for r in rows):
        r = next(r for r in rows if r["model"] == "resnet50")
        saving = 1 - r["greedy"] / r["nnvm"]
        print(f"target resnet50: greedy >= 25% below nnvm: {'met' if saving >= 0.25 else 'NOT met'} ({saving:.1%})")
    if any(r["state"] == "unfused" for r in rows):
        print("note: fuse-ops is not available; graphs were planned unfused")


if __name__ == "__main__":
    main()
