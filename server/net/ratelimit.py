"""Inbound rates: a connection's token bucket of `rate_burst` messages refilled at `rate_per_s`, and `Buckets` —
token buckets by key, shared by every connection with that key (a seat's token, a client address: issue 12 §13)."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    __slots__ = ("_refill_at", "_tokens", "burst", "rate")

    def __init__(self, rate_per_s: float, burst: int):
        self.rate, self.burst = rate_per_s, float(burst)
        self._tokens = float(burst)
        self._refill_at = time.monotonic()

    def take(self) -> float | None:
        """Take one token: None when there was one, else the seconds until there is."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._refill_at) * self.rate)
        self._refill_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return None
        return (1 - self._tokens) / self.rate


MAX_TRACKED = 50_000
"""Keys remembered at most; past it the ones whose bucket is full again are forgotten (they would start full)."""


class Buckets:
    """A token bucket per key, `burst` at most, refilled at `rate_per_s` (0: no limit)."""

    __slots__ = ("_buckets", "burst", "clock", "rate")

    def __init__(self, rate_per_s: float, burst: float, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate_per_s, float(max(1.0, burst)), clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def allow(self, key: str) -> bool:
        """Take one token from `key`'s bucket if there is one."""
        return self.take(key) is None

    def take(self, key: str) -> float | None:
        """Take one token from `key`'s bucket: None when there was one, else the seconds until there is."""
        if self.rate <= 0:
            return None
        now = self.clock()
        tokens, at = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate
        self._buckets[key] = (tokens - 1, now)
        if len(self._buckets) > MAX_TRACKED:
            self._forget_full(now)
        return None

    def _forget_full(self, now: float) -> None:
        for key, (tokens, at) in list(self._buckets.items()):
            if tokens + (now - at) * self.rate >= self.burst:
                del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)
