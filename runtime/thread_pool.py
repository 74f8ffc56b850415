"""How libgomp's idle threads wait: a bounded spin, then sleep.

libgomp reads its environment once, when it loads, so the JIT calls
:func:`configure_libgomp` just before it loads the library.  Between two
parallel regions of one call (a serial kernel, the tail of a chunk) the
pool's worker, and the caller at the join barrier, wait.  Asleep
(``OMP_WAIT_POLICY=PASSIVE``, the earlier default), every region pays a
futex wake-up and, on a virtual machine, the wake-up of a halted vCPU:
MobileNetV2's 68 regions per call turned 7.7-8.1 ms at one thread into 9.5 ms
of wall time and 14-16 ms of CPU at two.  Spinning ``SPIN_COUNT`` times
(about 50 us on the machine measured, 17 ns a spin) before sleeping keeps
both threads awake from one region to the next within a call and lets them
sleep soon after it.  Measured at real-time priority (the stand-in for a quiet machine),
steady state, alternating processes, 2-thread wall / 1-thread CPU:

* MobileNetV2: asleep 0.81-0.85x, 1000 spins 1.36-1.42x, 3000 1.53-1.56x,
  10000 1.56-1.60x; 2-thread CPU 14-16 ms asleep, 9.6-9.8 ms at 3000;
* ResNet-50: asleep 1.53-1.57x, 1000 spins 1.65-1.70x, 3000 1.75-1.78x,
  10000 1.79-1.80x.

More spins gain little and cost more CPU after every call (10000: 170 us),
and a spinning thread costs most on an oversubscribed machine, where the
two threads of a call may share one core (at normal priority under a load
of 1.5-8 it lost: MobileNetV2 0.49-0.55x against 0.65-0.89x asleep).
libgomp itself cuts the spin to 100 when it runs more threads than there
are CPUs (several Python threads calling at once, each with its own team).

A user's ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` wins: ``passive`` for
threads that sleep at once, ``active`` for the lowest latency on a machine
of one's own.  (If the process loaded libgomp earlier, its settings stay.)
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

__all__ = ["SPIN_COUNT", "configure_libgomp"]

#: Busy-wait iterations of an idle libgomp thread before it sleeps.
SPIN_COUNT = 3000

#: The variables by which a user chooses libgomp's wait policy.
_USER_POLICY = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def configure_libgomp(environ: MutableMapping[str, str] = os.environ) -> None:
    """Set ``GOMP_SPINCOUNT`` to :data:`SPIN_COUNT` in ``environ`` unless the
    user chose a wait policy; call it before libgomp loads."""
    if not any(name in environ for name in _USER_POLICY):
        environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
