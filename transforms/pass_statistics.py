"""The counters a pass reports (``graph-opt --pass-statistics``), as a declared field."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.passes import ModulePass


@dataclass(frozen=True)
class StatisticsPass(ModulePass):
    """A pass that counts what it did in :attr:`statistics`.

    The field is not an option (``init=False``: the pass-spec parser, the
    printer and ``--help`` skip it) and not part of the pass's identity
    (``compare=False``).  The dict itself is filled in place by
    :meth:`record`, so the frozen dataclass stays frozen.
    """

    statistics: dict[str, int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def record(self, **counters: int) -> None:
        """Replace the counters of the last run (option-style names: ``ops_fused`` -> ``ops-fused``)."""
        self.statistics.clear()
        self.statistics.update({k.replace("_", "-"): v for k, v in counters.items()})


__all__ = ["StatisticsPass"]
