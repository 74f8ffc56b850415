"""``--pass-statistics``: ops before and after each pass, erased, created."""

from __future__ import annotations

from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from graphopt.transforms.pass_statistics import StatisticsPass


class PassStatistics:
    """Ops before/after each pass, erased and created (by identity), and the
    counters of a :class:`StatisticsPass`."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int, int, int, int, float, str]] = []
        self._before: dict[int, object] = {}

    @staticmethod
    def _ops(module: ModuleOp) -> dict[int, object]:
        # Keeping the ops referenced keeps their ids from being reused.
        return {id(op): op for op in module.walk() if op is not module}

    def before(self, module: ModuleOp) -> None:
        self._before = self._ops(module)

    def after(self, done: ModulePass, module: ModuleOp, seconds: float) -> None:
        now = self._ops(module)
        erased = sum(1 for k in self._before if k not in now)
        created = sum(1 for k in now if k not in self._before)
        counters = done.statistics if isinstance(done, StatisticsPass) else {}
        extra = " ".join(f"{k}={v}" for k, v in counters.items())
        self.rows.append((done.name, len(self._before), len(now), erased, created, seconds, extra))
        self._before = {}

    def print(self, stream: IO[str]) -> None:
        width = max([len("pass")] + [len(r[0]) for r in self.rows])
        print("===- Pass statistics -===", file=stream)
        header = f"{'pass':<{width}} {'before':>7} {'after':>7} {'erased':>7} {'created':>7} {'ms':>9}  counters"
        print(header, file=stream)
        for name, before, after, erased, created, secs, extra in self.rows:
            print(
                f"{name:<{width}} {before:>7} {after:>7} {erased:>7} {created:>7} "
                f"{secs * 1e3:>9.2f}  {extra}".rstrip(),
                file=stream,
            )
