"""The functions of an LLVM IR module that LLVM's loop unrolling is for,
split off as a module of their own (``split_module``), to be optimised
apart and linked back (``runtime/llvm_optimizer``).

The module is optimised without LLVM's loop unrolling: the lowering
unrolls the short loops at emission, and LLVM's LoopUnroll and
LoopFullUnroll cost a quarter of its pipeline's time on ResNet-50 and made
MCJIT's input larger.  The row forms of pooling and direct convs still want
it (their row buffer, kept in registers once unrolled; short strided rows,
which the loop vectoriser turns into gathers): the lowering marks their row
loops with the ``graphopt.llvm_unroll`` loop property, and the functions
holding such a loop are optimised with LLVM's unrolling.  The text is cut
into top-level entities as ``lowering/to_llvm/llvm_ir`` prints them (a
function from ``define`` to its ``}`` line, the rest a line each).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The loop property that asks for LLVM's unrolling (lowering/to_llvm/cf.py).
MARKER = '!{!"graphopt.llvm_unroll"}'
_NODE = re.compile(r"^(![0-9]+) = (?:distinct )?!\{(.*)\}$")
_LOOP_REF = re.compile(r"!llvm\.loop (![0-9]+)")
_GLOBAL_NAME = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)')
_LINKAGE = r"(?:private|internal|available_externally|linkonce|weak|common|appending|extern_weak|linkonce_odr|weak_odr|external)"
_DEFINE = re.compile(rf'define (?:{_LINKAGE} )?(.*?)@("(?:[^"\\]|\\.)*"|[-\w.$]+)\((.*)\)(.*)$')
_PARAM_NAME = re.compile(r' %(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)(?=,|$)')
_GLOBAL_DEF = re.compile(rf"(@\S+) = (?:{_LINKAGE} )?(?:[\w_]+ )*?(global|constant) ")


@dataclass
class _Chunk:
    """A top-level entity of LLVM IR text: a function definition, a global
    variable definition, or anything else (declarations, metadata)."""

    text: str
    name: str | None = None  # functions and global variables
    kind: str = "other"  # "function", "global" or "other"
    uses: set[str] = field(default_factory=set)

    @property
    def is_internal(self) -> bool:
        head = self.text.split(" = ", 1)[-1] if self.kind == "global" else self.text
        return head.startswith(("define internal ", "define private ", "internal ", "private "))


def _chunks(ir_text: str) -> list[_Chunk]:
    """The top-level entities of ``ir_text`` as llvmlite prints a module:
    a function from a ``define`` line to the ``}`` line, the rest a line each."""
    chunks: list[_Chunk] = []
    lines = ir_text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            j = lines.index("}", i)
            text = "\n".join(lines[i : j + 1])
            m = _DEFINE.match(line)
            if m is None:
                raise ValueError(f"unrecognised function definition: {line[:200]}")
            name = m.group(2).strip('"')
            uses = {u.strip('"') for u in _GLOBAL_NAME.findall(text)} - {name}
            chunks.append(_Chunk(text, name, "function", uses))
            i = j + 1
            continue
        if (g := _GLOBAL_DEF.match(line)) is not None:
            uses = {u.strip('"') for u in _GLOBAL_NAME.findall(line[len(g.group(0)) :])}
            chunks.append(_Chunk(line, g.group(1)[1:].strip('"'), "global", uses))
        elif line:
            chunks.append(_Chunk(line))
        i += 1
    return chunks


def _bracketed_type(text: str) -> str:
    """The LLVM type at the start of ``text`` (``[4 x [2 x float]]``, ``i32``...)."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in "[<{(":
            depth += 1
        elif ch in "]>})":
            depth -= 1
        elif ch == " " and depth == 0:
            return text[:k]
    return text


def _declaration(chunk: _Chunk) -> str:
    """An external declaration of a function or global variable chunk."""
    if chunk.kind == "function":
        m = _DEFINE.match(chunk.text.split("\n", 1)[0])
        assert m is not None
        ret, name, params, attrs = m.groups()
        return f"declare {ret}@{name}({_PARAM_NAME.sub('', params)}){attrs.rstrip(' {')}"
    g = _GLOBAL_DEF.match(chunk.text)
    assert g is not None
    return f"{g.group(1)} = external {g.group(2)} {_bracketed_type(chunk.text[len(g.group(0)) :])}"


def _external(chunk: _Chunk) -> str:
    """``chunk``'s definition with its private/internal linkage dropped."""
    if chunk.kind == "function":
        return re.sub(r"^define (?:internal|private) ", "define ", chunk.text)
    return re.sub(r" = (?:internal|private) ", " = ", chunk.text, count=1)



def _marked_loops(chunks: list[_Chunk]) -> set[str]:
    """The ``!llvm.loop`` ids whose node holds the marker property."""
    nodes = [m.groups() for c in chunks if c.kind == "other" and (m := _NODE.match(c.text))]
    markers = {name for name, body in nodes if f"!{{{body}}}" == MARKER}
    return {name for name, body in nodes if markers & set(re.findall(r"![0-9]+", body))}


def split_module(ir_text: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """``ir_text`` as modules to optimise apart and then link: ``(text,
    unroll)`` pairs (one pair when there is nothing to split), and the names
    whose internal linkage the linked module must get back.

    The first module holds the marked functions, their launchers and the
    global variables only they use, the second the rest; each declares what it uses of the
    other, whose definition is made external for the link."""
    if MARKER not in ir_text:
        return [(ir_text, False)], []
    chunks = _chunks(ir_text)
    loops = _marked_loops(chunks)
    functions = [c for c in chunks if c.kind == "function"]
    marked = {c.name for c in functions if loops & set(_LOOP_REF.findall(c.text))}
    # With their launchers (internal callers, e.g. of an outlined parallel
    # body): LLVM's interprocedural facts (argument alignment, no capture)
    # stay within one module.
    marked |= {c.name for c in functions if c.is_internal and c.uses & marked}
    if not marked or len(marked) == len(functions):
        return [(ir_text, bool(marked))], []
    users: dict[str, set[str]] = {}
    for c in functions:
        for u in c.uses:
            users.setdefault(u, set()).add(c.name)
    first_names = marked | {
        c.name for c in chunks if c.kind == "global" and users.get(c.name) and users[c.name] <= marked
    }
    first = [c for c in chunks if c.kind == "other" or c.name in first_names]
    second = [c for c in chunks if c.kind == "other" or (c.name is not None and c.name not in first_names)]
    defined = {c.name: c for c in chunks if c.kind != "other"}

    def used_by(part: list[_Chunk]) -> set[str]:
        return set().union(*(c.uses for c in part if c.kind != "other"))

    first_uses, second_uses = used_by(first), used_by(second)
    shared = {n for n in first_uses if n in defined and n not in first_names}
    shared |= {n for n in second_uses if n in first_names}
    restore = [n for n in shared if defined[n].is_internal]

    def text(part: list[_Chunk], declared: set[str]) -> str:
        out = [_external(c) if c.name in shared else c.text for c in part]
        out += [_declaration(defined[n]) for n in sorted(declared)]
        return "\n".join(out) + "\n"

    first_text = text(first, {n for n in first_uses if n in defined and n not in first_names})
    second_text = text(second, {n for n in second_uses if n in first_names})
    return [(first_text, True), (second_text, False)], restore
