"""Rooms with a hand-driven clock: a manual clock, a scheduler whose timers run when a test moves time on, and a
hub on the embedded store."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from server.bus import EventBus
from server.bus.local import LocalBus
from server.engines import ENGINES
from server.rooms.hub import Hub
from server.rooms.room import RoomServices
from server.store import Store
from server.store.embedded import open_embedded


class ManualClock:
    def __init__(self, start: int = 1_000_000):
        self.ms = start

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


class ManualTimer:
    def __init__(self, when: int, job: Callable[[], Awaitable[None]], order: int):
        self.when, self.job, self.order = when, job, order
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    async def stop(self) -> None:
        self.cancelled = True


class ManualScheduler:
    """The rooms' scheduler (server/rooms/scheduler.py) on a manual clock: `await advance(ms)` moves the clock on
    and runs, in the order they fall due, the timers due by then — and those they arm that fall due by then too —
    as a process waking up after `ms` would. Nothing runs unless a test moves time on."""

    def __init__(self, clock: ManualClock):
        self.clock = clock
        self._timers: list[ManualTimer] = []
        self._order = itertools.count()

    def now(self) -> int:
        return self.clock()

    def at(self, when_ms: int, job: Callable[[], Awaitable[None]]) -> ManualTimer:
        timer = ManualTimer(when_ms, job, next(self._order))
        self._timers.append(timer)
        return timer

    async def advance(self, ms: int = 0) -> None:
        self.clock.advance(ms)
        await self.run_due()

    async def run_due(self) -> None:
        while True:
            self._timers = [t for t in self._timers if not t.cancelled]
            due = [t for t in self._timers if t.when <= self.clock()]
            if not due:
                return
            timer = min(due, key=lambda t: (t.when, t.order))
            self._timers.remove(timer)
            await timer.job()

    def pending(self) -> list[int]:
        """When the timers armed now fall due."""
        return sorted(t.when for t in self._timers if not t.cancelled)


def spec(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "Drill", "scenario": "drill", "level": 2,
                            "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
                            # no lag allowance (CLK-5): a clock flags at its deadline (test_lag_grace.py has one)
                            "clock": {"mode": "per_turn", "turn_ms": 60_000, "lag_cap_ms": 0}}
    base.update(kw)
    return base


def services(store: Store, bus: EventBus, clock: ManualClock) -> RoomServices:
    """What a room runs on, to open one by hand (a read-only copy, as another node or a replay does)."""
    return RoomServices(store, bus, ENGINES, ManualScheduler(clock))


async def open_hub(path: Path, clock: ManualClock, **kw: Any) -> Hub:
    return Hub(open_embedded(path, fsync=False), LocalBus(), ENGINES, scheduler=ManualScheduler(clock), **kw)
