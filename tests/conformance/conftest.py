"""Per-op summary of the ONNX node tests: pass / fail / skip counts per op
type, and every failure (expected or not) with its reason."""

from __future__ import annotations

import collections
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

_outcomes: dict[str, tuple[str, str]] = {}
#: (name, op types, skip reason) of every supported case, as a pytest-xdist
#: worker that collected the node tests reports them: the process printing
#: the summary then need not build the 1,884 node cases again.
_cases: list[tuple[str, list[str], str | None]] = []


def _case_rows() -> list[tuple[str, list[str], str | None]]:
    from node_cases import op_types, selected_cases

    return [(case.name, op_types(case), skip) for case, skip in selected_cases()]


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is None or "test_onnx_node" not in sys.modules:
        return
    workeroutput["onnx_node_cases"] = json.dumps(_case_rows())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    output = getattr(node, "workeroutput", {})
    if "onnx_node_cases" in output and not _cases:
        _cases.extend(tuple(row) for row in json.loads(output["onnx_node_cases"]))


def pytest_runtest_logreport(report):
    if report.when != "call" and not (report.when == "setup" and report.skipped):
        return
    name = report.nodeinfo if hasattr(report, "nodeinfo") else report.nodeid.rsplit("::", 1)[-1]
    if not name.startswith("test_") or not name.endswith("_cpu"):
        return
    if hasattr(report, "wasxfail"):
        outcome = "xpass" if report.passed else "xfail"
    else:
        outcome = report.outcome
    reason = ""
    if report.longrepr is not None and outcome != "passed":
        text = str(report.longrepr).strip().splitlines()
        errors = [line for line in text if line.startswith("E ")]
        reason = (errors[-1][2:].strip() if errors else text[-1]).strip()[:200]
    _outcomes[name[: -len("_cpu")]] = (outcome, reason)


def pytest_terminal_summary(terminalreporter):
    if not _outcomes:
        return
    from node_cases import KNOWN_FAILURES

    cases = _cases or _case_rows()
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    failures = []
    skipped = []
    for name, ops, skip in cases:
        if skip is not None:
            status, reason = "skip", skip
        elif name in _outcomes:
            outcome, reason = _outcomes[name]
            status = "pass" if outcome == "passed" else "fail"
            if status == "fail":
                failures.append((name, KNOWN_FAILURES.get(name, reason)))
        else:
            continue
        if status == "skip":
            skipped.append((name, reason))
        for op in ops:
            table[op][status] += 1
    w = terminalreporter.write_line
    total = collections.Counter()
    for c in table.values():
        total.update(c)
    ran = [name for name, _, skip in cases if skip is None and name in _outcomes]
    run = len(ran)
    passed = sum(1 for name in ran if _outcomes[name][0] == "passed")
    w("")
    w(f"ONNX node tests: {passed}/{run} supported cases pass ({100.0 * passed / max(run, 1):.1f}%), "
      f"{len(skipped)} skipped")
    w(f"{'op':28}{'pass':>6}{'fail':>6}{'skip':>6}")
    for op in sorted(table):
        c = table[op]
        w(f"{op:28}{c['pass']:>6}{c['fail']:>6}{c['skip']:>6}")
    if failures:
        w("failures:")
        for name, reason in failures:
            w(f"  {name}: {reason}")
    if os.environ.get("GRAPHOPT_CONFORMANCE_SKIPS"):
        w("skips:")
        for name, reason in skipped:
            w(f"  {name}: {reason}")
