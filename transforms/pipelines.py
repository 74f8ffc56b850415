"""Named pass pipelines: ``-O0`` .. ``-O3`` and ``default``.

A named pipeline is a pass-spec string, usable anywhere a pass name is
(``graph-opt -p default``, ``-p 'O1,my-pass'``, ``graphopt.compile(...,
pipeline="O3")``) or through ``-O<n>`` / ``opt_level=n``.

* ``O0``: nothing.
* ``O1``: ``fold-constants, canonicalize, cse, dce`` -- fold first so the
  simplifications see constants, then merge duplicates, then sweep.
* ``O2`` = ``default``: ``O1`` plus ``fuse-ops`` before the final ``dce`` and
  ``plan-memory`` after it, in the seed's order (fold, simplify, fuse, clean
  up).
* ``O3``: ``fold-batch-norm`` (conv/matmul + inference batch_norm -> rescaled
  weights and a bias add) and ``decompose{ops=batch_norm}`` (a batch_norm that
  remains becomes a per-channel scale and shift, which ``fold-constants``
  precomputes and fusion folds into the producer's epilogue), ``cse`` (so
  that duplicated convs are not counted twice) and ``layout-nchwc`` (chains
  of inference convs in the blocked NCHWc layout where they do enough work
  per reordered element: ResNet-50, not MobileNetV2's pointwise pairs
  between depthwise convs), then ``O2``.
  Softmax, log_softmax, layer_norm and gelu are *not* decomposed at O3: as one
  op they lower to a single cached loop nest, while their primitives split into
  several reduction groups (see ``decompose``).
"""

from __future__ import annotations

from graphopt.errors import PipelineError  # one hierarchy; re-exported here

LEVELS = ("O0", "O1", "O2", "O3")
#: Pipeline names accepted where a pass name is expected.
NAMED_PIPELINES = (*LEVELS, "default")

_O1 = ["fold-constants", "canonicalize", "cse", "dce"]


def normalize_level(level: int | str) -> str:
    """``2``, ``"2"``, ``"O2"``, ``"-O2"`` -> ``"O2"``; ``"default"`` -> ``"O2"``."""
    text = str(level).strip()
    if text == "default":
        return "O2"
    if text.startswith("-"):
        text = text[1:]
    if not text.startswith("O"):
        text = "O" + text
    if text not in LEVELS:
        raise PipelineError(
            f"invalid optimization level '{level}': expected 0, 1, 2 or 3 (-O0 .. -O3)"
        )
    return text


def pipeline_passes(level: int | str) -> list[str]:
    """The pass specs of a named pipeline, in order."""
    name = normalize_level(level)
    if name == "O0":
        return []
    if name == "O1":
        return list(_O1)
    o2 = ["fold-constants", "canonicalize", "cse", "fuse-ops", "dce", "plan-memory"]
    if name == "O2":
        return o2
    return ["fold-batch-norm", "decompose{ops=batch_norm}", "cse", "layout-nchwc", *o2]


def pipeline_spec(level: int | str) -> str:
    """The pass-spec string of ``-O<level>`` (or of ``default``); ``""`` for O0."""
    return ",".join(pipeline_passes(level))


def split_pipeline(spec: str) -> list[str]:
    """Split a pass spec at top-level commas (not those inside ``{...}``)."""
    parts: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for i, ch in enumerate(spec):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(spec[start:i])
            start = i + 1
    parts.append(spec[start:])
    return parts


def expand_named_pipelines(spec: str) -> str:
    """Replace every named pipeline in ``spec`` by its passes.

    Other entries (including malformed ones) are kept verbatim, so the pass
    parser still reports them.
    """
    if not spec.strip():
        return spec
    out: list[str] = []
    for part in split_pipeline(spec):
        name = part.strip()
        if name in NAMED_PIPELINES:
            expanded = pipeline_spec(name)
            if expanded:
                out.append(expanded)
        else:
            out.append(part)
    return ",".join(out)


def combine(*specs: str) -> str:
    """Join pass specs, skipping empty ones."""
    return ",".join(s for s in specs if s and s.strip())


def with_lowering(
    spec: str,
    *,
    max_inline_constant_bytes: int | None = None,
    bounds_check: bool = False,
    at_loop_level: bool = False,
) -> str:
    """``spec`` followed by the lowering passes it does not run itself
    (``lower-graph-to-loop``, ``lower-loop-to-llvm``): the one pipeline both
    ``graph-opt -t llvm`` and ``graphopt.compile`` run.  A negative
    ``max_inline_constant_bytes`` keeps every constant in the module (object
    files) instead of passing large ones as hidden arguments; ``bounds_check``
    guards every memref access not proven in bounds; ``at_loop_level`` (a
    hand-written loop-level module) skips ``lower-graph-to-loop``."""
    names = {p.split("{")[0].strip() for p in split_pipeline(spec)}
    if "lower-loop-to-llvm" in names:
        return spec
    options = [f"max-inline-constant-bytes={max_inline_constant_bytes}"] if max_inline_constant_bytes is not None else []
    options += ["bounds-check=true"] if bounds_check else []
    to_llvm = "lower-loop-to-llvm" + (f"{{{' '.join(options)}}}" if options else "")
    lowering = [to_llvm] if at_loop_level or "lower-graph-to-loop" in names else ["lower-graph-to-loop", to_llvm]
    return combine(spec, ",".join(lowering))


__all__ = [
    "LEVELS",
    "NAMED_PIPELINES",
    "PipelineError",
    "combine",
    "expand_named_pipelines",
    "normalize_level",
    "pipeline_passes",
    "pipeline_spec",
    "split_pipeline",
    "with_lowering",
]
