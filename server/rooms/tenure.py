"""How long this node may still act for a room it owns (issue 12 §10): its lease's deadline on this node's own
monotonic clock. The lease runs out in the store `lease_ms` after the renewal that kept it, so the node counts from
the moment it *asked* (before the store answered) less a margin: when the tenure lapses — the process was stopped
(SIGSTOP), its loop stalled, the store was out of reach — the room neither applies nor publishes anything until a
renewal holds again, well before another node could take the room over. The store's append checks the lease epoch
anyway (fencing): the tenure keeps a stale owner from even trying, and its timers from firing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MARGIN = 0.2
"""The share of the lease kept as a margin: the tenure lapses this much before the lease could run out."""


class Tenure:
    __slots__ = ("_clock", "_until", "epoch", "lease_ms")

    def __init__(self, lease_ms: int, epoch: int, clock: Callable[[], float] = time.monotonic):
        self.lease_ms = lease_ms
        self.epoch = epoch
        """The lease's epoch (Leases.acquire): the room's appends carry it and the store refuses any other."""
        self._clock = clock
        self._until = 0.0

    def asked(self) -> float:
        """The instant to pass to `renewed` once the store has answered a renewal asked now."""
        return self._clock()

    def renewed(self, asked_at: float) -> None:
        self._until = max(self._until, asked_at + self.lease_ms * (1 - MARGIN) / 1000)

    def holds(self) -> bool:
        return self._clock() < self._until

    def left_ms(self) -> int:
        return max(0, int((self._until - self._clock()) * 1000))
