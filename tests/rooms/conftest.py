"""Hubs over one store for the room tests: the embedded store, and Redis when REDIS_URL is set; with a manual clock,
their timers run when the test moves time on (helpers.ManualScheduler)."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from server.bus.local import LocalBus
from server.engines import ENGINES
from server.rooms.hub import Hub
from server.store.embedded import open_embedded
from tests.rooms.helpers import ManualClock, ManualScheduler

HubMaker = Callable[..., Any]


@contextlib.asynccontextmanager
async def _hubs(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[HubMaker]:
    """Hubs over one store (one data directory, or one Redis prefix): successive server lives, or two nodes.
    Whatever a test left open is closed after it, and its Redis keys deleted."""
    opened: list[Hub] = []
    prefix = f"kstest{secrets.token_hex(4)}"

    async def make(clock: ManualClock | None = None, **kw: Any) -> Hub:
        if backend == "embedded":
            store: Any = open_embedded(tmp_path, fsync=False)
            bus: Any = LocalBus()
        else:
            from server.backends import open_redis

            store, bus = await open_redis(request.getfixturevalue("redis_url"), prefix)
        scheduler = ManualScheduler(clock) if clock is not None else None
        hub = Hub(store, bus, ENGINES, scheduler=scheduler, **kw)
        opened.append(hub)
        return hub

    yield make
    for hub in opened:
        with contextlib.suppress(Exception):
            await hub.close()
        if hasattr(hub.store.log, "r"):
            async for key in hub.store.log.r.scan_iter(match=f"{prefix}:*"):
                await hub.store.log.r.delete(key)
        await hub.bus.close()
        await hub.store.close()


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def make_hub(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[HubMaker]:
    """Hubs over the embedded store, and again over Redis."""
    async with _hubs(request.param, request, tmp_path) as make:
        yield make


@pytest.fixture
async def redis_hubs(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[HubMaker]:
    """Hubs over one Redis prefix (nodes sharing it)."""
    async with _hubs("redis", request, tmp_path) as make:
        yield make
