"""The numbers ``plan-memory{report=true}`` prints for each function.

    plan-memory @f: strategy greedy (size), in-place on
      workspace:        2048 bytes
      lower bound:      2048 bytes (without in-place: 3072 bytes)
      naive:            4096 bytes
      nnvm:             3072 bytes
      overhead:         0.0% above the lower bound
      naive/workspace:  2.00x
      planning time:    0.31 ms
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from graphopt.transforms.memory.liveness import Program, naive_bytes
from graphopt.transforms.memory.strategies import Plan, lower_bounds, plan_nnvm


@dataclass
class Report:
    function: str
    strategy: str
    inplace: bool
    workspace: int
    lower_bound: int
    lower_bound_no_inplace: int
    naive: int
    nnvm: int
    seconds: float

    @property
    def bound(self) -> int:
        """The bound that applies to this plan."""
        return self.lower_bound if self.inplace else self.lower_bound_no_inplace

    @property
    def overhead(self) -> float:
        return 100.0 * (self.workspace - self.bound) / self.bound if self.bound else 0.0

    @property
    def ratio(self) -> float:
        return self.naive / self.workspace if self.workspace else 1.0

    def format(self) -> str:
        return "\n".join(
            [
                f"plan-memory @{self.function}: strategy {self.strategy}, "
                f"in-place {'on' if self.inplace else 'off'}",
                f"  workspace:        {self.workspace} bytes",
                f"  lower bound:      {self.lower_bound} bytes "
                f"(without in-place: {self.lower_bound_no_inplace} bytes)",
                f"  naive:            {self.naive} bytes",
                f"  nnvm:             {self.nnvm} bytes",
                f"  overhead:         {self.overhead:.1f}% above the lower bound",
                f"  naive/workspace:  {self.ratio:.2f}x",
                f"  planning time:    {self.seconds * 1e3:.2f} ms",
            ]
        )


def make_report(function: str, program: Program, plan: Plan, inplace: bool, seconds: float) -> Report:
    lb, lb_plain = lower_bounds(program)
    nnvm = plan.workspace if plan.strategy == "nnvm" else plan_nnvm(program, inplace).workspace
    return Report(
        function,
        plan.strategy,
        inplace,
        plan.workspace,
        lb,
        lb_plain,
        naive_bytes(program.intervals()),
        nnvm,
        seconds,
    )


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.start


__all__ = ["Report", "Timer", "make_report"]
