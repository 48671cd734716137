"""A room on the embedded store with a hand-driven clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.bus.local import LocalBus
from server.rooms.hub import Hub
from server.store.embedded import open_embedded


class ManualClock:
    def __init__(self, start: int = 1_000_000):
        self.ms = start

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


def spec(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "Drill", "scenario": "drill", "level": 2,
                            "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
                            "clock": {"mode": "per_turn", "turn_ms": 60_000}}
    base.update(kw)
    return base


async def open_hub(path: Path, clock: ManualClock, **kw: Any) -> Hub:
    return Hub(open_embedded(path, fsync=False), LocalBus(), now=clock, **kw)
