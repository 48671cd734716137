"""A connection's inbound rate: a token bucket of `rate_burst` messages refilled at `rate_per_s`."""

from __future__ import annotations

import time


class TokenBucket:
    __slots__ = ("_refill_at", "_tokens", "burst", "rate")

    def __init__(self, rate_per_s: float, burst: int):
        self.rate, self.burst = rate_per_s, float(burst)
        self._tokens = float(burst)
        self._refill_at = time.monotonic()

    def allow(self) -> bool:
        """Take one token if there is one."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._refill_at) * self.rate)
        self._refill_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False
