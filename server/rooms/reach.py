"""Whether this node can reach its store (issue 19 §3): Redis down at start of an outage or later must not end the
node nor fill its log. The keep-alive tick reports each success or failure here; while the store is out of reach
the tick only asks it (PING) again with a growing back-off (0.5 s doubling to 5 s), the node keeps serving what it
holds in memory (joins, views and chat history of its rooms), refuses commands with the retryable `unavailable`
(nothing is queued: the rooms' tenures lapse, server/rooms/tenure.py), and says so in /healthz, /readyz and
/metrics. One line when the store is lost, one when it is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 5.0


class Reach:
    __slots__ = ("_clock", "down_since", "failures", "next_try", "ok", "outages")

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self.ok = True
        self.down_since: float | None = None
        self.failures = 0
        self.next_try = 0.0
        self.outages = 0
        """How many times the store was lost since the node started."""

    def due(self) -> bool:
        """Whether to ask the store now: always while it answers, after the back-off while it does not."""
        return self.ok or self._clock() >= self.next_try

    def failed(self, exc: BaseException) -> None:
        now = self._clock()
        if self.ok:
            self.ok, self.down_since = False, now
            self.outages += 1
            log.warning("the store cannot be reached (%s: %s): commands are refused as unavailable; retrying with "
                        "back-off", type(exc).__name__, exc)
        self.failures += 1
        self.next_try = now + min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** (self.failures - 1))

    def succeeded(self) -> None:
        if not self.ok:
            log.warning("the store answers again after %.1f s", self.down_s())
        self.ok, self.down_since, self.failures = True, None, 0

    def down_s(self) -> float:
        """How long the store has been out of reach (0 when it answers)."""
        return 0.0 if self.down_since is None else self._clock() - self.down_since
